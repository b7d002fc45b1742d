/**
 * Keeping secrets out of errors: URLs reduced to origin and path, and every
 * URL inside a platform error's message and stack stripped of its query and
 * userinfo.
 *
 * @module
 */

import { setOwn } from "./object.ts";

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
 * A URL's query or userinfo inside free text: `scheme://` then an optional
 * `user:pass@`, then the rest of the authority (brackets for IPv6) and path,
 * then `?query`. The query runs to white space, a quote, an angle bracket
 * or a fragment: brackets and parentheses are left unencoded by the URL
 * serialiser, so they may be part of it (`?page[size]=10&key=…`).
 */
const URL_SECRETS =
  /\b([a-z][a-z\d+.-]*:\/\/)(?:[^\s/?#@"'<>]*@)?([^\s?#"'<>]*)(\?[^\s#"'<>]*)?/gi;

/** `text` with every URL's userinfo removed and its query replaced by `?…`. */
export function redactUrls(text: string): string {
  return text.replace(
    URL_SECRETS,
    (_match, scheme: string, rest: string, query: string | undefined) => {
      if (query === undefined || query === "?") {
        return scheme + rest + (query ?? "");
      }
      return scheme + rest + "?…" + unbalancedTail(query);
    },
  );
}

/**
 * What ends a query but belongs to the text around the URL: trailing
 * punctuation, and closing brackets the query never opened (`(url?a=1): …`).
 */
function unbalancedTail(query: string): string {
  let end = query.length;
  while (end > 1) {
    const last = query[end - 1]!;
    if (".,:;!".includes(last)) {
      end--;
      continue;
    }
    const open = last === ")" ? "(" : last === "]" ? "[" : undefined;
    if (open === undefined) break;
    const head = query.slice(0, end);
    if (count(head, open) >= count(head, last)) break;
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
 * rejects with) may carry one in a property. Returns a copy of `cause` with
 * every URL's query and userinfo removed: from an error's message, stack,
 * causes and properties, from the strings of an object or an array; or
 * `cause` itself when there is nothing to remove. A value that throws when
 * it is read (a getter, a revoked Proxy) is left out: `undefined`.
 */
export function redactCause(cause: unknown, depth = 0): unknown {
  try {
    return redactValue(cause, depth);
  } catch {
    return undefined;
  }
}

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === "string") return redactUrls(value);
  if (typeof value !== "object" || value === null) return value;
  // A chain this deep (or one that refers back to itself) is cut here rather
  // than kept unredacted.
  if (depth > 8) return undefined;
  if (isError(value)) return redactError(value, depth);
  if (Array.isArray(value)) {
    const items = value.map((item) => redactValue(item, depth + 1));
    return items.every((item, at) => item === value[at]) ? value : items;
  }
  return redactObject(value, depth);
}

/** An error, from this realm or another. */
function isError(value: object): value is Error {
  return value instanceof Error ||
    Object.prototype.toString.call(value) === "[object Error]";
}

function redactError(cause: Error, depth: number): Error {
  const inner = redactValue(cause.cause, depth + 1);
  const message = redactUrls(String(cause.message));
  const stack = cause.stack === undefined
    ? undefined
    : redactUrls(String(cause.stack));
  // Own properties but the standard ones, enumerable or not
  // (an AggregateError's `errors` is not).
  const keys = Object.getOwnPropertyNames(cause).filter((key) =>
    !STANDARD.has(key)
  );
  const values = keys.map((key) =>
    redactValue((cause as unknown as Record<string, unknown>)[key], depth + 1)
  );
  if (
    inner === cause.cause && message === cause.message &&
    stack === cause.stack &&
    values.every((value, at) =>
      value === (cause as unknown as Record<string, unknown>)[keys[at]!]
    )
  ) {
    return cause;
  }
  const clean = new Error(
    message,
    inner === undefined ? undefined : { cause: inner },
  );
  clean.name = String(cause.name);
  if (stack !== undefined) clean.stack = stack;
  keys.forEach((key, at) => {
    if (values[at] !== undefined) {
      setOwn(clean as unknown as Record<string, unknown>, key, values[at]);
    }
  });
  return clean;
}

const STANDARD = new Set(["message", "stack", "cause"]);

/**
 * An object's own enumerable properties, redacted: the object itself when
 * none changes, else a plain copy of them.
 */
function redactObject(value: object, depth: number): object {
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const values = keys.map((key) => redactValue(record[key], depth + 1));
  if (values.every((item, at) => item === record[keys[at]!])) return value;
  const copy: Record<string, unknown> = {};
  keys.forEach((key, at) => setOwn(copy, key, values[at]));
  return copy;
}
