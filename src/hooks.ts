/**
 * Hooks around each attempt, and how factory and call hooks combine.
 *
 * @module
 */

import type { Deadline } from "./deadline.ts";
import type { GrabTransportError } from "./errors.ts";

/** The members of {@linkcode Hooks}. */
export const HOOK_NAMES = [
  "beforeRequest",
  "afterResponse",
  "beforeRetry",
] as const;

/**
 * Functions called around each attempt. Factory hooks run first, then the
 * call's; like its headers, a factory's hooks run only for its base origin
 * and `trustedOrigins` (for every request without a base address). A hook
 * that throws is a bug in the caller's code, not a transport failure: the
 * grab's promise rejects with that error unchanged, after the response body
 * is cancelled and the timer cleared. A hook that returns anything but
 * nothing or a `Request` (`beforeRequest`) or a `Response` (`afterResponse`)
 * rejects it with a `TypeError`.
 *
 * @example Refreshing a token and repeating the request
 * ```ts
 * import createGrab, { type Hooks } from "@grab/grab";
 * let token = "old";
 * const refresh = async () => (token = "new");
 * const hooks: Hooks = {
 *   beforeRequest(request) {
 *     request.headers.set("authorization", `Bearer ${token}`);
 *   },
 *   async afterResponse(request, response) {
 *     if (response.status !== 401) return;
 *     await response.body?.cancel();
 *     await refresh();
 *     const again = new Request(request);
 *     again.headers.set("authorization", `Bearer ${token}`);
 *     return fetch(again);
 *   },
 * };
 * const grab = createGrab("https://api.example.com", { hooks });
 * ```
 */
export interface Hooks {
  /**
   * Called before each attempt with the request about to be sent. Return a
   * `Request` to send that one instead; sent to another URL, it is that URL
   * a `GrabError` names, as after a redirect. A hook that reads the body must
   * return a replacement (or read a `clone()`): a request left with a body
   * used or locked by a reader cannot be sent, and rejects the grab with a
   * `TypeError`. A request it replaced is let go once the one it returned is
   * sent: a stream body that one does not carry is cancelled.
   * A replacement for another origin carries what it was made with
   * (`new Request(url, request)` copies the factory's headers); a factory's
   * `afterResponse` and `beforeRetry` are not called for it unless that
   * origin is trusted or the factory's own `beforeRequest` chose it.
   * @default {undefined}
   *
   * @example A request ID on every attempt
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com", {
   *   hooks: { beforeRequest: (request) => request.headers.set("x-request-id", crypto.randomUUID()) },
   * });
   * ```
   */
  beforeRequest?:
    | ((request: Request) => Request | void | Promise<Request | void>)
    | undefined;
  /**
   * Called with each response, before it is retried or read. Return a
   * `Response` to use that one instead (a `clone()`, or one made of the
   * original's body with other headers, works too); the original body is
   * then cancelled unless the hook read it or the replacement carries it.
   * A hook that reads the body must return a replacement (or read a
   * `clone()`): leaving a body used or locked by a reader, or returning
   * one, rejects the grab with a `TypeError`.
   * A replacement without a URL of its own (`new Response(...)` has `""`)
   * is given the `url` and `redirected` of the response it replaced, as it
   * answers the same request: a `GrabError` and a relative `next` link read
   * where that was answered, after its redirects.
   * The request is unsent, its body there to send again, unless the body
   * was a stream: grab keeps no copy of a stream upload, so that request's
   * body is used.
   * @default {undefined}
   *
   * @example Warning about deprecated endpoints
   * ```ts
   * import createGrab from "@grab/grab";
   * const warnIfDeprecated = (request: Request, response: Response) => {
   *   if (response.headers.has("deprecation")) console.warn(`${request.url} is deprecated`);
   * };
   * const grab = createGrab("https://api.example.com", { hooks: { afterResponse: warnIfDeprecated } });
   * ```
   */
  afterResponse?:
    | ((
      request: Request,
      response: Response,
    ) => Response | void | Promise<Response | void>)
    | undefined;
  /**
   * Called before waiting for a retry. `attempt` is the number of the retry
   * about to happen (1 for the first); `error` is set after a network failure
   * (its message that attempt's alone, without the count of attempts the
   * last failure gives), `statusCode` after a retryable status; `delay` is the
   * wait in milliseconds.
   * `request` is the attempt that failed, to look at, unsent as
   * `afterResponse` has it (its body there to read): the retry is made
   * afresh, so a change to it is not sent; change each attempt in
   * `beforeRequest`, which runs before every one.
   * @default {undefined}
   *
   * @example Logging each retry
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com", {
   *   hooks: { beforeRetry: ({ attempt, delay }) => console.warn(`Retry ${attempt} in ${delay} ms`) },
   * });
   * ```
   */
  beforeRetry?:
    | ((info: {
      request: Request;
      attempt: number;
      error: GrabTransportError | undefined;
      statusCode: number | undefined;
      delay: number;
    }) => void | Promise<void>)
    | undefined;
}

/**
 * Hooks that {@linkcode combineHooks} chained: each takes the deadline as
 * its last argument, to hold each hook of the chain to it and release a
 * replacement an earlier hook made when a later one outlasts it.
 */
const CHAINS = new WeakSet<object>();

/** Marks a function that runs a chain of hooks; see `CHAINS`. */
export function markChain<T extends object>(hook: T): T {
  CHAINS.add(hook);
  return hook;
}

/**
 * Calls a hook with `args`; a chain of hooks (see `CHAINS`) gets the
 * deadline after them, to hold each of its hooks to it.
 */
export function callHook<A extends unknown[], R>(
  hook: (...args: A) => R,
  deadline: Deadline | undefined,
  ...args: A
): R {
  if (deadline === undefined || !CHAINS.has(hook)) return hook(...args);
  return (hook as unknown as (...args: [...A, Deadline]) => R)(
    ...args,
    deadline,
  );
}

/**
 * Request-like, also from another realm: what `fetch` takes for a request
 * (a plain object with a `url` it would take for a URL to parse). This
 * realm's by its class too: a Cloudflare Worker of a compatibility date
 * before 2022 gives its classes no `Symbol.toStringTag`, so its own
 * `Request` says `"[object Object]"`.
 */
export function isRequest(value: unknown): value is Request {
  return (value instanceof Request ||
    Object.prototype.toString.call(value) === "[object Request]") &&
    typeof (value as Request).url === "string" &&
    typeof (value as Request).clone === "function";
}

/** Cancels the body of a request no attempt will send. */
export function releaseRequest(request: Request | void): void {
  let body: ReadableStream | null | undefined;
  try {
    body = isRequest(request) ? request.body : undefined;
  } catch {
    return;
  }
  if (body && !body.locked) body.cancel().catch(() => {});
}

/**
 * Throws when `fetch` refused a request because a `beforeRequest` hook left
 * its body locked by a reader it never read from: the hook's bug, not a
 * network failure to retry. Asked only once `fetch` has failed, as reading
 * `body` before would have Deno send a body of bytes chunked.
 */
export function refuseLockedBody(request: Request): void {
  let locked = false;
  try {
    locked = !request.bodyUsed && request.body?.locked === true;
  } catch {
    // A request-like whose body cannot be read: nothing to tell by.
  }
  if (!locked) return;
  throw new TypeError(
    "Cannot send the request: a beforeRequest hook left its body locked by a reader; read a clone() or return a new Request",
  );
}

/** What a hook returned instead of a `Request` or a `Response`. */
export function notA(what: string, hook: string): TypeError {
  return new TypeError(
    `Cannot use what the ${hook} hook returned: it is not a ${what}`,
  );
}
