/**
 * The builders of {@linkcode GrabValidationError}s: the request named by
 * origin and path only, every issue's message redacted of URLs' queries and
 * userinfo.
 *
 * @module
 */

import { GrabValidationError, type ValidationIssue } from "./errors.ts";
import { namedUrl, quoted } from "./http_error.ts";
import { redactCause, safeUrl } from "./redact.ts";
import { quoting, reasonOf, thrownBy } from "./thrown.ts";
import { owns } from "./object.ts";

/** The request a validation error is about, and where in it the problems are. */
export interface RequestContext {
  method: string;
  url: URL | string;
  /** `"the request"`, `"the options"`, `"the headers"`. */
  where: string;
}

/** What could not be done, when it is no request, and where the problems are. */
export interface ActionContext {
  /** `"Cannot create the grab"`. */
  action: string;
  /** `"the options"`. */
  where: string;
}

/** Where `createGrab` refuses its arguments. */
export const CREATING: ActionContext = Object.freeze({
  action: "Cannot create the grab",
  where: "the options",
});

/**
 * Builds a {@linkcode GrabValidationError}. With a context, the summary
 * says what could not be done (a request by its method and URL, origin and
 * path only), counts the problems and says where they are, the issues'
 * messages after it; without one, the message is the issues' own.
 */
export function validationError(
  found: ValidationIssue[],
  context?: RequestContext | ActionContext,
): GrabValidationError {
  // An issue may quote the caller's own error (a toJSON or getter that
  // threw), which may quote a URL with a token, or a key or option name of
  // a megabyte: the issue is shown to users, its `path` keeps the key.
  const issues = found.map((issue) => {
    const message = quoted(issue.message);
    return message === issue.message ? issue : { ...issue, message };
  });
  // A body may hold 10,000 values JSON cannot carry: the message counts
  // them and quotes as many as fit; `issues` lists every one.
  const detail = quoted(issues.map((issue) => issue.message).join("; "));
  // The caller's own exception, its stack and all, redacted as its message.
  const thrown = thrownBy(found);
  const options = thrown && { cause: redactCause(thrown.cause) };
  if (context === undefined) {
    return new GrabValidationError(detail, issues, options);
  }
  const count = issues.length === 1 ? "1 problem" : `${issues.length} problems`;
  const action = owns(context, "action")
    ? context.action
    : `Cannot send ${context.method} ${namedUrl(safeUrl(context.url))}`;
  return new GrabValidationError(
    `${action}: ${count} in ${context.where} (${detail})`,
    issues,
    options,
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
  const message = `Cannot prepare the request: ${reasonOf(error)}`;
  return validationError([quoting({ path: "", message }, error)], {
    method,
    url,
    where: "the request",
  });
}
