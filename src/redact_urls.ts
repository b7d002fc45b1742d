/**
 * URLs in free text (a platform error's message, a server's detail) with
 * their userinfo, query and fragment taken out, and a URL cut to its origin
 * and path.
 *
 * @module
 */

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

/** `origin + pathname` of a URL: no userinfo, no query, no fragment. */
export function safeUrl(url: URL | string): string {
  try {
    const parsed = typeof url === "string" ? new URL(url) : url;
    return parsed.origin + parsed.pathname;
  } catch {
    return "<invalid URL>";
  }
}
