/**
 * Options read once into a copy, so that what is checked is what is used:
 * the top-level options and the members of `retry`, `jsonApi` and `hooks`.
 *
 * @module
 */

import { isRecord } from "./check_options.ts";
import type { ValidationIssue } from "./errors.ts";
import { ALL_OPTIONS, MEMBERS } from "./option_names.ts";
import { MAX_LIST_ITEMS, member, tooLong } from "./object.ts";

/**
 * The prototype of every copy of options: each option's name is its own
 * key, `undefined` and not enumerable, so a key that a dependency put on
 * `Object.prototype` (`headers`, `query`, `hooks`) is never read as an
 * option. Not an object without a prototype: the engine reads such an
 * object's keys from a table, slower on every grab. Not frozen: a copy
 * could not be given a key its prototype has read-only; no other module
 * sees it.
 */
const NAMED: object = Object.preventExtensions(
  Object.defineProperties(
    {},
    Object.fromEntries(
      ALL_OPTIONS.map((name) => [name, { value: undefined, writable: true }]),
    ),
  ),
);

/** Options with nothing in them, shared. */
export const NO_OPTIONS: Readonly<Record<string, undefined>> = Object.freeze(
  Object.create(NAMED),
);

/**
 * True for options with no enumerable key, which need no copy; options
 * with a prototype of their own may still inherit some. Options that
 * `for…in` cannot walk (a Proxy whose `getPrototypeOf` throws, or one in
 * the chain) are left to the copy, which reads only their own keys and
 * decides as it did before this shortcut: a revoked Proxy is still refused
 * there.
 */
export function isEmpty(options: object): boolean {
  try {
    for (const _ in options) return false;
  } catch {
    return false;
  }
  return isPlain(options);
}

/**
 * True for a plain object (or one with no prototype), whose options are its
 * own keys; also for a Proxy whose prototype cannot be read, whose own keys
 * are used.
 */
function isPlain(value: object): boolean {
  try {
    const prototype = Object.getPrototypeOf(value);
    return prototype === Object.prototype || prototype === null;
  } catch {
    return true;
  }
}

/**
 * The issue of options that are not an object of options: a number, a
 * string, a function, or an object that keeps nothing in its keys (an
 * array, a Promise not awaited, a `Map`, a `Request`), all of which would
 * be read as no options, or a string as one option per character. Never
 * throws: options that cannot be read are left to the copy, which refuses
 * them.
 */
export function notOptions(
  given: unknown,
  factory = false,
): ValidationIssue | undefined {
  let what: string;
  if (typeof given !== "object" || given === null) {
    what = typeof given === "function" ? "a function" : `a ${typeof given}`;
  } else {
    const kind = isPlain(given) ? "Object" : kindOf(given);
    if (kind === "Object" || kind === "Module") return undefined;
    what = kind === "Array" ? "an array" : `an object of type ${kind}`;
  }
  const hint = what === "an array" && !factory
    ? "; a body goes in { body }"
    : what.endsWith("Promise")
    ? "; await it first"
    : "";
  return {
    path: "",
    message: `Cannot use the options: they must be an object such as ` +
      `${factory ? "{ timeout: 10_000 }" : "{ query: { page: 2 } }"}, ` +
      `not ${what}${hint}`,
  };
}

/** The kind `Object.prototype.toString` names, `Object` when it throws. */
function kindOf(value: object): string {
  try {
    return Object.prototype.toString.call(value).slice(8, -1);
  } catch {
    return "Object";
  }
}

/**
 * The options of `given`, read once into a plain object: its own keys and,
 * when it has a prototype of its own (`Object.create(defaults)`, a class
 * whose getters give the options), the keys it inherits, each option (and
 * `extra`, such as `paginate`'s `limit`) read where it is found, so that
 * none is lost without a word and a misspelt one is still refused.
 */
export function ownCopy(
  given: object,
  extra?: string,
): Record<string, unknown> {
  const options: Record<string, unknown> = Object.assign(
    Object.create(NAMED),
    given,
  );
  if (isPlain(given)) return options;
  for (const key in given) {
    if (!Object.hasOwn(options, key)) take(options, given, key);
  }
  for (
    const name of extra === undefined ? ALL_OPTIONS : [...ALL_OPTIONS, extra]
  ) {
    if (!Object.hasOwn(options, name) && name in given) {
      take(options, given, name);
    }
  }
  return options;
}

/** Copies `key` of `from` into `to`, when it is not pollution. */
function take(to: Record<string, unknown>, from: object, key: string): void {
  const value = member(from, key);
  if (value !== undefined) to[key] = value;
}

/**
 * A copy of the options, read once: `retry`, `jsonApi` and `hooks` and their
 * lists too, so that what is checked is what is used, even when a getter
 * answers differently the second time or the object is changed after
 * `createGrab`.
 */
export function readOnce<T extends object>(given: T): T {
  const options = ownCopy(given);
  for (const [option, keys] of MEMBERS) {
    const value = options[option];
    // An array, a Set, a Promise not awaited: left for the checks to refuse.
    if (!isRecord(value)) continue;
    options[option] = readMembers(value, keys, option);
  }
  return options as T;
}

/**
 * The members `keys` of an option object, each read once into a copy. A
 * member that is `null` means none, as an option does, and is left out; a
 * list is copied (one too long for a list option throws, named as a member
 * of `option`); a function is bound to `value`, so a hook keeps its
 * object as `this` (a class instance's fields), also when it runs in a chain
 * with other hooks. A plain object's other keys are copied as they are, for
 * the checks to refuse (a misspelt hook would never run); a class
 * instance's are its own state.
 */
export function readMembers(
  value: Record<string, unknown>,
  keys: readonly string[],
  option?: string,
): Record<string, unknown> {
  const copy: Record<string, unknown> = Object.create(null);
  for (const key of keys) {
    const item = member(value, key);
    if (item === undefined || item === null) continue;
    copy[key] = typeof item === "function"
      ? item.bind(value)
      : Array.isArray(item)
      ? listCopy(item, option === undefined ? key : `${option}.${key}`)
      : item;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return copy;
  for (const key of Object.keys(value)) {
    if (!keys.includes(key)) copy[key] = value[key];
  }
  return copy;
}

/**
 * A copy of the list `name`: one longer than a list option may be (a sparse
 * array of a huge length) throws rather than being copied.
 */
function listCopy(list: unknown[], name: string): unknown[] {
  if (list.length > MAX_LIST_ITEMS) {
    throw new RangeError(`"${name}" ${tooLong(list.length)}`);
  }
  return [...list];
}
