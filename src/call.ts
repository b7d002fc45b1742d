/**
 * `Call`: the one request path. It parses the endpoint once; each exchange
 * then runs the stages of a grab in order: options resolved, request encoded,
 * the header function and the attempts within one deadline.
 *
 * @module
 */

import { attemptAll } from "./plain_attempt.ts";
import { pipeSource, type SourcePipe } from "./source_pipe.ts";
import { withCodec } from "./codec_wait.ts";
import { Deadline, PASSED } from "./deadline.ts";
import { type Endpoint, type HttpMethod, parseEndpoint } from "./endpoint.ts";
import { GrabValidationError, type ValidationIssue } from "./errors.ts";
import { asValidationError, validationError } from "./validation_error.ts";
import { passedOutcome, unloadedOutcome } from "./transport_error.ts";
import { isPlatform } from "./fetch.ts";
import { type Codec, codecFor } from "./format.ts";
import type { HeaderRecord } from "./headers.ts";
import type { SendOptions } from "./call_options.ts";
import type { ReadSettings } from "./outcome.ts";
import { headersFrom, readSettings } from "./prepare.ts";
import {
  completeHeaders,
  type EncodedRequest,
  encodeRequest,
  releasingOnFailure,
} from "./request.ts";
import { NO_FACTORY, type Resolved, resolveOptions } from "./resolve.ts";
import {
  type DataOf,
  isLive,
  type ReadAs,
  type ResponseType,
} from "./response_type.ts";
import type { ErrorBody, SendOutcome } from "./result.ts";
import type { SendFor } from "./grab_types.ts";
import { joinUrl, type UrlTemplate } from "./url.ts";
import { owns } from "./object.ts";

/** A call's URL template, for {@linkcode templateOf}; set by `Call` itself. */
let templateOfCall: (call: Call) => UrlTemplate;

/**
 * One endpoint, parsed and resolved once, sendable many times. The grab
 * callable is built on it; use it directly for the raw outcome of an exchange
 * without the tuple.
 *
 * @example
 * ```ts
 * import { Call } from "@grab/grab";
 * const call = new Call("GET /users/:id", "https://api.example.com");
 * const outcome = await call.send({ params: { id: 7 } });
 * if (outcome.ok && outcome.status === 200) console.log(outcome.body);
 * ```
 */
export class Call {
  /** The endpoint's method. */
  readonly method: HttpMethod;
  #template: UrlTemplate;

  /**
   * Parses and resolves an endpoint.
   *
   * @param endpoint `"<METHOD> <target>"`.
   * @param baseURL The base address for a relative target (path, query kept);
   * a path (`"/api"`) is resolved against the page's (or worker's) location.
   * @throws {GrabValidationError} when the endpoint is malformed, the method
   * unknown or forbidden by fetch (CONNECT, TRACE), the target relative with
   * no base address, or the URL invalid or holding credentials.
   */
  constructor(endpoint: Endpoint | string, baseURL?: string | URL) {
    const { method, target, absolute } = parseEndpoint(endpoint);
    const template = joinUrl(baseURL, target, absolute);
    const issues = Array.isArray(template) ? template : [];
    if (method === "CONNECT" || method === "TRACE") {
      const message =
        `Cannot use the method "${method}": fetch does not allow it on any runtime`;
      issues.push({ path: "", message });
    }
    if (Array.isArray(template)) throw invalid(method, undefined, issues);
    if (issues.length > 0) throw invalid(method, template.url, issues);
    this.method = method;
    this.#template = template;
  }

  /**
   * The resolved URL; `:name` segments are filled by {@linkcode Call.send}.
   * Each read gives a new copy: changing it changes neither the call nor
   * where it sends (make a new `Call` for another URL).
   *
   * @example
   * ```ts
   * import { Call } from "@grab/grab";
   * const call = new Call("GET /users/:id", "https://api.example.com/v1");
   * console.log(call.url.pathname); // "/v1/users/:id"
   * ```
   */
  get url(): URL {
    return new URL(this.#template.url.href);
  }

  /**
   * Performs one exchange: fills the URL, sends with retries, hooks and the
   * timeout, and reads the body. Resolves for every response and every
   * transport failure.
   *
   * @typeParam R The response type, which types a 2xx body; the body of
   * another status is its JSON or text, whatever the type.
   * @param options Body, headers, query, params and the exchange's settings.
   * @returns The response with its body read, or the transport error.
   * @throws {GrabValidationError} (as a rejection, before sending) when a
   * path parameter is missing, a header has CR, LF or NUL, the body cannot
   * be sent, or an option is not one `send` takes or has a value it refuses.
   *
   * @example
   * ```ts
   * import { Call } from "@grab/grab";
   * const outcome = await new Call("POST https://api.example.com/notes")
   *   .send({ body: { text: "hi" }, retry: 0 });
   * if (!outcome.ok) console.log(outcome.error.kind);
   * ```
   */
  send<R extends ResponseType | undefined = "json">(
    options?: SendFor<R> | null,
  ): Promise<SendOutcome<DataOf<ReadAs<R, "json">, unknown> | ErrorBody>>;
  /**
   * Performs one exchange with options whose `responseType` is not a
   * literal (a variable typed `SendOptions`): `body` is `unknown`.
   *
   * @param options Body, headers, query, params and the exchange's settings.
   * @returns The response with its body read, or the transport error.
   */
  send(options: Omit<SendOptions, "idleTimeout">): Promise<SendOutcome>;
  async send(options: SendOptions | null = {}): Promise<SendOutcome<unknown>> {
    const resolved = resolveOptions(NO_FACTORY, options ?? {}, true, "send");
    if (Array.isArray(resolved)) {
      throw invalid(this.method, this.#template.url, resolved);
    }
    const loading = codecFor(resolved.format);
    const loaded = loading instanceof Promise
      ? await withCodec(this.method, this.#template, resolved, loading)
      : { resolved, codec: loading };
    if (owns(loaded, "failed")) return loaded.failed;
    const { outcome, deadline } = exchange(this, loaded.resolved, loaded.codec);
    try {
      return await outcome;
    } finally {
      deadline.dispose();
    }
  }

  static {
    templateOfCall = (call) => call.#template;
  }
}

/** `call`'s URL template, not a copy: for reads that never change it. */
export function templateOf(call: Call): UrlTemplate {
  return templateOfCall(call);
}

/** An exchange under way: its outcome to come, and its running deadline. */
export interface Exchanging {
  /** Rejects only with what a hook or a callback throws. */
  outcome: Promise<SendOutcome>;
  /**
   * Still running once the outcome is in: the caller bounds what it does
   * next with it, then disposes it, however the outcome settles.
   */
  deadline: Deadline;
}

/**
 * Starts one exchange of `call` with resolved options: the request encoded
 * now, then the factory's header function and every attempt within one
 * deadline. Throws a `GrabValidationError` for a request that cannot be
 * sent, before anything is.
 */
export function exchange(
  call: Call,
  resolved: Resolved,
  codec: Codec,
): Exchanging {
  const { method } = call;
  const template = templateOf(call);
  const { url } = template;
  let request;
  try {
    request = encodeRequest(method, template, resolved, codec);
  } catch (error) {
    throw asValidationError(error, method, url);
  }
  if (Array.isArray(request)) throw invalid(method, url, request);
  // Only a body read to its end may share its timeout (a live one stops
  // the clock). A hook or a custom `fetch` sees the signal: it gets one of
  // its own, as the shared one aborts after the grab, holding listeners.
  const deadline = new Deadline(
    resolved.timeout,
    resolved.signal,
    isLive(resolved.responseType)
      ? false
      : resolved.hooks === undefined && isPlatform(resolved.fetch)
      ? "signal"
      : "timer",
    resolved.timeoutGiven,
  );
  // The common grab goes straight to its attempts. A header function is
  // waited for first, and a live body's module after it: loaded before, its
  // rejection would go unhandled when the header function fails.
  const read = resolved.headerFunction === undefined
    ? readSettings(resolved, deadline)
    : undefined;
  const outcome = read !== undefined && !(read instanceof Promise)
    ? attempt(call, resolved, request, deadline, read, undefined)
    : prepareThenAttempt(call, resolved, request, deadline, read);
  return { outcome: releasingOnFailure(outcome, request), deadline };
}

/**
 * The header function's headers, then the read settings (`reading`, when
 * already asked for), within the deadline, then the attempts. A header
 * function that outlasts the deadline is the exchange's timeout (or abort).
 */
async function prepareThenAttempt(
  call: Call,
  resolved: Resolved,
  request: EncodedRequest,
  deadline: Deadline,
  reading: Promise<ReadSettings> | undefined,
): Promise<SendOutcome> {
  try {
    const headers = resolved.headerFunction === undefined
      ? undefined
      : await headersFrom(resolved, deadline, call.method, request);
    let read = reading ?? readSettings(resolved, deadline);
    if (read instanceof Promise) {
      try {
        read = await read;
      } catch (error) {
        // A module that cannot be loaded (a bundle's chunk not fetched)
        // fails as the network would; the next grab loads it again.
        if (error === PASSED) throw error;
        const what = "the module of live bodies and blobs";
        return unloadedOutcome(what, call.method, request.href, error);
      }
    }
    // Time the caller's code kept the loop busy meanwhile fired no timer.
    if (deadline.due()) throw PASSED;
    return await attempt(call, resolved, request, deadline, read, headers);
  } catch (error) {
    if (error !== PASSED) throw error;
    return passedOutcome(deadline, call.method, request.href);
  }
}

/** Every attempt of the request, its headers completed. */
function attempt(
  call: Call,
  resolved: Resolved,
  request: EncodedRequest,
  deadline: Deadline,
  read: ReadSettings,
  fromFunction: HeaderRecord | undefined,
): Promise<SendOutcome> {
  completeHeaders(request, fromFunction);
  let source: SourcePipe | undefined;
  if (!request.replayable) {
    // A stream body goes through grab's own, which a failed grab cancels.
    const piped = pipeSource(call.method, request.href, request.init);
    if (piped instanceof GrabValidationError) return Promise.reject(piped);
    source = request.source = piped;
  }
  if (deadline.signal !== undefined) request.init.signal = deadline.signal;
  return attemptAll({
    method: call.method,
    href: request.href,
    init: request.init,
    replayable: request.replayable,
    source,
    hooks: resolved.hooks,
    fetch: resolved.fetch,
    policy: resolved.retry,
    maxBodyBytes: resolved.maxBodyBytes,
    deadline,
    attemptTimeout: resolved.attemptTimeout,
    read,
    onUploadProgress: resolved.onUploadProgress,
  });
}

function invalid(
  method: string,
  url: URL | undefined,
  issues: ValidationIssue[],
): GrabValidationError {
  return url === undefined
    ? validationError(issues)
    : validationError(issues, { method, url, where: "the request" });
}
