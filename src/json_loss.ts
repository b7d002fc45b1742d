/**
 * What JSON loses of an object: one it writes as `{}` though it holds data,
 * an invalid `Date` it writes as `null`, a `Map` or a `Set`.
 *
 * @module
 */

/**
 * What an object is that JSON writes as `{}` though it holds data where
 * JSON does not look, or `undefined`: a `Map` or a `Set`, and any object of
 * a class with no `toJSON` and no own keys, whose data is in its slots or
 * behind getters (a `Promise` not awaited, a `Blob`, an `ArrayBuffer`, a
 * `RegExp`, an `Error`); an `Error` also when keys were added to it, which
 * JSON writes without its message. Plain objects and arrays are written as
 * they are.
 * With `byKeys` (what a `toJSON` returned, which JSON writes by its own
 * keys without calling its `toJSON`), a `toJSON` says nothing: a `Date` or
 * a `URL` is then written as `{}`.
 *
 * @example
 * ```ts ignore
 * emptyFormOf(Promise.resolve(1)); // "a Promise, which JSON writes as {}"
 * emptyFormOf({}); // undefined
 * ```
 */
export function emptyFormOf(
  value: unknown,
  byKeys = false,
): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const proto = Object.getPrototypeOf(value);
  // Object.prototype, of this realm or another, or none.
  if (proto === Object.prototype || proto === null) return undefined;
  if (Object.getPrototypeOf(proto) === null || Array.isArray(value)) {
    return undefined;
  }
  if (!isCollection(value, byKeys)) {
    if (
      !byKeys && typeof (value as { toJSON?: unknown }).toJSON === "function"
    ) {
      return undefined;
    }
    if (Object.keys(value).length > 0) {
      // Its message and stack are its own, but hidden: JSON writes only
      // the keys added to it (a `code`, a `status`).
      return value instanceof Error
        ? "an Error, which JSON writes without its message, only with the keys added to it: send a plain object of what it holds"
        : undefined;
    }
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
 * True for a `Map` or a `Set` with no `toJSON` (or written `byKeys`, its
 * `toJSON` not called): JSON writes either as `{}`, its items lost.
 */
export function isCollection(
  value: unknown,
  byKeys = false,
): value is Map<unknown, unknown> | Set<unknown> {
  return (value instanceof Map || value instanceof Set) &&
    (byKeys || typeof (value as { toJSON?: unknown }).toJSON !== "function");
}

/**
 * The number JSON writes for a `Number` object: its primitive, read once
 * as JSON reads it (`valueOf`), which may be `NaN`; `undefined` for any
 * other object. Throws what that `valueOf` throws.
 */
export function unboxedNumber(value: object): number | undefined {
  if (!(value instanceof Number)) return undefined;
  try {
    // Only a real Number object is written as its value.
    Number.prototype.valueOf.call(value);
  } catch {
    return undefined;
  }
  return +value;
}
