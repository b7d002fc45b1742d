/**
 * `Call`: the one request path. It parses the endpoint once; `send` performs
 * one exchange (attempts, retries, hooks, timeout) and reads the body.
 *
 * @module
 */

import { cancelBody, encodeBody, readBody, TOO_LARGE } from "./body.ts";
import { type Endpoint, type HttpMethod, parseEndpoint } from "./endpoint.ts";
import {
  GrabTransportError,
  GrabValidationError,
  redactCause,
  requestError,
  safeUrl,
  type TransportErrorKind,
  transportErrorMessage,
  type ValidationIssue,
} from "./errors.ts";
import { type HeaderRecord, mergeHeaders } from "./headers.ts";
import type { Hooks } from "./hooks.ts";
import { mediaType } from "./jsonapi/media_type.ts";
import {
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_TIMEOUT,
  type SendOptions,
} from "./options.ts";
import { serialiseQuery } from "./query.ts";
import type { SendOutcome } from "./result.ts";
import {
  parseRetryAfter,
  resolveRetry,
  retryDelay,
  type RetryPolicy,
} from "./retry.ts";
import { fillUrl, joinUrl, type UrlTemplate } from "./url.ts";

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
  /** The resolved URL; `:name` segments are filled by {@linkcode Call.send}. */
  readonly url: URL;
  #template: UrlTemplate;

  /**
   * Parses and resolves an endpoint.
   *
   * @param endpoint `"<METHOD> <target>"`.
   * @param baseURL The base address for a relative target; its path is kept.
   * @throws {GrabValidationError} when the endpoint is malformed, the method
   * unknown or forbidden by fetch (CONNECT, TRACE), the target relative with
   * no base address, or the URL invalid or holding credentials.
   */
  constructor(endpoint: Endpoint | string, baseURL?: string | URL) {
    const { method, target, absolute } = parseEndpoint(endpoint);
    const template = joinUrl(baseURL, target, absolute);
    if (Array.isArray(template)) throw invalid(method, undefined, template);
    if (method === "CONNECT" || method === "TRACE") {
      throw invalid(method, template.url, [{
        path: "",
        message:
          `Cannot use the method "${method}": fetch does not allow it on any runtime`,
      }]);
    }
    this.method = method;
    this.url = template.url;
    this.#template = template;
  }

  /**
   * Performs one exchange: fills the URL, sends with retries, hooks and the
   * timeout, and reads the body. Resolves for every response and every
   * transport failure.
   *
   * @param options Body, headers, query, params and the exchange's settings.
   * @returns The response with its body read, or the transport error.
   * @throws {GrabValidationError} (as a rejection, before sending) when a
   * path parameter is missing, a header has CR, LF or NUL, or the body cannot
   * be sent.
   *
   * @example
   * ```ts
   * import { Call } from "@grab/grab";
   * const outcome = await new Call("POST https://api.example.com/notes")
   *   .send({ body: { text: "hi" }, retry: 0 });
   * if (!outcome.ok) console.log(outcome.error.kind);
   * ```
   */
  send(options: SendOptions = {}): Promise<SendOutcome> {
    let exchange: Exchange;
    try {
      exchange = this.#prepare(options);
    } catch (error) {
      return Promise.reject(error);
    }
    return run(exchange);
  }

  #prepare(options: SendOptions): Exchange {
    const method = this.method;
    const format = options.format ?? "json";
    let issues = NO_ISSUES;
    const query = options.query === undefined ? "" : serialiseQuery(
      options.query,
      new URLSearchParams(),
      { format },
    ).toString();
    const href = fillUrl(this.#template, options.params, query);
    if (typeof href !== "string") issues = issues.concat(href);
    const headers: HeaderRecord = {};
    const headerIssues = mergeHeaders(headers, options.headers);
    if (headerIssues.length > 0) issues = issues.concat(headerIssues);
    const encoded = encodeBody(options.body);
    if (Array.isArray(encoded)) {
      issues = issues.concat(encoded);
    } else if (
      encoded.body !== undefined && (method === "GET" || method === "HEAD")
    ) {
      issues = issues.concat({
        path: "",
        message: `Cannot send a body with ${method}: fetch does not allow it`,
      });
    }
    if (
      issues.length > 0 || typeof href !== "string" || Array.isArray(encoded)
    ) {
      throw invalid(method, this.url, issues);
    }
    const jsonApi = format === "json-api";
    if (!jsonApi || options.jsonApi?.headers !== false) {
      const type = jsonApi
        ? mediaType(options.jsonApi ?? {})
        : "application/json";
      if (headers["accept"] === undefined) headers["accept"] = type;
      if (encoded.json && headers["content-type"] === undefined) {
        headers["content-type"] = type;
      }
    }
    const init: RequestInit & { duplex?: "half" } = { method, headers };
    const body = encoded.body;
    const stream = body instanceof ReadableStream;
    if (body !== undefined) init.body = body;
    if (stream) init.duplex = "half";
    if (options.redirect !== undefined) init.redirect = options.redirect;
    if (options.credentials !== undefined) {
      init.credentials = options.credentials;
    }
    return {
      method,
      href,
      init,
      stream,
      signal: options.signal,
      timeout: options.timeout ?? DEFAULT_TIMEOUT,
      policy: resolveRetry(options.retry),
      hooks: options.hooks,
      fetch: options.fetch ?? globalThis.fetch,
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    };
  }
}

const NO_ISSUES: ValidationIssue[] = [];

/** Everything one exchange needs, decided before the first attempt. */
interface Exchange {
  method: HttpMethod;
  href: string;
  init: RequestInit;
  stream: boolean;
  signal: AbortSignal | undefined;
  timeout: number | false;
  policy: RetryPolicy;
  hooks: Hooks | undefined;
  fetch: (input: Request | string, init?: RequestInit) => Promise<Response>;
  maxBodyBytes: number;
}

function invalid(
  method: string,
  url: URL | undefined,
  issues: ValidationIssue[],
): GrabValidationError {
  return url === undefined
    ? new GrabValidationError(issues[0]!.message, issues)
    : requestError(method, url, issues, "the request");
}

/** Why our own controller aborted, once it has. */
interface AbortState {
  reason: "timeout" | "abort" | undefined;
}

/** An attempt that failed in a way the policy retries. */
interface Retry {
  retry: true;
  request: Request | undefined;
  delay: number;
  error: GrabTransportError | undefined;
  statusCode: number | undefined;
}

async function run(exchange: Exchange): Promise<SendOutcome> {
  const { init, policy, hooks, signal: userSignal } = exchange;
  if (userSignal?.aborted) {
    return failure(exchange, "abort", userSignal.reason);
  }
  const state: AbortState = { reason: undefined };
  let controller: AbortController | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const timeout = exchange.timeout;
  if (timeout !== false || userSignal !== undefined) {
    const own = new AbortController();
    controller = own;
    init.signal = own.signal;
    if (timeout !== false && timeout !== Infinity) {
      timer = setTimeout(() => {
        state.reason = "timeout";
        own.abort(new DOMException("The timeout passed", "TimeoutError"));
      }, timeout);
    }
    if (userSignal !== undefined) {
      onAbort = () => {
        state.reason ??= "abort";
        own.abort(userSignal.reason);
      };
      userSignal.addEventListener("abort", onAbort, { once: true });
    }
  }
  const deadline = timeout === false ? Infinity : Date.now() + timeout;
  try {
    for (let attempt = 0;; attempt++) {
      const retryable = attempt < policy.limit && !exchange.stream &&
        policy.methods.has(exchange.method);
      const step = await attemptOnce(
        exchange,
        state,
        controller,
        retryable ? attempt + 1 : 0,
        deadline,
      );
      if (!("retry" in step)) return step;
      if (hooks?.beforeRetry) {
        await hooks.beforeRetry({
          request: step.request ?? new Request(exchange.href, init),
          attempt: attempt + 1,
          error: step.error,
          statusCode: step.statusCode,
          delay: step.delay,
        });
      }
      if (!(await sleep(step.delay, controller?.signal))) {
        return failure(
          exchange,
          state.reason ?? "abort",
          controller?.signal.reason,
        );
      }
    }
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    if (onAbort !== undefined) {
      userSignal!.removeEventListener("abort", onAbort);
    }
  }
}

/**
 * One attempt: send, run the response hook, read the body. `retry` is the
 * number of the retry that may follow, or 0 when none may.
 */
async function attemptOnce(
  exchange: Exchange,
  state: AbortState,
  controller: AbortController | undefined,
  retry: number,
  deadline: number,
): Promise<SendOutcome | Retry> {
  // Called as a plain function: browsers and workerd refuse a fetch whose
  // `this` is another object ("Illegal invocation").
  const { href, init, hooks, policy, fetch } = exchange;
  let request: Request | undefined;
  if (hooks !== undefined) {
    request = new Request(href, init);
    if (hooks.beforeRequest) {
      request = (await hooks.beforeRequest(request)) ?? request;
    }
  }
  const networkFailure = (cause: unknown): SendOutcome | Retry => {
    const kind = state.reason ?? "network";
    const outcome = failure(exchange, kind, cause);
    if (kind !== "network" || retry === 0 || outcome.ok) return outcome;
    const delay = retryDelay(retry, policy);
    return {
      retry: true,
      request,
      delay,
      error: outcome.error,
      statusCode: undefined,
    };
  };

  // afterResponse gets the request unsent, so it can build a repeat of it
  // (a token refresh) even when the request has a body.
  const sent = request !== undefined && hooks?.afterResponse &&
      request.body !== null
    ? request.clone()
    : request;
  let response: Response;
  try {
    response = await (sent === undefined
      ? fetch(href, init)
      : controller === undefined
      ? fetch(sent)
      : fetch(sent, { signal: controller.signal }));
  } catch (cause) {
    return networkFailure(cause);
  }

  if (hooks?.afterResponse) {
    let replaced: Response | void;
    try {
      replaced = await hooks.afterResponse(request!, response);
    } catch (error) {
      await cancelBody(response);
      throw error;
    }
    if (replaced && replaced !== response) {
      await cancelBody(response);
      response = replaced;
    }
    if (response.bodyUsed) {
      // The hook's bug, not the network's: reading it again cannot work.
      throw new TypeError(
        "Cannot read the response: an afterResponse hook used its body; return a new Response or read a clone",
      );
    }
  }

  const status = response.status;
  if (retry !== 0 && policy.statusCodes.has(status)) {
    const delay = nextDelay(retry, response, policy, deadline);
    if (delay !== undefined) {
      await cancelBody(response);
      return {
        retry: true,
        request,
        delay,
        error: undefined,
        statusCode: status,
      };
    }
  }

  const ok = status >= 200 && status < 300;
  let text: string | null | typeof TOO_LARGE;
  try {
    text = await readBody(response, exchange.method, exchange.maxBodyBytes);
  } catch (cause) {
    // A 2xx body that breaks off is a network failure; a non-2xx response
    // stays an HTTP error, with no body.
    if (ok || state.reason !== undefined) return networkFailure(cause);
    text = null;
  }
  if (text === TOO_LARGE) {
    if (ok) return failure(exchange, "too-large");
    text = null;
  }
  let body: unknown = null;
  if (text !== null) {
    if (ok) {
      try {
        body = JSON.parse(text);
      } catch (cause) {
        return failure(exchange, "parse", cause);
      }
    } else {
      body = parseLoose(text);
    }
  }
  return {
    ok: true,
    status,
    statusText: response.statusText,
    url: response.url || href,
    headers: response.headers,
    body,
    empty: text === null,
  };
}

function failure(
  exchange: Exchange,
  kind: TransportErrorKind,
  cause?: unknown,
): SendOutcome {
  const url = safeUrl(exchange.href);
  const method = exchange.method;
  return {
    ok: false,
    error: new GrabTransportError(
      transportErrorMessage(kind, method, url),
      { kind, method, url, cause: redactCause(cause, exchange.href) },
    ),
  };
}

/** The wait before a retry, or `undefined` when `Retry-After` asks too much. */
function nextDelay(
  attempt: number,
  response: Response,
  policy: RetryPolicy,
  deadline: number,
): number | undefined {
  const now = Date.now();
  const asked = parseRetryAfter(response.headers.get("retry-after"), now);
  if (asked === undefined) return retryDelay(attempt, policy);
  if (asked > policy.maxDelay || now + asked >= deadline) return undefined;
  return asked;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function parseLoose(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
