/**
 * The exceptions of the caller's code (a getter, a `toJSON`, a `toString`):
 * what validation issues say of them, redacted, and the exceptions
 * themselves, kept for their error's `cause`.
 *
 * @module
 */

import type { ValidationIssue } from "./error_types.ts";
import { redactUrls } from "./redact.ts";

/** Runs `read`: `[true, value]`, or `[false, error]` when it throws. */
export function attempt(read: () => unknown): [boolean, unknown] {
  try {
    return [true, read()];
  } catch (error) {
    return [false, error];
  }
}

const THROWN = new WeakMap<ValidationIssue, { error: unknown }>();

/** `issue`, noted as quoting `error`, which its validation error keeps. */
export function quoting(
  issue: ValidationIssue,
  error: unknown,
): ValidationIssue {
  THROWN.set(issue, { error });
  return issue;
}

/**
 * What `issues` quote, as one `cause`: the exception, when one issue
 * quotes one; an `AggregateError` of them, in order, when several do; none
 * when no issue does.
 */
export function thrownBy(
  issues: readonly ValidationIssue[],
): { cause: unknown } | undefined {
  // A set, in order: a body may hold many thousands of values that threw.
  const thrown = new Set<unknown>();
  for (const issue of issues) {
    const noted = THROWN.get(issue);
    if (noted !== undefined) thrown.add(noted.error);
  }
  if (thrown.size === 0) return undefined;
  const errors = [...thrown];
  return {
    cause: errors.length === 1
      ? errors[0]
      : new AggregateError(errors, `${errors.length} of the values threw`),
  };
}

/**
 * What a thrown value says, redacted: an error's message, anything else as
 * text. A value that cannot say even that is named, not thrown again.
 */
export function reasonOf(error: unknown): string {
  try {
    return redactUrls(error instanceof Error ? error.message : String(error));
  } catch {
    return "a value that cannot be shown";
  }
}

/**
 * The issue of a value of the caller's that could not be read (`what`, as
 * in "the options"): what its getter or `toString` threw.
 */
export function unreadable(what: string, error: unknown): ValidationIssue {
  const message = `Cannot read ${what}: ${reasonOf(error)}`;
  return quoting({ path: "", message }, error);
}
