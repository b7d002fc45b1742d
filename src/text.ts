/**
 * What text the caller's values make, as a request carries it.
 *
 * @module
 */

/**
 * What `String()` makes of an object that has no text of its own (a Map, a
 * class instance): `"[object Object]"`, which no caller means to send.
 */
export const DEFAULT_TEXT = /^\[object [^\]]*\]$/;

/**
 * Half of a UTF-16 pair without its other half: not Unicode text, so a URL
 * cannot carry it (`URLSearchParams` puts U+FFFD in its place,
 * `encodeURIComponent` throws).
 */
export const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Why a string body of the caller's is no text UTF-8 can carry, if it is
 * not: a lone surrogate would go as U+FFFD (JSON escapes one, so only a
 * string given as the body is asked). Told natively where the runtime has
 * `isWellFormed` (ES2024), else by {@linkcode LONE_SURROGATE}.
 */
export function notText(body: unknown): string | undefined {
  if (typeof body !== "string") return undefined;
  const wellFormed = (body as { isWellFormed?: () => boolean }).isWellFormed;
  const lone = typeof wellFormed === "function"
    ? !wellFormed.call(body)
    : LONE_SURROGATE.test(body);
  return lone
    ? "the string holds a lone surrogate, which is not Unicode text and would go as U+FFFD"
    : undefined;
}
