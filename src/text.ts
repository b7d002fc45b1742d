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
 * `encodeURIComponent` throws), nor can UTF-8.
 */
const LONE_SURROGATE = /\p{Cs}/u;

/** `String.prototype.isWellFormed` (ES2024), where the runtime has it. */
const WELL_FORMED = (String.prototype as { isWellFormed?: () => boolean })
  .isWellFormed;

/**
 * True for text with a lone surrogate ({@linkcode LONE_SURROGATE}), told
 * natively where the runtime can.
 */
export function hasLoneSurrogate(text: string): boolean {
  return WELL_FORMED === undefined
    ? LONE_SURROGATE.test(text)
    : !WELL_FORMED.call(text);
}

/**
 * Why a string body of the caller's is no text UTF-8 can carry, if it is
 * not: a lone surrogate would go as U+FFFD (JSON escapes one, so only a
 * string given as the body is asked).
 */
export function notText(body: unknown): string | undefined {
  return typeof body === "string" && hasLoneSurrogate(body)
    ? "the string holds a lone surrogate, which is not Unicode text and would go as U+FFFD"
    : undefined;
}
