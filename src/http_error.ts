/**
 * The {@linkcode GrabError} of a response with a status outside 2xx.
 *
 * @module
 */

import { GrabError } from "./errors.ts";
import type { JsonApiError } from "./jsonapi/types.ts";
import { redactUrls, safeUrl } from "./redact.ts";

/** `"<status> <statusText>: <METHOD> <origin+path>"`. */
export function httpErrorMessage(
  status: number,
  statusText: string,
  method: string,
  url: string,
): string {
  // A reason phrase is the server's, or a hook's: it may quote a URL too.
  const head = statusText === ""
    ? `${status}`
    : `${status} ${redactUrls(statusText)}`;
  return `${head}: ${method} ${url}`;
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
 * `detail ?? title` when given, else `"<status> <statusText>: <METHOD> <url>"`.
 */
export function httpError(
  method: string,
  response: HttpErrorInit,
  errors: JsonApiError[] | undefined,
  message: string | undefined,
): GrabError {
  const url = safeUrl(response.url);
  // A server's error detail often quotes the request's URL, token and all.
  return new GrabError(
    message === undefined
      ? httpErrorMessage(response.status, response.statusText, method, url)
      : redactUrls(message),
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
