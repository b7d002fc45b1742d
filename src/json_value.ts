/**
 * Writing a value as JSON text ({@linkcode toJson}), and finding the values
 * JSON cannot carry, each named by a JSON pointer in a
 * {@linkcode ValidationIssue}, with the value descriptions its messages use.
 *
 * @module
 */

import { type Casing, convertKey, KeyClash, keyClashCheck } from "./casing.ts";
import type { ValidationIssue } from "./errors.ts";
import { reasonOf } from "./redact.ts";
import { isPlainObject, joinPointer, setOwn } from "./object.ts";

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
      pushMembers(stack, current, at, report);
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

/** Pushes the items or members of `current`, reading each getter once. */
function pushMembers(
  stack: Step[],
  current: object,
  at: string,
  report: (at: string, what: string) => void,
): void {
  if (Array.isArray(current)) {
    for (let i = current.length - 1; i >= 0; i--) {
      stack.push([current[i], joinPointer(at, i), undefined, false]);
    }
    return;
  }
  const record = current as Record<string, unknown>;
  const keys = Object.keys(record);
  for (let i = keys.length - 1; i >= 0; i--) {
    const k = keys[i]!;
    const [ok, member] = attempt(() => record[k]);
    if (ok) stack.push([member, joinPointer(at, k), k, false]);
    else report(joinPointer(at, k), `a getter that threw (${member})`);
  }
}

/** What JSON would make of an object that loses its data, if it would. */
function lossOf(value: object): string | undefined {
  if (isInvalidDate(value)) return "an invalid Date";
  if (!isCollection(value)) return undefined;
  return `a ${value instanceof Map ? "Map" : "Set"}, which JSON writes as {}`;
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
  try {
    text = JSON.stringify(
      value,
      function (this: Record<string, unknown>, key: string, item: unknown) {
        if (
          typeof item === "number" ? !Number.isFinite(item) : notJson(item) ||
            // An invalid Date's toJSON gives null. Its data property is
            // looked at, not read again: a getter runs once.
            (item === null &&
              isInvalidDate(Object.getOwnPropertyDescriptor(this, key)?.value))
        ) {
          lossy = true;
        } else if (casing !== "none" && isPlainObject(item)) {
          return renamed(item, casing);
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
  const issues = findNonJsonValues(
    value,
    "",
    casing === "none"
      ? { callToJSON: true }
      : { callToJSON: true, check: keyClashCheck(casing) },
  );
  if (issues.length > 0) return issues;
  const why = failure instanceof Error
    ? failure.message
    : "it has no JSON form";
  return [{ path: "", message: `Cannot serialise the body as JSON: ${why}` }];
}

function notJson(item: unknown): boolean {
  const type = typeof item;
  return type === "bigint" || type === "function" || type === "symbol" ||
    isCollection(item);
}

/**
 * A shallow copy with the keys in `casing`; `__proto__` stays a data key.
 * Two keys that become one stop the serialisation: the walk that follows
 * names them.
 */
function renamed(
  item: Record<string, unknown>,
  casing: Casing,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(item)) {
    const converted = convertKey(key, casing);
    if (Object.hasOwn(out, converted)) {
      throw new KeyClash("", converted, key, casing);
    }
    setOwn(out, converted, item[key]);
  }
  return out;
}
