/**
 * Finding the values JSON cannot carry, each named by a JSON pointer in a
 * {@linkcode ValidationIssue}, and the value descriptions its messages use.
 *
 * @module
 */

import type { Casing } from "./casing.ts";
import { clashIn } from "./convert_keys.ts";
import type { ValidationIssue } from "./errors.ts";
import { attempt, quoting, reasonOf } from "./thrown.ts";
import { isPlainObject, joinPointer } from "./object.ts";
import { emptyFormOf, isInvalidDate, unboxedNumber } from "./json_loss.ts";

/** Options of {@linkcode findNonJsonValues}. */
export interface FindNonJsonValuesOptions {
  /**
   * Called for every object member walked; a returned message becomes an
   * issue at the member's path (used to check JSON:API member names).
   */
  check?: (key: string, path: string) => string | undefined;
  /**
   * Calls each `toJSON` and checks what it returns, as `JSON.stringify`
   * would see it; without, an object with a `toJSON` method is accepted as
   * it is. Only a diagnosis calls it: the one serialisation calls it once.
   */
  callToJSON?: boolean;
  /** Objects that already contain `value`, so a reference back to one is circular. */
  within?: readonly object[];
  /**
   * The casing keys are sent in: two keys of one plain object (with values;
   * JSON leaves `undefined` out) that it makes one are an issue at the
   * second key's path.
   */
  casing?: Casing;
}

/** A short description of a value for messages: `missing`, `"x"`, `5`, `an array`. */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case "undefined":
      return "missing";
    case "string":
      return value === "" ? "an empty string" : JSON.stringify(value);
    case "number":
    case "boolean":
      return String(value);
    case "bigint":
      return "a BigInt";
    case "symbol":
      return "a symbol";
    case "function":
      return "a function";
  }
  return value === null
    ? "null"
    : Array.isArray(value)
    ? "an array"
    : "an object";
}

/**
 * Lists every value in `value` that JSON cannot carry: a BigInt, a function,
 * a symbol, `NaN`, `Infinity`, `-Infinity`, an invalid `Date` (written as
 * `null`), a `Map` or a `Set` (written as `{}`), or a circular reference (an
 * object that is its own ancestor; the same object in two sibling places is
 * fine). `undefined` is accepted, as `JSON.stringify` drops it (or writes
 * `null` in an array). An object with a `toJSON` method (`Date`) is accepted
 * and not walked, unless `options.callToJSON` asks to check what it returns.
 * Iterative, so a deep value cannot overflow the stack, and bounded: past
 * ten million items and members, or (calling `toJSON`, which may make new
 * objects without end) ten thousand levels, it stops with one issue at
 * `path`, {@linkcode TOO_LARGE_TO_WRITE}. An array's items are looked at one
 * at a time, so a sparse one costs no memory.
 *
 * Each issue's `path` is a JSON pointer below `path` (default `""`).
 *
 * @example
 * ```ts ignore
 * findNonJsonValues({ total: 1n, at: new Date(), list: [NaN] });
 * // [
 * //   { path: "/total", message: 'Cannot serialise "/total" as JSON: value is a BigInt' },
 * //   { path: "/list/0", message: 'Cannot serialise "/list/0" as JSON: value is NaN' },
 * // ]
 * ```
 */
export function findNonJsonValues(
  value: unknown,
  path = "",
  options: FindNonJsonValuesOptions = {},
): ValidationIssue[] {
  const walk = new Walk(options);
  const stack = walk.stack;
  // The member key is undefined for the root and array items.
  stack.push([value, path, undefined, false, 0]);
  while (stack.length > 0) {
    const step = stack.pop()!;
    const [current, at, key, state] = step;
    if (state !== false) {
      walk.resume(step);
      continue;
    }
    if (typeof key === "string" && options.check !== undefined) {
      const message = options.check(key, at);
      if (message !== undefined) walk.issues.push({ path: at, message });
    }
    if (typeof current === "object" && current !== null) {
      if (!walk.enter(current, step)) {
        // Past what JSON can write, or a walk without end: the rest unseen.
        walk.issues.push({ path, message: TOO_LARGE_TO_WRITE });
        break;
      }
    } else if (
      typeof current === "number" ? !Number.isFinite(current) : (
        typeof current === "bigint" || typeof current === "function" ||
        typeof current === "symbol"
      )
    ) {
      walk.report(at, describeValue(current));
    }
  }
  return walk.issues;
}

/**
 * Why a body cannot be written when it nests or holds more than JSON can
 * write: a `toJSON` that makes new objects without end, an array whose
 * length is far past its items.
 */
export const TOO_LARGE_TO_WRITE =
  "Cannot serialise the body as JSON: it is nested deeper, or holds more, than JSON can write";

/** The most items and members a walk looks at: a sparse array's length costs no memory. */
const MAX_SLOTS = 10_000_000;
/** Deeper than `JSON.stringify` itself can write, on any runtime. */
const MAX_DEPTH = 10_000;

/**
 * One value on the walk: [value, path, member key, state, depth]. The state
 * is `false` for a value to look at, `true` for an object being left, and
 * for an array the index of the next item to look at.
 */
type Step = [unknown, string, Key, boolean | number, number];

/**
 * The member key of a step: `undefined` for the root and array items, and
 * {@linkcode CONVERTED} for what a `toJSON` returned, which `JSON.stringify`
 * writes as it is, without calling its own `toJSON`.
 */
type Key = string | undefined | typeof CONVERTED;
const CONVERTED: unique symbol = Symbol("converted by toJSON");

/** What a walk has found, what is left and what it may still look at. */
class Walk {
  readonly issues: ValidationIssue[] = [];
  readonly stack: Step[] = [];
  readonly #ancestors: Set<unknown>;
  readonly #casing: Casing;
  readonly #callToJSON: boolean;
  /** Only what toJSON methods return can nest without end. */
  readonly #maxDepth: number;
  #slots = MAX_SLOTS;

  constructor(options: FindNonJsonValuesOptions) {
    this.#ancestors = new Set(options.within);
    this.#casing = options.casing ?? "none";
    this.#callToJSON = options.callToJSON === true;
    this.#maxDepth = this.#callToJSON ? MAX_DEPTH : Infinity;
  }

  report(at: string, what: string): void {
    this.issues.push({
      path: at,
      message: `Cannot serialise ${
        at === "" ? "the body" : `"${at}"`
      } as JSON: value is ${what}`,
    });
  }

  /** Reports the value at `at` whose reading threw `error`, kept as a cause. */
  reportThrown(at: string, what: string, error: unknown): void {
    this.report(at, `${what} (${reasonOf(error)})`);
    quoting(this.issues[this.issues.length - 1]!, error);
  }

  /** Looks at an object; false when it is past the walk's bounds. */
  enter(current: object, [, at, key, , depth]: Step): boolean {
    // A revoked Proxy, or a Date that is none, throws when looked at.
    const [read, lost] = attempt(() => lossOf(current, key === CONVERTED));
    if (!read) {
      this.reportThrown(at, "an object that cannot be read", lost);
      return true;
    }
    if (lost !== undefined) {
      this.report(at, lost as string);
      return true;
    }
    if (
      key !== CONVERTED &&
      typeof (current as { toJSON?: unknown }).toJSON === "function"
    ) {
      if (!this.#callToJSON) return true;
      // What JSON.stringify would write is what toJSON returns, as it is:
      // a `toJSON` of that is not called, nor would it end.
      const [ok, json] = attempt(() =>
        (current as { toJSON(key: string): unknown }).toJSON(key ?? "")
      );
      if (!ok) this.reportThrown(at, "an object whose toJSON threw", json);
      else this.stack.push([json, at, CONVERTED, false, depth]);
      return true;
    }
    if (this.#ancestors.has(current)) {
      this.report(at, "a circular reference");
      return true;
    }
    if (depth >= this.#maxDepth) return false;
    const isArray = Array.isArray(current);
    const size = isArray
      ? current.length
      : this.#pushMembers(current, at, depth);
    if ((this.#slots -= size) < 0) return false;
    this.#ancestors.add(current);
    // An array's items are looked at one at a time, from this step.
    if (isArray) this.stack.push([current, at, undefined, 0, depth]);
    return true;
  }

  /** Steps past an object left, or on to an array's next item. */
  resume([current, at, , state, depth]: Step): void {
    const array = current as unknown[];
    if (state === true || state === array.length) {
      this.#ancestors.delete(current);
      return;
    }
    const i = state as number;
    this.stack.push([array, at, undefined, i + 1, depth]);
    this.stack.push([
      array[i],
      joinPointer(at, i),
      undefined,
      false,
      depth + 1,
    ]);
  }

  /**
   * Pushes the members of an object, reading each getter once, and the step
   * that leaves it; looks for two keys the casing makes one. Returns how
   * many members it has.
   */
  #pushMembers(current: object, at: string, depth: number): number {
    const record = current as Record<string, unknown>;
    this.stack.push([current, at, undefined, true, depth]);
    const [listed, names] = attempt(() => Object.keys(record));
    if (!listed) {
      this.reportThrown(at, "an object whose keys cannot be listed", names);
      return 0;
    }
    const keys = names as string[];
    const keyed = this.#casing !== "none" && isPlainObject(record);
    const written: string[] = [];
    for (let i = keys.length - 1; i >= 0; i--) {
      const k = keys[i]!;
      const [ok, member] = attempt(() => record[k]);
      const where = joinPointer(at, k);
      if (ok) this.stack.push([member, where, k, false, depth + 1]);
      else this.reportThrown(where, "a getter that threw", member);
      if (keyed && ok && member !== undefined) written.push(k);
    }
    const clash = keyed && clashIn(at, written.reverse(), this.#casing);
    if (clash) this.issues.push(clash.issue(joinPointer(at, clash.keys[1])));
    return keys.length;
  }
}

/**
 * What JSON would make of an object that loses its data, if it would;
 * `byKeys` for what a `toJSON` returned, written by its own keys.
 */
function lossOf(value: object, byKeys: boolean): string | undefined {
  if (
    byKeys || typeof (value as { toJSON?: unknown }).toJSON !== "function"
  ) {
    // JSON writes a Number object as its value.
    const number = unboxedNumber(value);
    if (number !== undefined) {
      return Number.isFinite(number) ? undefined : describeValue(number);
    }
  }
  if (!byKeys && isInvalidDate(value)) return "an invalid Date";
  const lost = emptyFormOf(value, byKeys);
  return lost !== undefined && byKeys &&
      typeof (value as { toJSON?: unknown }).toJSON === "function"
    ? `${lost} (JSON does not call the toJSON of what a toJSON returns: return its JSON form, such as date.toJSON())`
    : lost;
}
