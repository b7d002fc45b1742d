/**
 * What a path may hold: a parameter value that fills one segment, a
 * relative target that stays below the base address's path, and a URL no
 * longer than `fetch` sends.
 *
 * @module
 */

import { describeValue } from "./json_value.ts";
import { hasLoneSurrogate } from "./text.ts";

/**
 * Why a value cannot fill one path segment, or `undefined` when it can: `.`
 * and `..` would remove one (the URL parser resolves them, a server may after
 * decoding `%2e%2e`), an empty value would merge two. A value with a `.` or
 * `..` between slashes (`../admin`) is one segment as sent (`..%2Fadmin`),
 * but a server that decodes the path before it resolves dot segments (as it
 * decodes `%2e%2e`) climbs out of it: it is refused too. A slash alone is not
 * (`group/project` is an id in some APIs).
 */
export function segmentProblem(value: unknown): string | undefined {
  if (typeof value === "number") {
    return Number.isFinite(value) ? undefined : String(value);
  }
  if (value === undefined) return "missing";
  if (typeof value !== "string") {
    return `${describeValue(value)}; give a string or a number`;
  }
  if (value === "") return "empty";
  if (hasLoneSurrogate(value)) {
    return "a string with a lone surrogate, which is not Unicode text";
  }
  if (value.length <= 6 && isDotSegment(decodeDots(value))) {
    return `${JSON.stringify(value)}, a dot segment`;
  }
  // Only a `.` or an escape (`%2e`) can spell a dot segment.
  if (
    (value.includes(".") || value.includes("%")) &&
    (hasDotPart(value) || hasDotPart(decodeDots(value)))
  ) {
    return 'a path with a "." or ".." part, which leaves its segment on a server that decodes "%2F" before it resolves dot segments';
  }
  return undefined;
}

/**
 * True when a relative target has a `..` segment (`%2e%2e` too) in its
 * path: joined, it would drop the base address's path (`/v1`). A backslash
 * ends a segment too: the URL parser reads it as a slash in an http(s) URL.
 */
export function climbsOut(target: string): boolean {
  const end = target.search(/[?#]/);
  const path = end === -1 ? target : target.slice(0, end);
  return path.split(SEPARATORS).some((segment) =>
    segment.length <= 6 && decodeDots(segment) === ".."
  );
}

/** `.` or `..` between slashes or backslashes (`../x`, `a\..`). */
function hasDotPart(text: string): boolean {
  return text.split(SEPARATORS).some(isDotSegment);
}

// A backslash is a slash to the URL parser in an http(s) URL, and to
// servers that decode `%5C` on a system whose paths use it.
const SEPARATORS = /[/\\]/;

function isDotSegment(text: string): boolean {
  return text === "." || text === "..";
}

/**
 * `text` with each escape of a dot, a slash or a backslash decoded, as a
 * server decodes them: escape by escape, whatever else the text holds.
 * Decoding it whole would fail at any malformed escape (`%2e%2e%2fadmin%`)
 * and leave the dots hidden; only these three characters make a dot part.
 */
function decodeDots(text: string): string {
  return text.includes("%")
    ? text.replace(DOT_ESCAPES, (escape) => DECODED[escape[2]!]!)
    : text;
}

const DOT_ESCAPES = /%(?:2[eEfF]|5[cC])/g;

const DECODED: Record<string, string> = {
  e: ".",
  E: ".",
  f: "/",
  F: "/",
  c: "\\",
  C: "\\",
};

/**
 * The longest URL grab sends, in characters: the most Deno's `fetch` takes
 * (it fails a longer one as the network would); Node's and Bun's send more,
 * but few servers read a tenth of it.
 */
export const MAX_URL = 65_534;

/** Why a URL is too long to send, or `undefined`. */
export function tooLong(href: string): string | undefined {
  if (href.length <= MAX_URL) return undefined;
  return `Cannot send a URL of ${
    href.length.toLocaleString("en-US")
  } characters: ` +
    `fetch sends ${MAX_URL.toLocaleString("en-US")} at most in Deno; ` +
    "send the data in a body, or in several requests";
}
