/**
 * `Call`: the one request path. It parses the endpoint once; `send` performs
 * one exchange (attempts, retries, hooks, timeout) and reads the body.
 *
 * @module
 */

import { type Exchange, runAttempts } from "./attempts.ts";
import { encodeBody } from "./body.ts";
import { Deadline } from "./deadline.ts";
import { type Endpoint, type HttpMethod, parseEndpoint } from "./endpoint.ts";
import {
  asValidationError,
  GrabValidationError,
  requestError,
  type ValidationIssue,
} from "./errors.ts";
import { type HeaderRecord, mergeHeaders } from "./headers.ts";
import { mediaType } from "./jsonapi/media_type.ts";
import {
  checkOptions,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_TIMEOUT,
  isSet,
  type SendOptions,
} from "./options.ts";
import { serialiseQuery } from "./query.ts";
import type { SendOutcome } from "./result.ts";
import { resolveRetry } from "./retry.ts";
import { fillUrl, joinUrl, type UrlTemplate } from "./url.ts";

/**
 * Sends `call` with options already checked, within a deadline that started
 * before (the grab callable starts it before calling a header function).
 */
export let sendWithin: (
  call: Call,
  options: SendOptions,
  deadline: Deadline,
) => Promise<SendOutcome>;

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
    const given = options ?? {};
    const issues = checkOptions(given);
    if (issues.length > 0) {
      return Promise.reject(invalid(this.method, this.url, issues));
    }
    return this.#send(given, startDeadline(given));
  }

  static {
    sendWithin = (call, options, deadline) => call.#send(options, deadline);
  }

  #send(options: SendOptions, deadline: Deadline): Promise<SendOutcome> {
    let exchange: Exchange;
    try {
      exchange = this.#prepare(options, deadline);
    } catch (error) {
      deadline.dispose();
      return Promise.reject(asValidationError(error, this.method, this.url));
    }
    return runAttempts(exchange);
  }

  #prepare(options: SendOptions, deadline: Deadline): Exchange {
    const method = this.method;
    const format = options.format ?? "json";
    let issues = NO_ISSUES;
    const query = !isSet(options.query) ? "" : serialiseQuery(
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
    if (deadline.signal !== undefined) init.signal = deadline.signal;
    if (isSet(options.redirect)) init.redirect = options.redirect;
    if (isSet(options.credentials)) init.credentials = options.credentials;
    const fetch = options.fetch ?? globalThis.fetch;
    return {
      method,
      href,
      init,
      replayable: !stream,
      hooks: options.hooks ?? undefined,
      fetch,
      policy: resolveRetry(options.retry ?? undefined),
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      deadline,
    };
  }
}

/** The deadline of options already checked. */
export function startDeadline(
  options: Pick<SendOptions, "timeout" | "signal">,
): Deadline {
  return new Deadline(
    options.timeout ?? DEFAULT_TIMEOUT,
    options.signal ?? undefined,
  );
}

const NO_ISSUES: ValidationIssue[] = [];

function invalid(
  method: string,
  url: URL | undefined,
  issues: ValidationIssue[],
): GrabValidationError {
  return url === undefined
    ? new GrabValidationError(issues[0]!.message, issues)
    : requestError(method, url, issues, "the request");
}
