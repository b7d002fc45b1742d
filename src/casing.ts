/**
 * Key casing conversion: keys only, never values.
 *
 * A key is split into words at `_`, `-` and before every upper-case letter,
 * then joined in the target casing. Splitting before every upper-case letter
 * (rather than keeping acronyms together) makes camelCase and snake_case round
 * trip exactly: `userID` → `user_i_d` → `userID`.
 *
 * Keys that are not plain words (`__proto__`, `$ref`, `@id`, `a__b`, `""`)
 * are never renamed, nor, to camelCase or PascalCase, keys with a word that
 * starts with a digit after a separator (`address_line_1`), which would not
 * come back the same.
 *
 * @module
 */

import { escapeToken, isPlainObject, setOwn } from "./object.ts";

/**
 * A key casing. `"none"` leaves every key as it is.
 *
 * @example Choosing a casing
 * ```ts
 * import type { Casing } from "@grab/grab";
 * const casing: Casing = "camelCase";
 * ```
 */
export type Casing =
  | "none"
  | "camelCase"
  | "snake_case"
  | "kebab-case"
  | "PascalCase";

const CONVERTIBLE = /^[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*$/;
// Joined without separators (camelCase, PascalCase), a word that starts
// with a digit loses its boundary: `address_line_1` would come back from
// `addressLine1` as `address_line1`, so it is left as it is.
const JOINABLE = /^[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z][A-Za-z0-9]*)*$/;
const WORD_BOUNDARY = /[-_]|(?=[A-Z])/;
const CACHE_LIMIT = 10_000;
/** Longer keys are converted each time: the cache holds only short ones. */
const CACHE_KEY_LIMIT = 64;
const caches = new Map<Casing, Map<string, string>>();
// The cache of the casing last asked for: one caller converts many keys to
// one casing, and this saves a lookup in `caches` for each.
let lastTo: Casing = "none";
let lastCache = new Map<string, string>();

/**
 * Converts one key to `to`.
 *
 * @example
 * ```ts ignore
 * convertKey("first_name", "camelCase"); // "firstName"
 * convertKey("firstName", "snake_case"); // "first_name"
 * convertKey("__proto__", "camelCase"); // "__proto__"
 * ```
 */
export function convertKey(key: string, to: Casing): string {
  if (to === "none") return key;
  let cache = to === lastTo ? lastCache : caches.get(to);
  if (cache === undefined) {
    cache = new Map();
    caches.set(to, cache);
  }
  lastTo = to;
  lastCache = cache;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const pattern = to === "camelCase" || to === "PascalCase"
    ? JOINABLE
    : CONVERTIBLE;
  const converted = pattern.test(key) ? joinWords(key, to) : key;
  // Bounded in bytes too: a server's keys may be of any length.
  if (key.length > CACHE_KEY_LIMIT) return converted;
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, converted);
  return converted;
}

function joinWords(key: string, to: Casing): string {
  const words = key.split(WORD_BOUNDARY);
  let out = "";
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!.toLowerCase();
    switch (to) {
      case "camelCase":
        out += i === 0 ? word : capitalise(word);
        break;
      case "PascalCase":
        out += capitalise(word);
        break;
      case "snake_case":
        out += i === 0 ? word : "_" + word;
        break;
      default:
        out += i === 0 ? word : "-" + word;
    }
  }
  return out;
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

type Container = Record<string, unknown> | unknown[];

/**
 * Two keys of one object that a casing makes one key, so that converting
 * them would keep one value and silently drop the other.
 */
export class KeyClash extends Error {
  override readonly name = "KeyClash";
  /** The JSON pointer of the object that holds both keys. */
  readonly at: string;
  /** The two keys, in the object's own order. */
  readonly keys: readonly [string, string];
  /** The casing that makes them one. */
  readonly to: Casing;
  /** The keys and where they are, for messages: `keys "a_b" and "aB" of /x`. */
  readonly what: string;
  /** What the casing makes of them: `both become "aB" in camelCase`. */
  readonly outcome: string;

  /** A clash of `first` and `second`, keys of the object at `at`. */
  constructor(at: string, first: string, second: string, to: Casing) {
    const of = at === "" ? "" : ` of ${clip(at)}`;
    const what = `keys "${clip(first)}" and "${clip(second)}"${of}`;
    const outcome = `both become "${clip(convertKey(second, to))}" in ${to}`;
    super(`${what} ${outcome}`);
    this.at = at;
    this.keys = [first, second];
    this.to = to;
    this.what = what;
    this.outcome = outcome;
  }

  /** The same clash, with `base` before its pointer. */
  under(base: string): KeyClash {
    return new KeyClash(base + this.at, ...this.keys, this.to);
  }
}

function clip(text: string): string {
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/**
 * Returns a deep copy of `value` with every object key converted to `to`.
 * Only arrays and plain objects are walked; other objects (`Date`, `Blob`, …)
 * are kept as they are. Iterative, so deep nesting cannot overflow the stack.
 * The input is never mutated.
 *
 * @throws {KeyClash} when two keys of one object become the same key.
 *
 * @example
 * ```ts ignore
 * convertKeys({ user_name: "ada", tags: [{ tag_id: 1 }] }, "camelCase");
 * // { userName: "ada", tags: [{ tagId: 1 }] }
 * ```
 */
export function convertKeys(value: unknown, to: Casing): unknown {
  if (to === "none" || !isContainer(value)) return value;
  const root = emptyLike(value);
  const stack: Frame[] = [{ source: value, target: root, up: null, key: "" }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const source = frame.source;
    if (Array.isArray(source)) {
      const out = frame.target as unknown[];
      for (let i = 0; i < source.length; i++) {
        out[i] = copySlot(source[i], stack, frame, i);
      }
    } else {
      const out = frame.target as Record<string, unknown>;
      for (const key of Object.keys(source)) {
        const converted = convertKey(key, to);
        if (Object.hasOwn(out, converted)) throw clashIn(frame, key, to);
        setOwn(out, converted, copySlot(source[key], stack, frame, key));
      }
    }
  }
  return root;
}

/** One container on the walk, with the way back up for a clash's pointer. */
interface Frame {
  source: Container;
  target: Container;
  up: Frame | null;
  key: string | number;
}

function isContainer(value: unknown): value is Container {
  // An object with a toJSON method is sent as what that returns, not as its
  // own keys, so its keys are not renamed either.
  return Array.isArray(value) ||
    (isPlainObject(value) && typeof value["toJSON"] !== "function");
}

function emptyLike(value: Container): Container {
  return Array.isArray(value) ? new Array(value.length) : {};
}

function copySlot(
  value: unknown,
  stack: Frame[],
  up: Frame,
  key: string | number,
): unknown {
  if (!isContainer(value)) return value;
  const target = emptyLike(value);
  stack.push({ source: value, target, up, key });
  return target;
}

// The clash of `second` with the key before it in the frame's object that
// `to` makes the same.
function clashIn(frame: Frame, second: string, to: Casing): KeyClash {
  const converted = convertKey(second, to);
  const first =
    Object.keys(frame.source).find((key) =>
      key !== second && convertKey(key, to) === converted
    ) ?? converted;
  let at = "";
  for (let f: Frame | null = frame; f.up !== null; f = f.up) {
    at = `/${escapeToken(String(f.key))}${at}`;
  }
  return new KeyClash(at, first, second, to);
}

/**
 * A check of object keys, met one at a time with their JSON pointers, for a
 * key that `to` makes the same as one met before in the same object. Returns
 * the message of a clash, for a write's issues.
 *
 * @example
 * ```ts ignore
 * const clash = keyClashCheck("snake_case");
 * clash("first_name", "/user/first_name"); // undefined
 * clash("firstName", "/user/firstName");
 * // 'Cannot send keys "first_name" and "firstName" of /user: both become "first_name" in snake_case'
 * ```
 */
export function keyClashCheck(
  to: Casing,
): (key: string, path: string) => string | undefined {
  const seen = new Map<string, Map<string, string>>();
  return (key, path) => {
    const converted = convertKey(key, to);
    const at = path.slice(0, path.lastIndexOf("/"));
    let keys = seen.get(at);
    if (keys === undefined) seen.set(at, keys = new Map());
    const first = keys.get(converted);
    if (first === undefined) {
      keys.set(converted, key);
      return undefined;
    }
    const clash = new KeyClash(at, first, key, to);
    return `Cannot send ${clash.what}: ${clash.outcome}`;
  };
}
