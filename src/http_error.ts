/**
 * The {@linkcode GrabError} of a response with a status outside 2xx.
 *
 * @module
 */

import { GrabError } from "./errors.ts";
import type { JsonApiError } from "./jsonapi/types.ts";
import { redactUrls, safeUrl } from "./redact.ts";

/** How a browser hid a response of status 0 from the page. */
type Hidden = "opaque" | "opaqueredirect";

/** The outcomes of status 0 whose response said how it was hidden. */
const hiddenAs = new WeakMap<object, Hidden>();

/**
 * Notes how a browser hid the response of an outcome of status 0, as its
 * `type` says: a redirect under `redirect: "manual"` (which a custom
 * `fetch` may ask for), or the answer to a `no-cors` request (which a hook
 * or a custom `fetch` may ask for, under any redirect mode).
 */
export function noteHidden(outcome: object, response: Response): void {
  try {
    const type = response.type;
    if (type === "opaque" || type === "opaqueredirect") {
      hiddenAs.set(outcome, type);
    }
  } catch {
    // A response-like whose type cannot be read: the redirect mode tells.
  }
}

/**
 * `"<status> <statusText>: <METHOD> <origin+path>"`; for status 0, what
 * the browser hid behind it.
 */
export function httpErrorMessage(
  status: number,
  statusText: string,
  method: string,
  url: string,
  hidden?: Hidden | undefined,
): string {
  // A reason phrase is the server's, or a hook's: it may quote a URL too.
  const head = statusText !== ""
    ? `${status} ${quoted(statusText)}`
    : status === 0
    ? `0 (${hiddenMessage(hidden)})`
    : `${status}`;
  return `${head}: ${method} ${namedUrl(url)}`;
}

/**
 * What a response of status 0 is: one a browser hides from the page, whose
 * status, headers and body cannot be read. No server sends status 0.
 */
function hiddenMessage(hidden: Hidden | undefined): string {
  return hidden === "opaqueredirect"
    ? 'the server redirected, which a browser hides under redirect "manual": ' +
      "its status and Location cannot be read; grab the final URL, or use " +
      'redirect "follow"'
    : "an opaque response, as a no-cors request gets, which a browser " +
      "hides: its status, headers and body cannot be read; send the " +
      "request in cors mode";
}

/** The headers each outcome's request was sent with. */
const sentWith = new WeakMap<object, HeadersInit>();

/**
 * Notes the headers the request of an outcome went out with (a hook's
 * included), whose credentials its error's message must not quote. A 2xx
 * is noted only when a `schema` will check its body (`checked`): a schema
 * that refuses it makes a message, which may quote the value that failed.
 * No other 2xx makes a message, and a success pays nothing.
 */
export function noteSent<T extends object>(
  outcome: T,
  headers: HeadersInit,
  checked: boolean,
): T {
  const status = (outcome as { status?: number }).status;
  if (checked || (status !== undefined && (status < 200 || status >= 300))) {
    sentWith.set(outcome, headers);
  }
  return outcome;
}

/** The headers an outcome's request was sent with, if noted. */
export function sentHeaders(outcome: object): HeadersInit | undefined {
  return sentWith.get(outcome);
}

/** The headers that carry credentials: `fetch` keeps them on their origin. */
const CREDENTIAL_HEADERS = ["authorization", "proxy-authorization", "cookie"];

/** A shorter part of a credential is left in: it would blank common words. */
const SHORTEST_SECRET = 8;

/**
 * `text` without the credentials its request carried, each value whole and
 * in parts (a token without its scheme, a cookie's value, a Basic
 * credential's password), also URL-encoded, as a server's detail may quote
 * any of them: `Bearer abc… has expired`, `?token=abc%2B…`. A scheme and a
 * cookie's name are no secret, and stay: `Negotiate`, `sessionid`.
 */
function withoutCredentials(text: string, outcome: object): string {
  return withoutSent(text, sentWith.get(outcome));
}

/** `text` without the credentials of the headers `sent` (see above). */
export function withoutSent(
  text: string,
  sent: HeadersInit | undefined,
): string {
  if (sent === undefined) return text;
  const headers = new Headers(sent);
  const secrets: string[] = [];
  for (const name of CREDENTIAL_HEADERS) {
    const value = headers.get(name);
    if (value === null) continue;
    const parts = name === "cookie"
      ? [value, ...cookieValues(value)]
      : [value, value.replace(/^\S+\s+/, ""), ...basicParts(value)];
    for (const part of parts) secrets.push(part, encodeURIComponent(part));
  }
  // Longest first, so that a whole value goes before its parts.
  secrets.sort((a, b) => b.length - a.length);
  for (const secret of secrets) {
    if (secret.length >= SHORTEST_SECRET) text = text.replaceAll(secret, "…");
  }
  return text;
}

/** The value of each `name=value` pair of a `Cookie` header. */
function cookieValues(value: string): string[] {
  return value.split(";").map((pair) => pair.slice(pair.indexOf("=") + 1));
}

/**
 * A Basic credential as the server decodes it, `user:password`, and its
 * password: a detail may quote the pair it refused.
 */
function basicParts(value: string): string[] {
  const [scheme, encoded] = value.split(/\s+/);
  if (scheme?.toLowerCase() !== "basic" || encoded === undefined) return [];
  let pair: string;
  try {
    pair = atob(encoded);
  } catch {
    return [];
  }
  const colon = pair.indexOf(":");
  return colon === -1 ? [pair] : [pair, pair.slice(colon + 1)];
}

/** How much of a server's text a message quotes, in UTF-16 code units. */
export const MAX_QUOTED = 2_000;

/**
 * A server's text (a reason phrase, JSON:API details), or a caller's (a
 * validation issue quoting a key, an option name or a thrown message), as
 * a message quotes it: redacted, then cut to {@linkcode MAX_QUOTED}, saying
 * how much was left out. The message is in the stack and in every log line
 * of the error; megabytes belong in `body`, `errors` and `cause` only. Redacted
 * before it is cut, so that no cut leaves part of a password that the
 * redaction would no longer know for one.
 */
export function quoted(text: string): string {
  const redacted = redactUrls(text);
  if (redacted.length <= MAX_QUOTED) return redacted;
  let end = MAX_QUOTED;
  // Never half a surrogate pair.
  const last = redacted.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${redacted.slice(0, end)}… (cut at ${end} characters)`;
}

/**
 * A URL (origin and path) as a message names it: cut to
 * {@linkcode MAX_QUOTED}, saying how long it was. The error's `url` keeps
 * it whole. Serialised, it is ASCII: no cut splits a character.
 */
export function namedUrl(url: string): string {
  if (url.length <= MAX_QUOTED) return url;
  const length = url.length.toLocaleString("en-US");
  return `${url.slice(0, MAX_QUOTED)}… (${length} characters)`;
}

/** A response with a status outside 2xx, read. */
export interface HttpErrorInit {
  status: number;
  statusText: string;
  /** The response's URL, or the request's. */
  url: string;
  headers: Headers;
  body: unknown;
  /** Why `body` is `null` when it could not be read: the error's `cause`. */
  bodyError?: unknown;
}

/**
 * Builds a {@linkcode GrabError}. Its message is the JSON:API errors'
 * `detail ?? title` when given, else `"<status> <statusText>: <METHOD> <url>"`;
 * the server's text in it is cut to {@linkcode MAX_QUOTED} characters.
 */
export function httpError(
  method: string,
  response: HttpErrorInit,
  errors: JsonApiError[] | undefined,
  message: string | undefined,
  redirect?: RequestRedirect | undefined,
): GrabError {
  const url = safeUrl(response.url);
  const { status, statusText } = response;
  // Where the response did not say, the request's redirect mode does.
  const hidden = hiddenAs.get(response) ??
    (redirect === "manual" ? "opaqueredirect" : "opaque");
  // A server's error detail often quotes the request's URL, token and all.
  return new GrabError(
    message === undefined
      ? withoutCredentials(
        httpErrorMessage(status, statusText, method, url, hidden),
        response,
      )
      : quoted(withoutCredentials(message, response)),
    {
      statusCode: response.status,
      body: response.body,
      headers: response.headers,
      method,
      url,
      errors,
      cause: response.bodyError,
    },
  );
}
