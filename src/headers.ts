/**
 * Header merging (case-insensitive, later sources win) with the checks the
 * platform would otherwise apply unevenly across runtimes.
 *
 * @module
 */

import type { ValidationIssue } from "./errors.ts";
import { MAX_LIST_ITEMS, setOwn } from "./object.ts";
import { DEFAULT_TEXT } from "./text.ts";

/** Why a list of header pairs past the most a list option holds is refused. */
const TOO_MANY_PAIRS = `Cannot send the headers: the list has more than the ${
  MAX_LIST_ITEMS.toLocaleString("en")
} pairs a list option may hold`;

/** Headers as a plain record with lower-case names. */
export type HeaderRecord = Record<string, string>;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// CR, LF and NUL would end the header. Another control character (but the
// tab) is no field-vchar (RFC 9110), and a character past U+00FF cannot be
// written as one byte: `Headers` takes either, and the platform refuses it
// while sending, which would look like a network failure.
// deno-lint-ignore no-control-regex -- control characters are what it finds
const UNSENDABLE_VALUE = /[\0-\x08\n-\x1f\x7f]|[^\0-\xff]/;
const FORBIDDEN_VALUE = /[\r\n\0]/;
// deno-lint-ignore no-control-regex -- control characters are what it finds
const CONTROL_VALUE = /[\0-\x08\n-\x1f\x7f]/;
const NONE: ValidationIssue[] = [];
// The headers that say how the connection carries the message. Node's fetch
// throws for each ("invalid transfer-encoding header"), which would fail as
// the network's and be retried; Deno's sends it as given (a Transfer-Encoding
// the body does not have), Bun and browsers drop some: refused everywhere.
const FRAMING = new Set([
  "connection",
  "expect",
  "keep-alive",
  "transfer-encoding",
  "upgrade",
]);
// Credentials for a proxy reach the server instead: an `https` request's
// tunnel carries none of its headers (Deno's `CONNECT`), and Node's fetch
// knows no proxy. Browsers drop the header, so it works nowhere as meant.
const PROXY_CREDENTIALS =
  "fetch sends it to the server, not to a proxy (an https request's tunnel " +
  "carries none of its headers); give the proxy its credentials as the user " +
  "and password of its URL (HTTP_PROXY) or the basicAuth of an HTTP client's proxy";
// The only values of `Connection` every runtime sends.
const CONNECTION_SENT = /^[\t ]*(?:close|keep-alive)[\t ]*$/i;

/**
 * Copies `init` into `target` (lower-case names, so a later source replaces an
 * earlier one whatever its case) and returns the problems found. In a list
 * of pairs a name given twice gets both values, comma-joined, as `Headers`
 * joins them (and so do the `Set-Cookie` values of a `Headers`); in a record
 * a later key replaces an earlier one of another case, as a spread
 * (`{ ...base, "content-type": … }`) means it to, and a key whose value is
 * `undefined` removes the name from `target` (and adds it to `unset`, for
 * sources merged below it later). Values are never repeated in a message.
 *
 * @example
 * ```ts ignore
 * const target = {};
 * mergeHeaders(target, { Accept: "text/plain" });
 * mergeHeaders(target, [["accept", "application/json"], ["Accept", "text/*"]]);
 * // target: { accept: "application/json, text/*" }
 * ```
 */
export function mergeHeaders(
  target: HeaderRecord,
  init:
    | NonNullable<RequestInit["headers"]>
    | Record<string, string | undefined>
    | undefined
    | null,
  unset?: string[],
): ValidationIssue[] {
  if (init === undefined || init === null) return NONE;
  // Pushed one by one: a copy per issue made 100,000 bad pairs take minutes.
  let issues: ValidationIssue[] | undefined;
  // The names a list of pairs has given so far, whose values it joins.
  let given: Set<string> | undefined;
  const add = (value: unknown, name: string, join = false) => {
    const text = typeof value === "string" ? value : textOf(value);
    const problem = headerProblem(name, text);
    if (problem !== undefined) {
      (issues ??= []).push({ path: "", message: problem });
      return;
    }
    const key = name.toLowerCase();
    const trimmed = trimSpace(text as string);
    if (join && given?.has(key)) target[key] += ", " + trimmed;
    // A header named `__proto__` is a header too, never lost to the setter.
    else setOwn(target, key, trimmed);
    if (join) (given ??= new Set()).add(key);
  };
  if (init instanceof Headers) {
    // Its names are distinct, as it joined them itself, but `Set-Cookie`,
    // whose values it gives one by one: joined, as `get` joins them.
    init.forEach((value, name) => add(value, name, name === "set-cookie"));
  } else if (
    Array.isArray(init) ||
    typeof (init as Partial<Iterable<unknown>>)[Symbol.iterator] === "function"
  ) {
    // A list of pairs, or any iterable of them (a Map), as fetch takes it;
    // one longer than a list option may be, or without end, is not read
    // through.
    const tooLong = Array.isArray(init) && init.length > MAX_LIST_ITEMS;
    let read = 0;
    for (const pair of tooLong ? [] : init as Iterable<string[]>) {
      if (++read > MAX_LIST_ITEMS) break;
      if (!Array.isArray(pair) || pair.length !== 2) {
        (issues ??= []).push({
          path: "",
          message: "Cannot send a header: each pair needs a name and a value",
        });
        continue;
      }
      add(pair[1], String(pair[0]), true);
    }
    if (tooLong || read > MAX_LIST_ITEMS) {
      (issues ??= []).push({ path: "", message: TOO_MANY_PAIRS });
    }
  } else {
    for (const name of Object.keys(init)) {
      const value = (init as Record<string, unknown>)[name];
      if (value !== undefined) add(value, name);
      else if (TOKEN.test(name)) {
        const key = name.toLowerCase();
        delete target[key];
        unset?.push(key);
      }
    }
  }
  return issues ?? NONE;
}

/** Why a header cannot be sent as given, or `undefined` when it can. */
function headerProblem(
  name: string,
  text: string | { what: string },
): string | undefined {
  if (!TOKEN.test(name)) {
    return "Cannot send a header: its name is not a valid HTTP token";
  }
  const which = `Cannot send header "${name}"`;
  if (typeof text !== "string") return `${which}: its value is ${text.what}`;
  if (!UNSENDABLE_VALUE.test(text)) return namedProblem(name, text, which);
  if (FORBIDDEN_VALUE.test(text)) {
    return `${which}: its value contains CR, LF or NUL`;
  }
  if (CONTROL_VALUE.test(text)) {
    return `${which}: its value contains a control character other than tab`;
  }
  return `${which}: its value has a character outside Latin-1; percent-encode it`;
}

/**
 * Why a header that says how the connection carries the message, or one
 * meant for a proxy, cannot be sent; `undefined` for any other header and
 * `Connection: close`.
 */
function namedProblem(
  name: string,
  text: string,
  which: string,
): string | undefined {
  const key = name.toLowerCase();
  if (key === "proxy-authorization") return `${which}: ${PROXY_CREDENTIALS}`;
  if (!FRAMING.has(key)) return undefined;
  const connection = key === "connection";
  if (connection && CONNECTION_SENT.test(text)) return undefined;
  return `${which}: the runtime manages the connection itself (Node's fetch ` +
    "refuses it, Deno's sends it as given, browsers drop it); leave it out" +
    (connection ? ', or give "close" or "keep-alive"' : "");
}

/**
 * A header value's text as `fetch` would write it, or what it is when that
 * text is not what the caller meant: `String()` would send a function's
 * source, `"null"`, or `"[object Promise]"` for a token not awaited.
 */
function textOf(value: unknown): string | { what: string } {
  switch (typeof value) {
    case "number":
    case "boolean":
    case "bigint":
      return String(value);
    case "function":
      return { what: "a function; call it, or use a factory header function" };
    case "symbol":
      return { what: "a symbol" };
    case "undefined":
      return { what: "undefined" };
  }
  if (value === null) return { what: "null; leave the header out instead" };
  if (typeof (value as { then?: unknown }).then === "function") {
    return { what: "a Promise; await it first" };
  }
  const text = String(value);
  return DEFAULT_TEXT.test(text)
    ? { what: `an object (${text.slice(8, -1)}), which has no text of its own` }
    : text;
}

/**
 * The value without the leading and trailing spaces and tabs that `fetch`
 * strips; any other character, a no-break space included, is sent.
 */
function trimSpace(value: string): string {
  // Scanned from each end, not `/[\t ]+$/`: that tries every run of spaces
  // inside the value, time in the square of its length ("a  …  b ").
  let start = 0;
  let end = value.length;
  while (start < end && isSpace(value.charCodeAt(start))) start++;
  while (end > start && isSpace(value.charCodeAt(end - 1))) end--;
  return start === 0 && end === value.length ? value : value.slice(start, end);
}

function isSpace(code: number): boolean {
  return code === 32 || code === 9;
}

const FORM_TYPE: ValidationIssue = Object.freeze({
  path: "",
  message:
    "Cannot send a FormData body with a Content-Type header: fetch writes " +
    "multipart/form-data with the boundary between the form's parts, which " +
    "no other value has; leave Content-Type out (set it to undefined in the " +
    "call to remove the factory's)",
});

/**
 * The issue of a `Content-Type` given with a `FormData` body: `fetch` sends
 * the given one instead of its own, and the server cannot split the form
 * without the boundary only its own names.
 */
export function formTypeIssue(
  body: unknown,
  headers: HeaderRecord,
): ValidationIssue | undefined {
  return body instanceof FormData && headers["content-type"] !== undefined
    ? FORM_TYPE
    : undefined;
}
