/**
 * Keeping secrets out of errors: URLs reduced to origin and path, and every
 * URL inside a platform error's message and stack stripped of its query and
 * userinfo.
 *
 * @module
 */

import { isPlainObject, numbered, setOwn } from "./object.ts";
import { redactUrls, safeUrl } from "./redact_urls.ts";

export { redactUrls, safeUrl };

/**
 * The platform's error may quote a URL with its query string: the request's,
 * one a hook added, a redirect target's (Deno's "error sending request for
 * url (…?token=…)"), and a wrapper's error (or whatever a custom `fetch`
 * rejects with) may carry one in a property. Returns `cause` with every
 * URL's query and userinfo removed: from an error's message, stack, causes
 * and properties, and from the strings of plain objects and arrays, copied
 * where something changed; a `URL` becomes its text, redacted. Any other
 * object (a `Request`, `Headers`, a class instance) may hold a secret it
 * does not list, and is left out, as is a value that throws when read.
 * Returns `cause` itself when there is nothing to remove.
 */
export function redactCause(cause: unknown): unknown {
  try {
    return new Redaction("cause").value(cause, 0);
  } catch {
    // A revoked Proxy, or worse.
    return undefined;
  }
}

/**
 * What a logged error shows of a value: as {@linkcode redactCause}, and
 * without functions and symbols, which are not data: JSON leaves them out,
 * and structured cloning (posting `error.toJSON()` to a Worker) refuses
 * them. For JSON (`json`), an error becomes a plain object of its name,
 * message, fields and cause, as JSON shows none of an error's own (`{}`),
 * and structured cloning keeps only its message; a BigInt, which JSON
 * refuses to write, becomes the string of its digits.
 */
export function loggedValue(value: unknown, json = false): unknown {
  try {
    return new Redaction(json ? "json" : "logged").value(value, 0);
  } catch {
    return undefined;
  }
}

/** How many objects one redaction looks at, at most. */
export const MAX_OBJECTS = 1_000;

/** How deep one redaction goes, at most. */
const MAX_DEPTH = 8;

/**
 * How many characters a logged value shows, at most: its strings, keys and
 * numbers, and one for each item or member. A logged error goes into a log
 * line, and an error body may be as large as `maxBodyBytes` (64 MiB by
 * default); the error's own properties keep it whole.
 */
export const MAX_LOGGED = 100_000;

/**
 * One redaction: each object is looked at once, so a graph whose objects
 * are shared or refer back to each other costs its size, not its paths.
 */
class Redaction {
  #seen = new Map<object, unknown>();
  /** What each object cost of a logged value's characters. */
  #costs = new Map<object, number>();
  #left = MAX_OBJECTS;
  #chars = MAX_LOGGED;
  #dataOnly: boolean;
  #json: boolean;

  /**
   * @param mode `"cause"` keeps functions and symbols; `"logged"` leaves
   * them out; `"json"` also makes errors plain objects and BigInts text.
   */
  constructor(mode: "cause" | "logged" | "json") {
    this.#dataOnly = mode !== "cause";
    this.#json = mode === "json";
  }

  value(value: unknown, depth: number): unknown {
    if (value === UNREADABLE) return undefined;
    if (typeof value === "string") return this.#text(redactUrls(value));
    if (
      this.#dataOnly &&
      (typeof value === "function" || typeof value === "symbol")
    ) {
      return undefined;
    }
    // JSON throws on a BigInt (zod's `maximum: 10n`, valibot's `input`): its
    // digits are what a log shows, cut as text (a server's million digits).
    if (this.#dataOnly && typeof value === "bigint") {
      const digits = String(value);
      const shown = this.#text(digits);
      return this.#json || shown !== digits ? shown : value;
    }
    if (typeof value !== "object" || value === null) {
      if (this.#dataOnly) this.#chars -= String(value).length;
      return value;
    }
    if (this.#seen.has(value)) return this.#again(value);
    // A chain too deep or too wide is cut here rather than kept whole;
    // so is a reference back to an object still being looked at.
    if (depth > MAX_DEPTH || this.#left-- <= 0) return undefined;
    this.#seen.set(value, undefined);
    const chars = this.#chars;
    const redacted = this.#object(value, depth);
    this.#seen.set(value, redacted);
    if (this.#dataOnly) this.#costs.set(value, chars - this.#chars);
    return redacted;
  }

  /**
   * An object met before, as redacted then. A log shows it each time (each
   * of valibot's issues holds the failed object), so each time it counts.
   */
  #again(value: object): unknown {
    const cost = this.#costs.get(value) ?? 0;
    if (!this.#dataOnly || cost <= this.#chars) {
      this.#chars -= cost;
      return this.#seen.get(value);
    }
    this.#chars = 0;
    return "… (left out)";
  }

  #object(value: object, depth: number): unknown {
    if (isError(value)) return this.#error(value, depth);
    if (value instanceof URL) return redactUrls(value.href);
    if (Array.isArray(value)) {
      const items: unknown[] = [];
      while (items.length < value.length && this.#more(1)) {
        const item = value[items.length];
        if (this.#cut(item, depth + 1)) break;
        items.push(this.value(item, depth + 1));
      }
      const left = value.length - items.length;
      if (left > 0) items.push(`… (${left} more items left out)`);
      return items.every((item, at) => item === value[at]) ? value : items;
    }
    if (!isPlainObject(value)) return undefined;
    // Symbol keys too: an inspected object shows them.
    const keys = Reflect.ownKeys(value).filter((key) =>
      Object.prototype.propertyIsEnumerable.call(value, key)
    );
    const [members, changed] = this.#members(value, keys, depth);
    if (!changed) return value;
    const copy: Record<PropertyKey, unknown> = {};
    for (const [key, item] of members) setOwn(copy, key, item);
    return copy;
  }

  /**
   * The members of `source` under `keys` that are left, keys and values
   * redacted (a key may be a URL: results keyed by the URL asked for), and
   * whether anything changed. Two keys that one text stands for after
   * redaction are both kept, the later one numbered.
   */
  #members(
    source: object,
    keys: PropertyKey[],
    depth: number,
  ): [[PropertyKey, unknown][], boolean] {
    const shown = keys.map((key) =>
      typeof key === "string" ? redactUrls(key) : key
    );
    const names = shown.every((text, at) => text === keys[at])
      ? keys
      : numbered(keys, shown);
    let changed = names !== keys;
    const members: [PropertyKey, unknown][] = [];
    let at = 0;
    for (; at < keys.length; at++) {
      const name = names[at]!;
      if (!this.#more(1)) break;
      const shownName = typeof name === "string" ? this.#text(name) : name;
      const original = read(source, keys[at]!);
      if (this.#cut(original, depth + 1)) break;
      const value = this.value(original, depth + 1);
      changed ||= value !== original || shownName !== name;
      if (value !== undefined) members.push([shownName, value]);
    }
    if (at < keys.length) {
      members.push(["…", `(${keys.length - at} more members left out)`]);
      changed = true;
    }
    return [members, changed];
  }

  /** Whether `item` is an object past the depth or the count shown. */
  #cut(item: unknown, depth: number): boolean {
    return typeof item === "object" && item !== null &&
      !this.#seen.has(item) && (depth > MAX_DEPTH || this.#left <= 0);
  }

  /**
   * Whether what costs `chars` may still be shown, counting it. Only a
   * logged value is bounded: a cause is kept as it came.
   */
  #more(chars: number): boolean {
    if (!this.#dataOnly) return true;
    if (this.#chars <= 0) return false;
    this.#chars -= chars;
    return true;
  }

  /** `text`, counted, and cut where a logged value's characters run out. */
  #text(text: string): string {
    if (!this.#dataOnly) return text;
    let end = Math.max(this.#chars, 0);
    this.#chars -= text.length;
    if (text.length <= end) return text;
    // Never half a surrogate pair.
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end--;
    return `${text.slice(0, end)}… (cut at ${end} characters)`;
  }

  #error(cause: Error, depth: number): object {
    // Counted first, as shown first: it may be a server's code, any length.
    const rawName = read(cause, "name");
    const name = typeof rawName === "string" ? this.#text(rawName) : "Error";
    const rawCause = read(cause, "cause");
    const inner = this.value(rawCause, depth + 1);
    const rawMessage = read(cause, "message");
    const message = rawMessage === UNREADABLE
      ? ""
      : this.#text(redactUrls(String(rawMessage ?? "")));
    const rawStack = read(cause, "stack");
    const stack = rawStack === undefined || rawStack === UNREADABLE
      ? undefined
      : this.#text(redactUrls(String(rawStack)));
    // Own properties but the standard ones, enumerable or not (an
    // AggregateError's `errors` is not), symbol-keyed ones included.
    const keys = Reflect.ownKeys(cause).filter((key) =>
      typeof key === "symbol" || !STANDARD.has(key)
    );
    const [members, changed] = this.#members(cause, keys, depth);
    if (this.#json) return errorData(name, message, members, inner);
    if (
      inner === rawCause && message === rawMessage && stack === rawStack &&
      (name === rawName || typeof rawName !== "string") && !changed
    ) {
      return cause;
    }
    const clean = new Error(
      message,
      inner === undefined ? undefined : { cause: inner },
    );
    clean.name = name;
    if (stack !== undefined) clean.stack = stack;
    for (const [key, value] of members) {
      setOwn(clean as unknown as Record<PropertyKey, unknown>, key, value);
    }
    return clean;
  }
}

/** An error as JSON may show it: its name, message, fields and cause. */
function errorData(
  name: string,
  message: string,
  members: [PropertyKey, unknown][],
  cause: unknown,
): Record<string, unknown> {
  const data: Record<string, unknown> = { name, message };
  for (const [key, value] of members) {
    if (typeof key === "string") setOwn(data, key, value);
  }
  if (cause !== undefined) data.cause = cause;
  return data;
}

const STANDARD = new Set(["message", "stack", "cause"]);

/** An error, from this realm or another. */
function isError(value: object): value is Error {
  return value instanceof Error ||
    Object.prototype.toString.call(value) === "[object Error]";
}

/** What {@linkcode read} gives for a value that throws when read. */
const UNREADABLE: unique symbol = Symbol("unreadable");

/** `object[key]`, or {@linkcode UNREADABLE} when reading it throws. */
export function read(object: object, key: PropertyKey): unknown {
  try {
    return (object as Record<PropertyKey, unknown>)[key];
  } catch {
    return UNREADABLE;
  }
}
