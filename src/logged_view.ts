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
    const plain = plainIssues(issues);
    view.issues = counted(loggedValue(plain, json), plain, issues);
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

/**
 * `shown`, what a redaction showed of `plain`, its last item the count of
 * the `issues` left out: `plain` holds only the first ones.
 */
function counted(
  shown: unknown,
  plain: unknown[] | undefined,
  issues: readonly unknown[],
): unknown {
  const total = read(issues, "length");
  if (
    !Array.isArray(shown) || plain === undefined ||
    typeof total !== "number" || total <= plain.length
  ) {
    return shown;
  }
  const cut = shown.length <= plain.length &&
    shown.at(-1) === leftOut(plain.length - shown.length + 1);
  const items = cut ? shown.length - 1 : shown.length;
  return [...shown.slice(0, items), leftOut(total - items)];
}

/** What a redaction says for the `count` items it left out of an array. */
function leftOut(count: number): string {
  return `… (${count} more items left out)`;
}
