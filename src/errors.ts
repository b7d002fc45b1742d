/**
 * The three error classes and the functions that build their messages.
 * Messages never contain URL userinfo, query strings or header values.
 *
 * @module
 */

import type { JsonApiError } from "./jsonapi/types.ts";

/**
 * One problem found before a request was sent.
 *
 * @example Reading the issues of a validation error
 * ```ts
 * import { isGrabValidationError, type ValidationIssue } from "@grab/grab";
 * function show(error: unknown): ValidationIssue[] {
 *   return isGrabValidationError(error) ? error.issues : [];
 * }
 * ```
 */
export interface ValidationIssue {
  /** JSON pointer into the caller's body as written (`/author/id`), or `""` for the endpoint and options. */
  path: string;
  /** What could not be done, and the value that stopped it. */
  message: string;
}

/**
 * What went wrong for a {@linkcode GrabTransportError}.
 *
 * - `"network"`: the connection failed, or the body broke off while reading
 * - `"abort"`: the caller's `signal` aborted
 * - `"timeout"`: the `timeout` passed
 * - `"parse"`: a 2xx body was not the expected JSON (or JSON:API document)
 * - `"too-large"`: the body was over `maxBodyBytes`
 * - `"schema"`: the body failed the `schema`
 *
 * @example Branching on the kind
 * ```ts
 * import type { TransportErrorKind } from "@grab/grab";
 * const retryable = (kind: TransportErrorKind) => kind === "network";
 * ```
 */
export type TransportErrorKind =
  | "network"
  | "abort"
  | "timeout"
  | "parse"
  | "too-large"
  | "schema";

/** Options of {@linkcode GrabError}'s constructor. */
export interface GrabErrorOptions extends ErrorOptions {
  /** HTTP status. */
  statusCode: number;
  /** Parsed JSON body, text, or `null`. */
  body: unknown;
  /** Response headers. */
  headers: Headers;
  /** Request method. */
  method: string;
  /** Request URL; userinfo and query are removed. */
  url: string;
  /** JSON:API errors, when the body is an error document. */
  errors?: JsonApiError[] | undefined;
}

/**
 * A response arrived with a status outside 2xx.
 *
 * The message is the JSON:API errors' `detail ?? title` joined with `"; "`,
 * or `"<status> <statusText>: <METHOD> <origin+path>"`.
 *
 * @example Reading an HTTP error
 * ```ts
 * import createGrab from "@grab/grab";
 * const grab = createGrab("https://api.example.com");
 * const [, error] = await grab("GET /users/1");
 * if (error?.name === "GrabError") console.log(error.statusCode, error.body);
 * ```
 */
export class GrabError extends Error {
  /** Always `"GrabError"`. */
  override readonly name = "GrabError" as const;
  /** HTTP status. */
  readonly statusCode: number;
  /** Parsed JSON body, text for a non-JSON body, `null` for an empty one. */
  readonly body: unknown;
  /** JSON:API errors; present only when the body is a JSON:API error document. */
  declare readonly errors?: JsonApiError[];
  /** Response headers. */
  readonly headers: Headers;
  /** Request method. */
  readonly method: string;
  /** Request URL without userinfo or query. */
  readonly url: string;

  /**
   * Builds an HTTP error.
   *
   * @param message The message.
   * @param options Status, body, headers and request context.
   */
  constructor(message: string, options: GrabErrorOptions) {
    super(message, options.cause === undefined ? undefined : options);
    this.statusCode = options.statusCode;
    this.body = options.body;
    if (options.errors !== undefined) this.errors = options.errors;
    this.headers = options.headers;
    this.method = options.method;
    this.url = options.url;
  }
}

/** Options of {@linkcode GrabTransportError}'s constructor. */
export interface GrabTransportErrorOptions extends ErrorOptions {
  /** What went wrong. */
  kind: TransportErrorKind;
  /** Request method. */
  method: string;
  /** Request URL; userinfo and query are removed. */
  url: string;
  /** Schema issues, for kind `"schema"`. */
  issues?: readonly unknown[] | undefined;
}

/**
 * No usable response: network failure, abort, timeout, unparseable or
 * oversized body, or a body failing the `schema`.
 *
 * @example Telling a timeout from a network failure
 * ```ts
 * import createGrab, { isGrabTransportError } from "@grab/grab";
 * const grab = createGrab("https://api.example.com");
 * const [, error] = await grab("GET /slow", { timeout: 1000 });
 * if (isGrabTransportError(error) && error.kind === "timeout") {
 *   console.log("gave up after 1 s");
 * }
 * ```
 */
export class GrabTransportError extends Error {
  /** Always `"GrabTransportError"`. */
  override readonly name = "GrabTransportError" as const;
  /** What went wrong. */
  readonly kind: TransportErrorKind;
  /** Request method. */
  readonly method: string;
  /** Request URL without userinfo or query. */
  readonly url: string;
  /** The schema's issues, for kind `"schema"`. */
  declare readonly issues?: readonly unknown[];

  /**
   * Builds a transport error.
   *
   * @param message The message.
   * @param options Kind, request context, and the cause.
   */
  constructor(message: string, options: GrabTransportErrorOptions) {
    super(message, options.cause === undefined ? undefined : options);
    this.kind = options.kind;
    this.method = options.method;
    this.url = options.url;
    if (options.issues !== undefined) this.issues = options.issues;
  }
}

/**
 * The caller's input is wrong; raised before any request is sent, never
 * returned in the tuple.
 *
 * @example Catching a bad write body
 * ```ts
 * import createGrab, { isGrabValidationError } from "@grab/grab";
 * const grab = createGrab("https://api.example.com", { format: "json-api" });
 * try {
 *   await grab("POST /articles", { body: { title: "no type" } });
 * } catch (error) {
 *   if (isGrabValidationError(error)) console.log(error.issues);
 * }
 * ```
 */
export class GrabValidationError extends Error {
  /** Always `"GrabValidationError"`. */
  override readonly name = "GrabValidationError" as const;
  /** Every problem found. */
  readonly issues: ValidationIssue[];

  /**
   * Builds a validation error.
   *
   * @param message A summary.
   * @param issues Every problem found.
   * @param options Standard error options.
   */
  constructor(
    message: string,
    issues: ValidationIssue[],
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.issues = issues;
  }
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

/** `"<status> <statusText>: <METHOD> <origin+path>"`. */
export function httpErrorMessage(
  status: number,
  statusText: string,
  method: string,
  url: string,
): string {
  const head = statusText === "" ? `${status}` : `${status} ${statusText}`;
  return `${head}: ${method} ${url}`;
}

const TRANSPORT_MESSAGES: Record<TransportErrorKind, string> = {
  network: "Cannot complete the request: the network failed",
  abort: "Cannot complete the request: it was aborted",
  timeout: "Cannot complete the request: the timeout passed",
  parse: "Cannot read the response: the body is not valid JSON",
  "too-large": "Cannot read the response: the body is over maxBodyBytes",
  schema: "Cannot accept the response: the body fails the schema",
};

/** The message of a transport error, with the request named safely. */
export function transportErrorMessage(
  kind: TransportErrorKind,
  method: string,
  url: string,
  detail?: string,
): string {
  const base = TRANSPORT_MESSAGES[kind];
  return `${base}${
    detail === undefined ? "" : ` (${detail})`
  }: ${method} ${url}`;
}

/**
 * A validation error for a request: the summary names the method and the
 * URL (origin and path only) and counts the problems, which carry the detail.
 */
export function requestError(
  method: string,
  url: URL | string,
  issues: ValidationIssue[],
  where: string,
): GrabValidationError {
  const count = issues.length === 1 ? "1 problem" : `${issues.length} problems`;
  const detail = issues.map((issue) => issue.message).join("; ");
  return new GrabValidationError(
    `Cannot send ${method} ${safeUrl(url)}: ${count} in ${where} (${detail})`,
    issues,
  );
}

/**
 * Anything thrown while a request is prepared, as the validation error it
 * is: a `GrabValidationError` as it is, anything else (a getter or `toJSON`
 * of the caller's that threw) wrapped, never a raw `TypeError`.
 */
export function asValidationError(
  error: unknown,
  method: string,
  url: URL | string,
): GrabValidationError {
  if (error instanceof GrabValidationError) return error;
  const why = error instanceof Error ? error.message : String(error);
  return requestError(
    method,
    url,
    [{ path: "", message: `Cannot prepare the request: ${why}` }],
    "the request",
  );
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
      scheme + rest + (query === undefined || query === "?" ? "" : "?…"),
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
  if (!(cause instanceof Error) || depth > 8) return cause;
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
