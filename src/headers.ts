/**
 * Header merging (case-insensitive, later sources win) with the checks the
 * platform would otherwise apply unevenly across runtimes.
 *
 * @module
 */

import type { ValidationIssue } from "./errors.ts";

/** Headers as a plain record with lower-case names. */
export type HeaderRecord = Record<string, string>;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// CR, LF and NUL would end the header. A character past U+00FF cannot be
// written as one byte: the platform refuses it while sending, which would
// look like a network failure.
const UNSENDABLE_VALUE = /[\r\n\0]|[^\0-\xff]/;
const FORBIDDEN_VALUE = /[\r\n\0]/;
const NONE: ValidationIssue[] = [];

/**
 * Copies `init` into `target` (lower-case names, so a later source replaces an
 * earlier one whatever its case) and returns the problems found. Values are
 * never repeated in a message.
 *
 * @example
 * ```ts ignore
 * const target = {};
 * mergeHeaders(target, { Accept: "text/plain" });
 * mergeHeaders(target, [["accept", "application/json"]]);
 * // target: { accept: "application/json" }
 * ```
 */
export function mergeHeaders(
  target: HeaderRecord,
  init: HeadersInit | undefined | null,
): ValidationIssue[] {
  if (init === undefined || init === null) return NONE;
  let issues = NONE;
  const add = (value: string, name: string) => {
    if (!TOKEN.test(name)) {
      issues = issues.concat({
        path: "",
        message: "Cannot send a header: its name is not a valid HTTP token",
      });
    } else if (UNSENDABLE_VALUE.test(value)) {
      issues = issues.concat({
        path: "",
        message: FORBIDDEN_VALUE.test(value)
          ? `Cannot send header "${name}": its value contains CR, LF or NUL`
          : `Cannot send header "${name}": its value has a character outside Latin-1; percent-encode it`,
      });
    } else {
      target[name.toLowerCase()] = value.trim();
    }
  };
  if (init instanceof Headers) {
    init.forEach(add);
  } else if (
    Array.isArray(init) ||
    typeof (init as Partial<Iterable<unknown>>)[Symbol.iterator] === "function"
  ) {
    // A list of pairs, or any iterable of them (a Map), as fetch takes it.
    for (const pair of init as Iterable<string[]>) {
      if (!Array.isArray(pair) || pair.length !== 2) {
        issues = issues.concat({
          path: "",
          message: "Cannot send a header: each pair needs a name and a value",
        });
        continue;
      }
      add(String(pair[1]), String(pair[0]));
    }
  } else {
    for (const name of Object.keys(init)) {
      const value = (init as Record<string, unknown>)[name];
      if (value !== undefined) add(String(value), name);
    }
  }
  return issues;
}
