/**
 * `paginate`'s arguments, checked before any page: the grab it asks with,
 * the page limit, and the options every page is asked with.
 *
 * @module
 */

import type { ValidationIssue } from "./errors.ts";
import { validationError } from "./validation_error.ts";
import { unreadable } from "./thrown.ts";
import { describeValue } from "./json_value.ts";
import { member } from "./object.ts";
import { notOptions, ownCopy } from "./read_options.ts";
import type { GrabCallOptions } from "./call_options.ts";

/**
 * The page limit and the first page's options. What cannot be used (no
 * grab to ask with, a limit or a body that cannot be) is refused at once.
 */
export function walkOptions(
  grab: unknown,
  options: object | null,
): { limit: number; first: GrabCallOptions } {
  const { limit: given, ...first } = readOptions(options);
  const limit = parsePageLimit(given);
  // A rest object: its `body` is the caller's, not `Object.prototype`'s.
  const stream = member(first, "body") instanceof ReadableStream;
  const issues = [
    ...(typeof grab === "function" ? [] : [notAGrab(grab)]),
    ...(typeof limit === "number" ? [] : [limit]),
    ...(stream ? [ONE_SHOT_BODY] : []),
  ];
  if (issues.length > 0) throw validationError(issues);
  return { limit: limit as number, first };
}

function notAGrab(grab: unknown): ValidationIssue {
  return {
    path: "",
    message: `Cannot paginate with ${
      describeValue(grab)
    }: the first argument must be a grab callable, as createGrab returns`,
  };
}

/** The options, each read once; options that cannot be read are refused. */
function readOptions(
  options: object | null,
): GrabCallOptions & { limit?: number | null } {
  const not = notOptions(options ?? {});
  if (not !== undefined) throw validationError([not]);
  try {
    // Each grab checks the options it is given.
    const copy = ownCopy(options ?? {}, "limit");
    // `limit` is no grab's option, which the copy's prototype names: one
    // only `Object.prototype` has (a dependency's) is none.
    copy.limit = member(copy, "limit");
    return copy as GrabCallOptions & { limit?: number | null };
  } catch (error) {
    throw validationError([unreadable("the options", error)]);
  }
}

/**
 * The most pages to fetch: a non-negative integer, or `Infinity` (also for
 * `null` and `undefined`). Anything else would quietly fetch no page or one
 * page more than asked, so it is refused before any request.
 */
function parsePageLimit(limit: unknown): number | ValidationIssue {
  if (limit === undefined || limit === null || limit === Infinity) {
    return Infinity;
  }
  if (Number.isSafeInteger(limit) && (limit as number) >= 0) {
    return limit as number;
  }
  return {
    path: "/limit",
    message:
      'Cannot use the option "limit": it must be a non-negative integer or Infinity',
  };
}

/**
 * Every page is asked with the body, and a stream can be sent once: the
 * second page would fail after the first was read.
 */
const ONE_SHOT_BODY: ValidationIssue = {
  path: "",
  message:
    "Cannot send a ReadableStream body with paginate: each page is asked with the body, and a stream can be sent only once; give it as a string, bytes or a Blob",
};
