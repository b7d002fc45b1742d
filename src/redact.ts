/**
 * Keeping secrets out of errors: URLs reduced to origin and path, and every
 * URL inside a platform error's message and stack stripped of its query and
 * userinfo.
 *
 * @module
 */

import { isPlainObject, numbered, setOwn } from "./object.ts";

/** `origin + pathname` of a URL: no userinfo, no query, no fragment. */
export function safeUrl(url: URL | string): string {
  try {
    const parsed = typeof url === "string" ? new URL(url) : url;
    return parsed.origin + parsed.pathname;
  } catch {
    return "<invalid URL>";
  }
}

/**
 * What follows a URL's `://` in free text: an optional `user:pass@` (to the
 * last `@` before the path, as a password may hold a raw `@`), then the rest
 * of the authority (brackets for IPv6) and path, then `?query` and
 * `#fragment`. Each runs to white space, a quote or an angle bracket:
 * brackets and parentheses are left unencoded by the URL serialiser, so they
 * may be part of it (`?page[size]=10&key=…`).
 */
const AFTER_SCHEME =
  /(?:[^\s/?#"'<>]*@)?([^\s?#"'<>]*)(\?[^\s#"'<>]*)?(#[^\s"'<>]*)?/y;

/**
 * `text` with every URL's userinfo removed and its query and fragment (an
 * OAuth redirect's `#access_token=…`) each replaced by `?…` and `#…`.
 * Whatever comes before a `://` is taken for a scheme, so a scheme glued
 * to other text (`%22https://`, `x_https://`) hides nothing. Linear in the
 * text: it may be a server's (an error's detail), and time in the square of
 * its length would block the event loop and every timeout with it.
 */
export function redactUrls(text: string): string {
  let at = text.indexOf("://");
  if (at === -1) return text;
  let out = "";
  let done = 0;
  while (at !== -1) {
    AFTER_SCHEME.lastIndex = at + 3;
    const [, rest, query, fragment] = AFTER_SCHEME.exec(text)!;
    out += text.slice(done, at + 3) + rest + hidden(query) + hidden(fragment);
    done = AFTER_SCHEME.lastIndex;
    at = text.indexOf("://", done);
  }
  return out + text.slice(done);
}

/** A query or fragment as `?…` or `#…`; a bare `?` or `#` as it is. */
function hidden(part: string | undefined): string {
  if (part === undefined) return "";
  return part.length === 1 ? part : part[0] + "…" + unbalancedTail(part);
}

/**
 * What ends a query but belongs to the text around the URL: trailing
 * punctuation, and closing brackets the query never opened (`(url?a=1): …`).
 * Each kind of bracket is counted once, whatever the query's length.
 */
function unbalancedTail(query: string): string {
  let end = query.length;
  const opened = { ")": count(query, "("), "]": count(query, "[") };
  const closed = { ")": count(query, ")"), "]": count(query, "]") };
  while (end > 1) {
    const last = query[end - 1]!;
    if (".,:;!".includes(last)) {
      end--;
      continue;
    }
    if (last !== ")" && last !== "]") break;
    if (opened[last] >= closed[last]) break;
    closed[last]--;
    end--;
  }
  return query.slice(end);
}

function count(text: string, char: string): number {
  return text.split(char).length - 1;
}

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
 * One redaction: each object is looked at once, so a graph whose objects
 * are shared or refer back to each other costs its size, not its paths.
 */
class Redaction {
  #seen = new Map<object, unknown>();
  #left = MAX_OBJECTS;
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
    if (typeof value === "string") return redactUrls(value);
    if (
      this.#dataOnly &&
      (typeof value === "function" || typeof value === "symbol")
    ) {
      return undefined;
    }
    // JSON throws on a BigInt (zod's `maximum: 10n`, valibot's `input`):
    // its digits are what a log can show of it.
    if (this.#json && typeof value === "bigint") return String(value);
    if (typeof value !== "object" || value === null) return value;
    if (this.#seen.has(value)) return this.#seen.get(value);
    // A chain too deep or too wide is cut here rather than kept whole;
    // so is a reference back to an object still being looked at.
    if (depth > MAX_DEPTH || this.#left-- <= 0) return undefined;
    this.#seen.set(value, undefined);
    const redacted = this.#object(value, depth);
    this.#seen.set(value, redacted);
    return redacted;
  }

  #object(value: object, depth: number): unknown {
    if (isError(value)) return this.#error(value, depth);
    if (value instanceof URL) return redactUrls(value.href);
    if (Array.isArray(value)) {
      const items = value.map((item) => this.value(item, depth + 1));
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
    keys.forEach((key, at) => {
      const original = read(source, key);
      const value = this.value(original, depth + 1);
      changed ||= value !== original;
      if (value !== undefined) members.push([names[at]!, value]);
    });
    return [members, changed];
  }

  #error(cause: Error, depth: number): object {
    const rawCause = read(cause, "cause");
    const inner = this.value(rawCause, depth + 1);
    const rawMessage = read(cause, "message");
    const message = rawMessage === UNREADABLE
      ? ""
      : redactUrls(String(rawMessage ?? ""));
    const rawStack = read(cause, "stack");
    const stack = rawStack === undefined || rawStack === UNREADABLE
      ? undefined
      : redactUrls(String(rawStack));
    // Own properties but the standard ones, enumerable or not (an
    // AggregateError's `errors` is not), symbol-keyed ones included.
    const keys = Reflect.ownKeys(cause).filter((key) =>
      typeof key === "symbol" || !STANDARD.has(key)
    );
    const [members, changed] = this.#members(cause, keys, depth);
    const rawName = read(cause, "name");
    const name = typeof rawName === "string" ? rawName : "Error";
    if (this.#json) return errorData(name, message, members, inner);
    if (
      inner === rawCause && message === rawMessage && stack === rawStack &&
      !changed
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
