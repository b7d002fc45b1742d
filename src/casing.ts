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

import { isPlainObject, setOwn } from "./object.ts";

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
 * Returns a deep copy of `value` with every object key converted to `to`.
 * Only arrays and plain objects are walked; other objects (`Date`, `Blob`, …)
 * are kept as they are. Iterative, so deep nesting cannot overflow the stack.
 * The input is never mutated.
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
  const stack: [Container, Container][] = [[value, root]];
  while (stack.length > 0) {
    const [source, target] = stack.pop()!;
    if (Array.isArray(source)) {
      const out = target as unknown[];
      for (let i = 0; i < source.length; i++) {
        out[i] = copySlot(source[i], stack);
      }
    } else {
      const out = target as Record<string, unknown>;
      for (const key of Object.keys(source)) {
        setOwn(out, convertKey(key, to), copySlot(source[key], stack));
      }
    }
  }
  return root;
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

function copySlot(value: unknown, stack: [Container, Container][]): unknown {
  if (!isContainer(value)) return value;
  const copy = emptyLike(value);
  stack.push([value, copy]);
  return copy;
}
