/**
 * The shapes the error classes are built from: the issues of a validation
 * error, the kinds of a transport error, and each class's constructor
 * options.
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
 * - `"timeout"`: the `timeout` passed, or an `attemptTimeout` that no retry
 *   followed, or a live body's `idleTimeout`
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

/** What a transport error says beyond its kind. */
export interface TransportExtra {
  cause?: unknown;
  /** Added to the message, in parentheses. */
  detail?: string | undefined;
  /** The message in place of the kind's own. */
  message?: string | undefined;
  issues?: readonly unknown[];
  /** The request's headers, whose credentials the issues' detail leaves out. */
  // Not `HeadersInit`: only the DOM library declares it.
  sent?: NonNullable<RequestInit["headers"]> | undefined;
}
