/**
 * Keeping secrets out of errors: URLs reduced to origin and path, and every
 * URL inside a platform error's message and stack stripped of its query and
 * userinfo.
 *
 * @module
 */

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
 * url (…?token=…)"), and a wrapper's error may carry one in a property.
 * Returns a copy of `cause` (and of its own causes) with every URL's query
 * and userinfo removed from messages, stacks and string properties, Errors
 * in properties redacted alike and any other property left out; or `cause`
 * itself when there is nothing to remove.
 */
export function redactCause(cause: unknown, depth = 0): unknown {
  if (typeof cause === "string") return redactUrls(cause);
  if (!(cause instanceof Error)) return cause;
  // A chain this deep (or one that refers back to itself) is cut here rather
  // than kept unredacted.
  if (depth > 8) return undefined;
  const inner = redactCause(cause.cause, depth + 1);
  const message = redactUrls(cause.message);
  const stack = cause.stack === undefined ? undefined : redactUrls(cause.stack);
  // Own properties but the standard ones, enumerable or not
  // (an AggregateError's `errors` is not).
  const keys = Object.getOwnPropertyNames(cause).filter((key) =>
    !STANDARD.has(key)
  );
  if (
    keys.length === 0 && inner === cause.cause && message === cause.message &&
    stack === cause.stack
  ) {
    return cause;
  }
  const clean = new Error(
    message,
    inner === undefined ? undefined : { cause: inner },
  );
  clean.name = cause.name;
  if (stack !== undefined) clean.stack = stack;
  for (const key of keys) {
    const value = redactProperty(
      (cause as unknown as Record<string, unknown>)[key],
      depth,
    );
    if (value !== undefined) {
      Object.defineProperty(clean, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
  }
  return clean;
}

const STANDARD = new Set(["message", "stack", "cause"]);

/** A property of an error, redacted: strings, Errors and lists of them. */
function redactProperty(value: unknown, depth: number): unknown {
  if (typeof value === "string" || value instanceof Error) {
    return redactCause(value, depth + 1);
  }
  if (Array.isArray(value)) {
    return value.map((item) => redactProperty(item, depth)).filter((item) =>
      item !== undefined
    );
  }
  return typeof value === "number" || typeof value === "boolean"
    ? value
    : undefined;
}
