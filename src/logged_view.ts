/**
 * What a logged error shows (`JSON.stringify`, `console.log`, an inspector):
 * its fields, and the values the server or a schema gave, redacted of URLs'
 * queries and userinfo and kept to data.
 *
 * @module
 */

import type { GrabError, GrabTransportError } from "./errors.ts";
import { isPlainObject, ownValue } from "./object.ts";
import { loggedValue, MAX_OBJECTS, read } from "./redact.ts";

/**
 * A {@linkcode GrabError} as logs may show it; for JSON (`json`), its cause
 * and the errors in its values as plain objects.
 */
export function loggedView(
  error: GrabError,
  json = false,
): Record<string, unknown> {
  const view: Record<string, unknown> = {
    name: error.name,
    message: error.message,
    statusCode: error.statusCode,
    method: error.method,
    url: error.url,
    body: loggedValue(error.body, json),
  };
  // An error's own members only: not a key put on Object.prototype.
  const errors = ownValue(error, "errors");
  if (errors !== undefined) view.errors = loggedValue(errors, json);
  // Why `body` is `null`: a body over `maxBodyBytes`, broken off, too slow.
  const cause = ownValue(error, "cause");
  if (cause !== undefined) view.cause = loggedValue(cause, json);
  return view;
}

/**
 * A {@linkcode GrabTransportError} as logs may show it, its schema issues
 * redacted as a `GrabError`'s body is: an issue may quote the failed value.
 * For JSON (`json`), its cause as a plain object.
 */
export function transportView(
  error: GrabTransportError,
  json = false,
): Record<string, unknown> {
  const { name, message, kind, method, url } = error;
  const cause = ownValue(error, "cause");
  const issues = ownValue(error, "issues") as typeof error.issues;
  const view: Record<string, unknown> = { name, message, kind, method, url };
  if (cause !== undefined) view.cause = loggedValue(cause, json);
  if (issues !== undefined) {
    view.issues = loggedValue(plainIssues(issues), json);
  }
  return view;
}

/** The issues a redaction looks at, arktype's class as `{ message, path }`. */
function plainIssues(issues: readonly unknown[]): unknown[] | undefined {
  try {
    return issues.slice(0, MAX_OBJECTS).map((issue) =>
      isPlainObject(issue) || typeof issue !== "object" || issue === null
        ? issue
        : { message: read(issue, "message"), path: read(issue, "path") }
    );
  } catch {
    return undefined; // A Proxy whose traps throw.
  }
}
