/**
 * Calling `fetch`: as a plain function, raced against the deadline unless
 * it is the platform's own, and checked to have given a response.
 *
 * @module
 */

import { cancelBody } from "./body.ts";
import type { Deadline } from "./deadline.ts";
import { bodyTaken, RESPONSE_TYPE, RESPONSE_URL } from "./platform_response.ts";
import { chainOf, NoResponse, ReusedResponse } from "./unmendable.ts";
import { bare } from "./object.ts";
import { learnBodies, letGoController, withLetGo } from "./let_go.ts";

/** A `fetch` as grab calls it: a plain function, never a method. */
export type Fetch = (
  input: Request | string,
  init?: RequestInit,
) => Promise<Response>;

/**
 * The platform's `fetch`, as it was when this module loaded: its responses
 * honour the framing and the abort signal. A `fetch` option, or a
 * `globalThis.fetch` replaced since (a mock, a wrapper), may not.
 */
const PLATFORM_FETCH = globalThis.fetch;

/**
 * True for the platform's own `fetch`, still in place, as far as can be
 * told: a wrapper installed before this module loaded passes for it, and is
 * trusted to honour the abort signal. The length of a body is trusted only
 * by {@linkcode isPlatformResponse}.
 */
export function isPlatform(fetch: Fetch): boolean {
  return fetch === PLATFORM_FETCH && globalThis.fetch === PLATFORM_FETCH;
}

/**
 * True for a response the platform's `fetch` made, whoever called it: its
 * body honours the HTTP framing. A response made with `new Response` (by a
 * custom `fetch`, a mock, a wrapper or a hook) has the type `"default"` and
 * no URL, and may say anything about its length. The type is read first,
 * as reading the URL costs more; Bun gives fetched responses the type
 * `"default"` too, but a URL.
 */
export function isPlatformResponse(response: Response): boolean {
  try {
    // A runtime without `type` (an older workerd) tells by the URL alone.
    const type: unknown = RESPONSE_TYPE.call(response);
    if (typeof type === "string" && type !== "default") return true;
    const url: unknown = RESPONSE_URL.call(response);
    return typeof url === "string" && url !== "";
  } catch {
    // Not a Response: response-like, from a polyfill or another realm.
    return false;
  }
}

/**
 * Sends `request` (or `href` with `init` when there is no `Request`). The
 * platform's `fetch` honours the signal; any other may not, so its promise
 * is raced, and a response that arrives too late is cancelled. Rejects with
 * a `TypeError` when what `fetch` gives is not a response.
 */
export function sendRequest(
  fetch: Fetch,
  href: string,
  init: RequestInit,
  request: Request | undefined,
  deadline: Deadline,
): Promise<Response> {
  let sending: Promise<Response>;
  let thrown = false;
  const platform = isPlatform(fetch);
  const letGo = platform ? undefined : letGoController(fetch);
  let signal = deadline.signal;
  // Only a custom fetch: the platform's closes a body's socket on its cancel.
  if (letGo !== undefined) {
    // A Request sent with no deadline (no `timeout`, no `signal` of the
    // caller's) keeps its own signal, as the platform's fetch would: a hook's.
    const own = request === undefined ? init.signal : signal ?? request.signal;
    signal = withLetGo(own, letGo);
    if (request === undefined) init = bare({ ...init, signal });
  }
  try {
    // Called as a plain function: browsers and workerd refuse a fetch whose
    // `this` is another object ("Illegal invocation").
    sending = request === undefined
      ? fetch(href, init)
      : signal === undefined
      ? fetch(request)
      : fetch(request, bare({ signal }));
  } catch (error) {
    // `fetch` rejects; only a custom one throws: its own bug, told as such,
    // unless it could not read the Request it was given (below), as the
    // `make-fetch-happen` package's throws at once on the platform's.
    if (typeof error === "object" && error !== null) {
      THROWN.set(error, request === undefined);
    }
    thrown = anyThrown = true;
    sending = Promise.reject(error);
  }
  // The platform's own honours the signal. A wrapper installed before grab
  // loaded passes for it and is trusted alike: racing every answer would
  // cost each grab a listener on the shared timeout signal, which Deno
  // refs and unrefs, for some 3 % of a sequential grab's time.
  if (platform) return sending;
  if (!thrown) {
    // A custom one may answer without a promise (a cache's copy at once).
    if (!(sending instanceof Promise)) sending = Promise.resolve(sending);
    // Only once some fetch threw can an error it rejects with be marked.
    if (anyThrown) sending = sending.catch(rejected);
  }
  const given = request === undefined ? sending : sending.catch((error) => {
    if (!requestUnread(error)) throw error;
    return initOf(request, signal).then((init) => fetch(request.url, init));
  });
  return deadline.race(given, cancelBody).then((response) => {
    if (!isResponse(response)) throw new NoResponse(response);
    if (letGo !== undefined) {
      learnBodies(fetch, response, letGo);
    }
    if (isNetworkError(response)) throw networkErrorCause();
    if (reused(response)) {
      // One read in part and let go still holds its connection: no one
      // else reads the rest. One a reader holds is left to its holder.
      void cancelBody(response, isPlatformResponse(response));
      throw new ReusedResponse();
    }
    return response;
  });
}

/**
 * What a custom `fetch` threw as it was called, before it gave a promise,
 * and whether it was given a URL string (true) or a `Request`.
 */
const THROWN = new WeakMap<object, boolean>();

/** Whether any custom `fetch` has thrown as it was called. */
let anyThrown = false;

/**
 * Rethrows what a custom `fetch`'s promise rejected with, no longer marked
 * as thrown: one error object may be both (a circuit breaker's "open").
 */
function rejected(error: unknown): never {
  if (typeof error === "object" && error !== null) THROWN.delete(error);
  throw error;
}

/**
 * The message for what a custom `fetch` threw as it was called, on the last
 * of `attempts`, or `undefined` for any other failure. No network failed:
 * `fetch` rejects. A handler that takes only a `Request` (Hono's
 * `app.fetch`, a Deno server's handler) throws so when it reads fetch's URL
 * string as one.
 */
export function thrownMessage(
  cause: unknown,
  attempts: number,
): string | undefined {
  const url = typeof cause === "object" && cause !== null
    ? THROWN.get(cause)
    : undefined;
  if (url === undefined) return undefined;
  const last = attempts > 1 ? ` on the last of ${attempts} attempts` : "";
  return `Cannot send the request: the custom fetch threw as it was called${last}, before it gave a promise (see the cause)` +
    (url
      ? "; it is called as fetch is, with a URL string and an init: give a handler that takes only a Request " +
        "(Hono's app.fetch, a Deno server's handler) as (input, init) => handler(new Request(input, init))"
      : "");
}

/**
 * What a `fetch` says, whole, of a `Request` it could not read as one: the
 * npm `undici` package's (v6, v7) takes only a `Request` of its own, and
 * reads Node's as the text "[object Request]", which is no URL ("Failed to
 * parse URL from [object Request]"), as `make-fetch-happen` does ("Invalid
 * URL: '[object Request]'"); `node-fetch` (v2) reads it alike, and
 * says "Only absolute URLs are supported" of that text, where grab's URL is
 * absolute. Either fails so before it sends anything, or reads the body.
 * Whole: a wrapper's own message may name its input ("[object Request]
 * answered 503") after the request was sent, which is not sent again.
 */
const REQUEST_UNREAD =
  /^(?:Failed to parse URL from \[object Request\]|Invalid URL: '\[object Request\]'|Only absolute URLs are supported)$/;

/** True when `fetch` could not read the `Request` it was given as one. */
function requestUnread(error: unknown): boolean {
  return chainOf(error).some(({ message }) => REQUEST_UNREAD.test(message));
}

/**
 * What `request` says, as the `init` of a `fetch` that could not read it:
 * a plain object, which a wrapper that spreads `init` to add its undici
 * `dispatcher` keeps whole. The body goes as bytes, with its length:
 * `node-fetch` sends no web stream.
 */
async function initOf(
  request: Request,
  signal: AbortSignal | undefined,
): Promise<RequestInit> {
  return bare({
    method: request.method,
    headers: request.headers,
    redirect: request.redirect,
    signal: signal ?? request.signal,
    body: request.body === null ? null : await request.arrayBuffer(),
  });
}

/**
 * True for a 2xx response whose body was read, or is held by a reader,
 * before grab got it: a custom `fetch` that returns one `Response` for
 * every call. Reading it would fail as if the network had, and be retried.
 * Any other status is a `GrabError` whatever its body, as the contract has
 * it: the status is what the server said.
 */
function reused(response: Response): boolean {
  try {
    const { status } = response;
    if (!(status >= 200 && status <= 299)) return false;
    return bodyTaken(response, isPlatformResponse(response));
  } catch {
    // A response-like whose body cannot be read: its read tells the rest.
    return false;
  }
}

/**
 * True for `Response.error()`: what a `fetch` (or a hook) hands over for a
 * network failure it did not reject with. It has status 0 and no body.
 */
export function isNetworkError(response: Response): boolean {
  try {
    return response.type === "error";
  } catch {
    // A response-like whose type cannot be read: its status says the rest.
    return false;
  }
}

/**
 * A response's status, or `undefined` when it has none to give: a
 * response-like's getter that throws, or gives no integer, on a later read.
 */
export function statusOf(response: Response): number | undefined {
  try {
    const status = response.status;
    return Number.isInteger(status) ? status : undefined;
  } catch {
    return undefined;
  }
}

/** The failure a network error response stands for. */
export function networkErrorCause(): TypeError {
  return new TypeError("The response is a network error");
}

/**
 * Response-like, also from another realm or a `fetch` polyfill. One whose
 * `status` or `headers` getter throws is not: a hook's or a `fetch`'s bug,
 * told as any other value that is no response is, never thrown past the
 * release of the response it was to replace.
 */
export function isResponse(value: unknown): value is Response {
  try {
    return Number.isInteger((value as Response | null)?.status) &&
      typeof (value as Response).headers?.get === "function";
  } catch {
    return false;
  }
}
