/**
 * Finding the values JSON cannot carry, each named by a JSON pointer in a
 * {@linkcode ValidationIssue}, and the value descriptions its messages use.
 *
 * @module
 */

import type { Casing } from "./casing.ts";
import { clashIn } from "./convert_keys.ts";
import type { ValidationIssue } from "./errors.ts";
import { reasonOf } from "./redact.ts";
import { isPlainObject, joinPointer } from "./object.ts";

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
 * and not walked, unless `options.callToJSON` asks to check what it returns. Iterative, so a deep value cannot overflow the stack.
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
  const issues: ValidationIssue[] = [];
  const ancestors = new Set<unknown>(options.within);
  const casing = options.casing ?? "none";
  // The member key is undefined for the root and array items.
  const stack: Step[] = [
    [value, path, undefined, false],
  ];
  const report = (at: string, what: string) =>
    issues.push({
      path: at,
      message: `Cannot serialise ${
        at === "" ? "the body" : `"${at}"`
      } as JSON: value is ${what}`,
    });
  while (stack.length > 0) {
    const [current, at, key, leaving] = stack.pop()!;
    if (leaving) {
      ancestors.delete(current);
      continue;
    }
    if (key !== undefined && options.check !== undefined) {
      const message = options.check(key, at);
      if (message !== undefined) issues.push({ path: at, message });
    }
    if (typeof current === "object" && current !== null) {
      const lost = lossOf(current);
      if (lost !== undefined) {
        report(at, lost);
        continue;
      }
      if (typeof (current as { toJSON?: unknown }).toJSON === "function") {
        if (options.callToJSON !== true) continue;
        // What JSON.stringify would write is what toJSON returns.
        const [ok, json] = attempt(() =>
          (current as { toJSON(key: string): unknown }).toJSON(key ?? "")
        );
        if (!ok) report(at, `an object whose toJSON threw (${json})`);
        else if (json !== current) stack.push([json, at, undefined, false]);
        continue;
      }
      if (ancestors.has(current)) {
        report(at, "a circular reference");
        continue;
      }
      ancestors.add(current);
      stack.push([current, at, undefined, true]);
      const keys = pushMembers(stack, current, at, report, casing !== "none");
      const clash = keys && clashIn(at, keys, casing);
      if (clash) issues.push(clash.issue(joinPointer(at, clash.keys[1])));
    } else if (
      typeof current === "number" ? !Number.isFinite(current) : (
        typeof current === "bigint" || typeof current === "function" ||
        typeof current === "symbol"
      )
    ) {
      report(at, describeValue(current));
    }
  }
  return issues;
}

/** One value on the walk: [value, path, member key, leaving]. */
type Step = [unknown, string, string | undefined, boolean];

/**
 * Pushes the items or members of `current`, reading each getter once. With
 * `keyed`, returns the keys of a plain object whose values are not
 * `undefined`, in order: the keys JSON writes, and a casing renames.
 */
function pushMembers(
  stack: Step[],
  current: object,
  at: string,
  report: (at: string, what: string) => void,
  keyed: boolean,
): string[] | undefined {
  if (Array.isArray(current)) {
    for (let i = current.length - 1; i >= 0; i--) {
      stack.push([current[i], joinPointer(at, i), undefined, false]);
    }
    return undefined;
  }
  const record = current as Record<string, unknown>;
  const keys = Object.keys(record);
  const written = keyed && isPlainObject(record) ? [] as string[] : undefined;
  for (let i = keys.length - 1; i >= 0; i--) {
    const k = keys[i]!;
    const [ok, member] = attempt(() => record[k]);
    if (ok) stack.push([member, joinPointer(at, k), k, false]);
    else report(joinPointer(at, k), `a getter that threw (${member})`);
    if (ok && member !== undefined) written?.push(k);
  }
  return written?.reverse();
}

/** What JSON would make of an object that loses its data, if it would. */
function lossOf(value: object): string | undefined {
  if (isInvalidDate(value)) return "an invalid Date";
  return emptyFormOf(value);
}

/**
 * What an object is that JSON writes as `{}` though it holds data where
 * JSON does not look, or `undefined`: a `Map` or a `Set`, and any object of
 * a class with no `toJSON` and no own keys, whose data is in its slots or
 * behind getters (a `Promise` not awaited, a `Blob`, an `ArrayBuffer`, a
 * `RegExp`, an `Error`). Plain objects and arrays are written as they are.
 *
 * @example
 * ```ts ignore
 * emptyFormOf(Promise.resolve(1)); // "a Promise, which JSON writes as {}"
 * emptyFormOf({}); // undefined
 * ```
 */
export function emptyFormOf(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const proto = Object.getPrototypeOf(value);
  // Object.prototype, of this realm or another, or none.
  if (proto === Object.prototype || proto === null) return undefined;
  if (Object.getPrototypeOf(proto) === null || Array.isArray(value)) {
    return undefined;
  }
  if (!isCollection(value)) {
    if (typeof (value as { toJSON?: unknown }).toJSON === "function") {
      return undefined;
    }
    if (Object.keys(value).length > 0) return undefined;
  }
  const tag = Object.prototype.toString.call(value).slice(8, -1);
  // A boxed primitive is written as its value, a typed array by its items.
  if (BOXED.has(tag) || (ArrayBuffer.isView(value) && tag !== "DataView")) {
    return undefined;
  }
  if (tag === "BigInt") return "a BigInt";
  if (tag !== "Object") {
    return `${
      /^[AEIO]/.test(tag) ? "an" : "a"
    } ${tag}, which JSON writes as {}`;
  }
  // An object of a class that is empty (a data object with every field
  // unset) is `{}`; one whose data JSON does not see is not.
  return hidesData(value)
    ? "an object of a class whose data JSON does not see (getters, hidden or symbol keys), which JSON writes as {}"
    : undefined;
}

const BOXED: ReadonlySet<string> = new Set(["Number", "String", "Boolean"]);

/** The classes {@linkcode hidesData} looks through for getters. */
const MAX_CLASSES = 64;

/**
 * True when an object with no enumerable own keys holds data elsewhere:
 * its own keys that are hidden or symbols, or getters of its classes.
 * Private fields cannot be seen from outside; such an object goes as `{}`.
 * A chain of classes longer than {@linkcode MAX_CLASSES} (a Proxy can make
 * one without end) is taken as hiding data.
 */
function hidesData(value: object): boolean {
  if (Reflect.ownKeys(value).length > 0) return true;
  let classes = 0;
  for (
    let proto = Object.getPrototypeOf(value);
    proto !== null && Object.getPrototypeOf(proto) !== null;
    proto = Object.getPrototypeOf(proto)
  ) {
    if (++classes > MAX_CLASSES) return true;
    const members = Object.getOwnPropertyDescriptors(proto);
    for (const key of Reflect.ownKeys(members)) {
      if (members[key as string]!.get !== undefined) return true;
    }
  }
  return false;
}

/**
 * True for a `Date` whose time is not a number and that JSON writes with
 * the built-in `toJSON`: as `null`. A subclass with a `toJSON` of its own
 * says what it is.
 */
export function isInvalidDate(value: unknown): boolean {
  return value instanceof Date && Number.isNaN(value.getTime()) &&
    value.toJSON === Date.prototype.toJSON;
}

/**
 * True for a `Map` or a `Set` with no `toJSON`: JSON writes either as `{}`,
 * its items lost.
 */
export function isCollection(
  value: unknown,
): value is Map<unknown, unknown> | Set<unknown> {
  return (value instanceof Map || value instanceof Set) &&
    typeof (value as { toJSON?: unknown }).toJSON !== "function";
}

/** Runs `read`: `[true, value]`, or `[false, message]` when it throws. */
function attempt(read: () => unknown): [true, unknown] | [false, string] {
  try {
    return [true, read()];
  } catch (error) {
    return [false, reasonOf(error)];
  }
}
