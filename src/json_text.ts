/**
 * Writing a request body as JSON text: one `JSON.stringify` that renames
 * keys to the wire casing on the way and notices what JSON would lose.
 *
 * @module
 */

import {
  type Casing,
  clashMark,
  convertKey,
  mayHaveClashed,
} from "./casing.ts";
import { clashIn, convertKeys, KeyClash } from "./convert_keys.ts";
import type { ValidationIssue } from "./errors.ts";
import { findNonJsonValues, TOO_LARGE_TO_WRITE } from "./json_value.ts";
import { emptyFormOf, isInvalidDate, unboxedNumber } from "./json_loss.ts";
import { jsonForm } from "./json_form.ts";
import { isPlainObject, setOwn } from "./object.ts";

/**
 * `JSON.stringify` in one pass that also notices what it would silently drop
 * or turn into `null` (a function, a symbol, `NaN`, `Infinity`), and renames
 * the keys of plain objects to `casing` on the way: each `toJSON` and getter
 * runs once. Only when something is wrong does a second walk find where, for
 * the issues.
 *
 * @example
 * ```ts ignore
 * toJson({ userId: 1 }, "snake_case"); // '{"user_id":1}'
 * toJson({ n: NaN }, "none"); // [{ path: "/n", message: "… value is NaN" }]
 * ```
 */
export function toJson(
  value: unknown,
  casing: Casing,
): string | ValidationIssue[] {
  let lossy = false;
  let text: string | undefined;
  let failure: unknown;
  const mark = casing === "none" ? 0 : clashMark(casing);
  try {
    text = JSON.stringify(
      value,
      function (this: Record<string, unknown>, key: string, given: unknown) {
        // A Number object is written as its value: read here, once, and
        // that is what JSON writes.
        const item = given instanceof Number
          ? unboxedNumber(given) ?? given
          : given;
        if (
          typeof item === "number" ? !Number.isFinite(item) : notJson(item) ||
            // An invalid Date's toJSON gives null. Its data property is
            // looked at, not read again: a getter runs once.
            (item === null &&
              isInvalidDate(Object.getOwnPropertyDescriptor(this, key)?.value))
        ) {
          lossy = true;
        } else if (casing !== "none" && isPlainObject(item)) {
          return renamed(item, casing, mark);
        }
        return item;
      },
    );
  } catch (error) {
    // A circular value, a BigInt, a throwing toJSON or getter; with casing,
    // a circular value overflows the stack instead (each level is a copy).
    failure = error;
  }
  if (!lossy && failure === undefined && text !== undefined) return text;
  const issues = findNonJsonValues(value, "", { callToJSON: true, casing });
  if (issues.length > 0) return issues;
  // A clash the walk did not meet again (a getter that answers otherwise).
  if (failure instanceof KeyClash) return [failure.issue("")];
  // Too deep for the stack, or too long for a string.
  if (failure instanceof RangeError) {
    // The replacer costs stack of its own: it overflowed near 3,000 levels
    // of arrays, which JSON writes without one (the walk stops past 10,000).
    // The body goes without it, read once more as JSON writes it, its keys
    // renamed without recursion: that copy is checked and sent, not a
    // getter or toJSON's next answer, unchecked.
    return plainJson(value, casing) ??
      [{ path: "", message: TOO_LARGE_TO_WRITE }];
  }
  const why = failure instanceof Error
    ? failure.message
    : "it has no JSON form";
  return [{ path: "", message: `Cannot serialise the body as JSON: ${why}` }];
}

/**
 * `JSON.stringify` without a replacer of the body's JSON form, its keys in
 * `casing`, or the issues found in that form; `undefined` where it cannot be
 * read or written.
 */
function plainJson(
  value: unknown,
  casing: Casing,
): string | ValidationIssue[] | undefined {
  const form = jsonForm(value);
  if (typeof form === "symbol") return undefined;
  const issues = findNonJsonValues(form, "", { callToJSON: true, casing });
  if (issues.length > 0) return issues;
  try {
    return JSON.stringify(convertKeys(form, casing));
  } catch {
    return undefined;
  }
}

/**
 * True for what JSON cannot write in full. An object here is what JSON
 * writes by its own keys: a `toJSON` it has was called already, or it is
 * what a `toJSON` returned, whose own `toJSON` JSON never calls.
 */
function notJson(item: unknown): boolean {
  const type = typeof item;
  return type === "bigint" || type === "function" || type === "symbol" ||
    emptyFormOf(item, true) !== undefined;
}

/**
 * A shallow copy with the keys in `casing`; `__proto__` stays a data key.
 * Two keys that become one stop the serialisation (the walk that follows
 * names them); they are counted only when the casing's conversions since
 * `mark` say a clash may be there.
 */
function renamed(
  item: Record<string, unknown>,
  casing: Casing,
  mark: number,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let written = 0;
  let changed = false;
  for (const key of Object.keys(item)) {
    const value = item[key];
    // Left out by JSON, so it cannot clash with a key that is written.
    if (value === undefined) continue;
    const converted = convertKey(key, casing);
    if (converted !== key) changed = true;
    written++;
    setOwn(out, converted, value);
  }
  if (
    changed && mayHaveClashed(casing, mark) &&
    Object.keys(out).length !== written
  ) {
    const keys = Object.keys(item).filter((key) => item[key] !== undefined);
    // Not found again only when a getter answers otherwise the second time.
    throw clashIn("", keys, casing) ??
      new Error(`two keys of an object become one key in ${casing}`);
  }
  return out;
}
