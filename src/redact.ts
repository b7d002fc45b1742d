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
 * `user:pass@`, then the rest of the authority and path, then `?query`. The
 * query ends at white space, a quote, a bracket or a fragment.
 */
const URL_SECRETS =
  /\b([a-z][a-z\d+.-]*:\/\/)(?:[^\s/?#@"'<>()\[\]]*@)?([^\s?#"'<>()\[\]]*)(\?[^\s#"'<>()\[\]]*)?/gi;

/** `text` with every URL's userinfo removed and its query replaced by `?…`. */
export function redactUrls(text: string): string {
  return text.replace(
    URL_SECRETS,
    (_match, scheme: string, rest: string, query: string | undefined) =>
      scheme + rest +
      (query === undefined ? "" : query === "?" ? "?" : "?…"),
  );
}

/**
 * The platform's error may quote a URL with its query string: the request's,
 * one a hook added, a redirect target's (Deno's "error sending request for
 * url (…?token=…)"). Returns a copy of `cause` (and of its own causes) with
 * every URL's query and userinfo removed from messages and stacks, or
 * `cause` itself when there is nothing to remove.
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
  if (
    inner === cause.cause && message === cause.message && stack === cause.stack
  ) {
    return cause;
  }
  const clean = new Error(
    message,
    inner === undefined ? undefined : { cause: inner },
  );
  clean.name = cause.name;
  if (stack !== undefined) clean.stack = stack;
  return clean;
}
