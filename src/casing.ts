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

/**
 * The conversions to one casing: the cache, and what tells whether two keys
 * became one key without a look at each object (see {@linkcode clashMark}).
 */
interface Conversions {
  cache: Map<string, string>;
  /** Each converted key and the first key cached that became it. */
  firstOf: Map<string, string>;
  /** The converted keys that a second key became too. */
  suspects: Set<string>;
  /**
   * Moves on with each suspect met, each clear of the cache and each key
   * too long to cache: whatever might hide a clash from the caller.
   */
  version: number;
}

const conversions = new Map<Casing, Conversions>();
// The conversions of the casing last asked for: one caller converts many
// keys to one casing, and this saves a lookup in `conversions` for each.
let lastTo: Casing = "none";
let last: Conversions = newConversions();

function newConversions(): Conversions {
  return {
    cache: new Map(),
    firstOf: new Map(),
    suspects: new Set(),
    version: 0,
  };
}

function conversionsTo(to: Casing): Conversions {
  if (to === lastTo) return last;
  let state = conversions.get(to);
  if (state === undefined) conversions.set(to, state = newConversions());
  lastTo = to;
  last = state;
  return state;
}

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
  const state = to === lastTo ? last : conversionsTo(to);
  const hit = state.cache.get(key);
  if (hit !== undefined) {
    if (state.suspects.size !== 0 && state.suspects.has(hit)) state.version++;
    return hit;
  }
  const pattern = to === "camelCase" || to === "PascalCase"
    ? JOINABLE
    : CONVERTIBLE;
  const converted = pattern.test(key) ? joinWords(key, to) : key;
  // Bounded in bytes too: a server's keys may be of any length. A key not
  // cached is not noted either, so it moves the version.
  if (key.length > CACHE_KEY_LIMIT) {
    state.version++;
    return converted;
  }
  if (state.cache.size >= CACHE_LIMIT) {
    state.cache.clear();
    state.firstOf.clear();
    state.suspects.clear();
    state.version++;
  }
  state.cache.set(key, converted);
  // Each key is noted once, as it is cached.
  if (!state.firstOf.has(converted)) state.firstOf.set(converted, key);
  else {
    state.suspects.add(converted);
    state.version++;
  }
  return converted;
}

/**
 * A mark of the conversions to `to` so far, for {@linkcode mayHaveClashed}.
 *
 * Every key cached is noted with what it became. A key that a second key
 * becomes too is a suspect, and meeting one moves the version. Two keys of
 * one object that become one were both converted, so the second of them
 * made their key a suspect or met it as one (unless the cache was cleared
 * or a key was too long to cache, which moves the version too). A caller
 * that converted a whole value after taking a mark therefore needs to look
 * for a clash only when the version moved: a value with no suspect in it
 * costs no look at all.
 */
export function clashMark(to: Casing): number {
  return conversionsTo(to).version;
}

/** True when keys converted to `to` since `mark` may hold two that became one. */
export function mayHaveClashed(to: Casing, mark: number): boolean {
  return conversionsTo(to).version !== mark;
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
