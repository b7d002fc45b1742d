/**
 * Predicates on option values: the numbers, lists and statuses that
 * {@linkcode checkOptions} of `check_options.ts` takes.
 *
 * @module
 */

import { MAX_TIMER_DELAY } from "./retry.ts";

/** True for `undefined` or an array of strings. */
export function isStrings(value: unknown): boolean {
  return value === undefined ||
    (Array.isArray(value) && value.every((item) => typeof item === "string"));
}

/** An HTTP status code as RFC 9110 (15) defines its range. */
export function isStatus(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) >= 100 &&
    (value as number) <= 599;
}

/** A `timeout`: `Infinity`, or a number of ms a timer can hold. */
export function isTimeout(value: unknown): boolean {
  return value === Infinity ||
    (typeof value === "number" && value >= 1 && value <= MAX_TIMER_DELAY);
}

/** A non-negative safe integer. */
export function isCount(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** True unless `value` is `undefined` or `null`, which mean "none" in options. */
export function isSet<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}
