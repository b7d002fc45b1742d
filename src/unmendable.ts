/**
 * Failures of `fetch` that no retry can mend, told apart from the network's
 * by what the failure says: a permission the runtime refused, a port the
 * platform blocks, a stream body that met a redirect, a redirect refused
 * (to a URL that is not http(s), or under `redirect: "error"`), a response
 * a custom `fetch` handed out once already, or what is no response, a
 * resource of the runtime's that is closed (a Deno `HttpClient` a custom
 * `fetch` passes on), and the server's side of the connection
 * (`./peer_failure.ts`). Each is a `"network"` failure at once, whose
 * message says what to do.
 *
 * @module
 */

import { quoted } from "./http_error.ts";
import { peerFailure, type Said } from "./peer_failure.ts";
import { ownValue } from "./object.ts";

/**
 * Thrown when a custom `fetch` gives a response whose body is used or held
 * by a reader: one `Response` returned for every call, as a mock may do.
 */
export class ReusedResponse extends TypeError {
  constructor() {
    super("The response body is already used or locked");
  }
}

/**
 * Thrown when a custom `fetch` gives what is no response: a handler called
 * in process that returns nothing, or a plain object. No retry mends it.
 */
export class NoResponse extends TypeError {
  /** What it gave, as a message names it. */
  readonly given: string;
  constructor(value: unknown) {
    super("Cannot read the response: fetch did not return one");
    this.given = value === undefined || value === null
      ? String(value)
      : typeof value === "object"
      ? "an object"
      : `a ${typeof value}`;
  }
}

/**
 * The message, stack and code of `cause` and of the causes under it, three deep,
 * read till one cannot be (a hostile fetch's rejection: a getter that
 * throws, a revoked Proxy, for which even `instanceof` throws).
 */
export function chainOf(cause: unknown): Said[] {
  const chain: Said[] = [];
  let error = cause;
  try {
    for (let depth = 0; depth < 3 && error instanceof Error; depth++) {
      const said: Said = { message: "", stack: "", code: "" };
      chain.push(said);
      said.message = clip(String(error.message));
      said.stack = String(error.stack ?? "").slice(0, 2000);
      said.code = String((error as { code?: unknown }).code ?? "").slice(
        0,
        100,
      );
      // Its own cause: one on Object.prototype would be every error's.
      error = ownValue(error, "cause");
    }
  } catch {
    // What was read so far is what the failure says.
  }
  return chain;
}

/**
 * A message cut to its first and last 250 characters: Deno's names the URL
 * first and what failed last, which a long query would push out of reach.
 */
function clip(message: string): string {
  return message.length <= 500
    ? message
    : `${message.slice(0, 250)}…${message.slice(-250)}`;
}

/**
 * The message for a request the platform's `fetch` refused for its port, a
 * "bad port" of the Fetch standard (Deno: `Requests to port 6000 are
 * blocked`; Node: `fetch failed`, caused by `bad port`), or `undefined`.
 * Told by the failure, not by the URL: Bun blocks none, and a redirect may
 * lead to the port.
 */
function blockedPort(chain: Said[]): string | undefined {
  let port: string | undefined;
  const blocked = chain.some(({ message }) => {
    port = /Requests to port (\d{1,5}) are blocked/.exec(message)?.[1];
    return port !== undefined || message === "bad port";
  });
  if (!blocked) return undefined;
  const which = port === undefined ? "its port" : `port ${port}`;
  return `Cannot send the request: fetch blocks ${which}, a "bad port" of the Fetch standard ` +
    "(browsers, Deno and Node refuse it); serve the API on another port";
}

/**
 * The message for a URL the platform's `fetch` refused though grab sent no
 * URL longer than it takes (Deno: `Invalid URL <url>`, for one past 65,534
 * characters, which a `beforeRequest` hook or a redirect's `Location` may
 * make), or a redirect's `Location` that is no URL (Deno: `Invalid URL:
 * '<location>' with base …`, and a counted upload's own hop in its words;
 * Node: `Invalid URL`; Bun: code `RedirectURLInvalid`), or `undefined`.
 */
function refusedUrl(chain: Said[]): string | undefined {
  const said = chain.find(({ message, code }) =>
    message.startsWith("Invalid URL") || code === "RedirectURLInvalid"
  );
  if (said === undefined) return undefined;
  if (!said.message.startsWith("Invalid URL ")) {
    return "Cannot follow the redirect: the server's Location header is not a valid URL; fix the server's redirect";
  }
  return "Cannot send the request: fetch refused its URL (Deno's takes 65,534 characters at most, " +
    "and a hook or a redirect may have made it longer); send the data in a body";
}

/**
 * The message for a request sent through an HTTP client that is closed, a
 * custom `fetch`'s own (Deno: a `Deno.HttpClient` closed, `BadResource`, told
 * by name; Node: an undici dispatcher closed or destroyed, the cause of its
 * `fetch failed`), or `undefined`.
 */
function closedClient(name: unknown, chain: Said[]): string | undefined {
  const closed = name === "BadResource" ||
    chain.some(({ message }) =>
      message === "The client is destroyed" ||
      message === "The client is closed"
    );
  if (!closed) return undefined;
  return "Cannot send the request: fetch was given an HTTP client that is closed " +
    "(Deno's HttpClient, an undici dispatcher); give the custom fetch a client that is still open";
}

/**
 * The message for a stream body `fetch` could not send again when the
 * server redirected it (307, 308; 301 or 302 keeping the method), or
 * `undefined`. Deno and Bun say so; Node's undici rejects with an empty
 * error from its redirect step.
 */
function streamRedirect(chain: Said[]): string | undefined {
  const met = chain.some(({ message, stack }) =>
    (/redirect/i.test(message) && /stream/i.test(message)) ||
    (message === "" && stack.includes("httpRedirectFetch"))
  );
  if (!met) return undefined;
  return "Cannot follow the redirect: fetch cannot send a stream body again; " +
    "send the body as bytes or a Blob, or send it to the URL the redirect leads to";
}

/**
 * The message for a redirect that `fetch` refused to follow, which the
 * server sends again to every attempt, or `undefined`: one to a URL that is
 * not http(s) (Deno, and a counted upload's own hop: `Can not redirect to a
 * non HTTP(s) url`; Node: `URL scheme must be a HTTP(S) scheme`; Bun: code
 * `UnsupportedRedirectProtocol`), and any under `redirect: "error"` (Deno:
 * `Encountered redirect while redirect mode is set to 'error'`; Node:
 * `unexpected redirect`; Bun: code `UnexpectedRedirect`). A browser says
 * neither, and its failure is retried as the network's. Each message is
 * told by words with spaces, which no URL quoted in a network error holds.
 */
function refusedRedirect(chain: Said[]): string | undefined {
  // A code is asked for only where one is given: an error without one
  // has `""`, never `undefined`, but that is no reason to match it.
  const said = (text: string, code?: string) =>
    chain.some((each) =>
      each.message.includes(text) || (code !== undefined && each.code === code)
    );
  const deno = "Can not redirect to a non HTTP(s) url";
  if (
    said(deno, "UnsupportedRedirectProtocol") ||
    said("URL scheme must be a HTTP(S) scheme")
  ) {
    return "Cannot follow the redirect: the server's Location header is not an http(s) URL; fix the server's redirect";
  }
  if (
    said("while redirect mode is set to 'error'", "UnexpectedRedirect") ||
    said("unexpected redirect")
  ) {
    return 'Cannot complete the request: the server redirected, which redirect "error" refuses; ' +
      'send it to the URL the redirect leads to, or use redirect "follow"';
  }
  return undefined;
}

/** The codes of undici's refusals of a request as it is. */
const REFUSED_CODES = new Set([
  "UND_ERR_INVALID_ARG",
  "UND_ERR_NOT_SUPPORTED",
  "UND_ERR_REQ_CONTENT_LENGTH_MISMATCH",
]);

/**
 * The message for a request Node's `fetch` refused as it is (undici's
 * `InvalidArgumentError`: `invalid transfer-encoding header`, `invalid
 * keep-alive header`, …; its `NotSupportedError`: `expect header not
 * supported`; its `RequestContentLengthMismatchError`, for a body that is
 * not as long as its `Content-Length`), which every attempt sends alike, or
 * `undefined`. grab refuses such headers of the caller's before any
 * request; a `beforeRequest` hook's or a custom `fetch`'s reach the runtime.
 */
function refusedArgument(chain: Said[]): string | undefined {
  const said = chain.find(({ code }) => REFUSED_CODES.has(code));
  if (said === undefined) return undefined;
  return `Cannot send the request: the runtime's fetch refused it ("${
    quoted(said.message)
  }"), as it would each attempt; a header a hook or a custom fetch set may be one the runtime sets itself (Content-Length, Transfer-Encoding, Connection, Keep-Alive, Upgrade, Expect)`;
}

/**
 * The message for a failure of `fetch` that no retry can mend, or
 * `undefined` for one that may be the network's. `stream` when the request
 * body was a stream, which only then can have met a redirect it could not
 * follow.
 */
export function unmendable(
  cause: unknown,
  stream: boolean,
): string | undefined {
  let name: unknown;
  try {
    if (cause instanceof NoResponse) {
      return `Cannot read the response: the custom fetch gave ${cause.given}, not a Response; ` +
        "return a Response, or a promise of one, from each call";
    }
    if (cause instanceof ReusedResponse) {
      return "Cannot read the response: the custom fetch returned a Response whose body " +
        "is already used or locked; return a new Response, or response.clone(), from each call";
    }
    name = cause instanceof Error ? cause.name : undefined;
  } catch {
    return undefined; // A revoked Proxy, a getter that throws: nothing to tell by.
  }
  const chain = chainOf(cause);
  if (name === "NotCapable" || name === "PermissionDenied") {
    return permissionRefused(chain[0]?.message ?? "");
  }
  // A URL refused first: Deno's message quotes a redirect's `Location` as
  // the server wrote it, which may say what the others look for.
  return refusedUrl(chain) ?? refusedRedirect(chain) ??
    refusedArgument(chain) ?? closedClient(name, chain) ?? blockedPort(chain) ??
    (stream ? streamRedirect(chain) : undefined) ?? peerFailure(chain);
}

/**
 * The message for a `fetch` the runtime's permissions refused (Deno's
 * `NotCapable`, `PermissionDenied` before Deno 2, told by name, as `src/`
 * knows no `Deno` namespace), from what the refusal says. It names the flag
 * that grants the permission, as the refusal names it ("run again with the
 * --allow-read flag": a custom `fetch` may need more than the network),
 * `--allow-net` where it names none; and for the network the host refused,
 * which a redirect or a next link may have moved off the request's.
 */
function permissionRefused(message: string): string {
  const flag = /--allow-[a-z]+/.exec(message)?.[0] ?? "--allow-net";
  // `Requires net access to "api.example.com:443", run again with …`:
  // a host and port only, never a path, a query or credentials.
  const host = /net access to "([\w.:[\]-]{1,300})"/.exec(message)?.[1];
  const grant = flag !== "--allow-net"
    ? `allow what its cause names with ${flag}`
    : `allow ${host === undefined ? "the host" : `"${host}"`} with --allow-net`;
  return `Cannot complete the request: the runtime's permissions refused it (in Deno, ${grant})`;
}
