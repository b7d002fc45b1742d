/**
 * Small helpers for plain objects, resource identity keys and JSON pointers.
 *
 * @module
 */

/**
 * True for objects whose prototype is `Object.prototype` or `null`: object
 * literals, `JSON.parse` objects and `Object.create(null)`. False for arrays,
 * class instances (`Date`, `Map`, …), functions and primitives.
 */
export function isPlainObject(
  value: unknown,
): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * `fields` in an object with no prototype, for a `RequestInit`: `fetch` and
 * `Request` read each member of an init through its prototype, so a key a
 * dependency put on `Object.prototype` (`headers`, `method`, `body`) would
 * be sent, and one it gave only a getter (`signal`) could not be set.
 */
export function bare<T extends object>(fields: T): T {
  return Object.assign(Object.create(null), fields);
}

/**
 * True when `key` is `value`'s own member. `key in value` is also true for a
 * key a dependency put on `Object.prototype` (prototype pollution), which
 * would pass any object for another; TypeScript does not narrow on
 * `Object.hasOwn`, hence this guard.
 */
export function owns<T extends object, K extends PropertyKey>(
  value: T,
  key: K,
): value is Extract<T, { [P in K]: unknown }> {
  return Object.hasOwn(value, key);
}

/** `object[key]` when it is the object's own, else `undefined`. */
export function ownValue(object: object, key: PropertyKey): unknown {
  return Object.hasOwn(object, key)
    ? (object as Record<PropertyKey, unknown>)[key]
    : undefined;
}

/**
 * True when only `Object.prototype` gives `object` its `key`: reading it
 * would give what a dependency put there. A member of a prototype of its
 * own (`Object.create(defaults)`, a class's getters) is still read.
 */
export function onlyInherited(object: object, key: PropertyKey): boolean {
  // Unpolluted, `Object.prototype` has none of the keys asked for.
  if (!(key in Object.prototype)) return false;
  for (
    let holder: object | null = object;
    holder !== null && holder !== Object.prototype;
    holder = Object.getPrototypeOf(holder)
  ) {
    if (Object.hasOwn(holder, key)) return false;
  }
  return true;
}

/** `value[key]`, unless only `Object.prototype` gives it (see above). */
export function member(value: object, key: string): unknown {
  return onlyInherited(value, key)
    ? undefined
    : (value as Record<string, unknown>)[key];
}

/**
 * `options` for `Error` when they give a cause: `Error` reads `cause` through
 * the prototype, so a key a dependency put on `Object.prototype` would be
 * every error's cause.
 */
export function errorOptions(
  options: { cause?: unknown },
): ErrorOptions | undefined {
  return options.cause === undefined || onlyInherited(options, "cause")
    ? undefined
    : options;
}

const EMPTY = {};

/**
 * True when something made a key of `Object.prototype` enumerable, so that
 * `for...in` over a plain object also lists inherited keys. `for...in`
 * allocates nothing, unlike `Object.keys`; it needs an own-key check only
 * when this is true.
 */
export function hasEnumerableInheritedKeys(): boolean {
  for (const _ in EMPTY) return true;
  return false;
}

/**
 * Sets `target[key] = value` as an own data property, even for `"__proto__"`,
 * which a plain assignment would turn into a prototype change.
 */
export function setOwn(
  target: Record<PropertyKey, unknown>,
  key: PropertyKey,
  value: unknown,
): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}

/**
 * True for `type`, `id` and `lid`: the members that identify a JSON:API
 * resource, which no attribute or relationship may be named.
 */
export function isIdentityKey(key: string): boolean {
  return key === "type" || key === "id" || key === "lid";
}

/** One RFC 6901 reference token: `~` becomes `~0`, then `/` becomes `~1`. */
export function escapeToken(token: string): string {
  return token.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** The reverse of {@linkcode escapeToken}: `~1` becomes `/`, then `~0` becomes `~`. */
export function unescapeToken(token: string): string {
  return token.replaceAll("~1", "/").replaceAll("~0", "~");
}

/** `base` plus one RFC 6901 reference token: `~` becomes `~0`, `/` becomes `~1`. */
export function joinPointer(base: string, key: string | number): string {
  return `${base}/${escapeToken(String(key))}`;
}

/**
 * The names `keys` are shown by: each its redacted text (`shown`), a text
 * that another key already has numbered (`… (2)`). The next number of each
 * text is kept, so that a server's thousand keys that one text stands for
 * cost a thousand steps, not a million.
 */
export function numbered(
  keys: PropertyKey[],
  shown: PropertyKey[],
): PropertyKey[] {
  const taken = new Set(keys.filter((key, at) => key === shown[at]));
  const numbers = new Map<PropertyKey, number>();
  return keys.map((key, at) => {
    const text = shown[at]!;
    if (text === key) return key;
    let name = text;
    let n = numbers.get(text) ?? 2;
    while (taken.has(name)) name = `${String(text)} (${n++})`;
    numbers.set(text, n);
    taken.add(name);
    return name;
  });
}

/** The keys the language itself puts on `Object.prototype`. */
const STANDARD = new Set([
  "constructor",
  "__defineGetter__",
  "__defineSetter__",
  "hasOwnProperty",
  "__lookupGetter__",
  "__lookupSetter__",
  "isPrototypeOf",
  "propertyIsEnumerable",
  "toString",
  "valueOf",
  "__proto__",
  "toLocaleString",
]);

/** True when `Object.prototype` has a key the language did not put there. */
function polluted(): boolean {
  for (const name of Object.getOwnPropertyNames(Object.prototype)) {
    if (!STANDARD.has(name)) return true;
  }
  return false;
}

/**
 * `document` as it is, or, when `Object.prototype` is polluted, a copy whose
 * objects have no prototype, so that a member they lack reads `undefined`.
 * The copy is made without recursion: a document may nest deeper than the
 * stack goes.
 */
export function ownMembersOnly(document: unknown): unknown {
  if (typeof document !== "object" || document === null || !polluted()) {
    return document;
  }
  const copyOf = (value: object): Record<string, unknown> =>
    Array.isArray(value) ? [] as unknown as Record<string, unknown> : Object
      .create(null);
  const root = copyOf(document);
  const work: [from: object, into: Record<string, unknown>][] = [
    [document, root],
  ];
  for (let next = work.pop(); next !== undefined; next = work.pop()) {
    const [from, into] = next;
    for (const key of Object.keys(from)) {
      const value = (from as Record<string, unknown>)[key];
      if (typeof value === "object" && value !== null) {
        const copy = copyOf(value);
        work.push([value, copy]);
        into[key] = copy;
      } else {
        into[key] = value;
      }
    }
  }
  return root;
}

/**
 * The most items a list option may hold (header pairs, `trustedOrigins`,
 * `retry.methods`, …): a longer one, a sparse array of a huge length or an
 * iterable without end, is refused rather than read through.
 */
export const MAX_LIST_ITEMS = 10_000;

/** Why a list of `length` items is refused as an option. */
export function tooLong(length: number): string {
  return `has ${length.toLocaleString("en")} items, more than the ${
    MAX_LIST_ITEMS.toLocaleString("en")
  } a list option may hold`;
}
