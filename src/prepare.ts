/**
 * What an exchange may wait for before its first attempt: the factory's
 * header function's headers, and the module that opens live bodies, each
 * within the exchange's deadline.
 *
 * @module
 */

import type { Deadline } from "./deadline.ts";
import type { ValidationIssue } from "./errors.ts";
import { validationError } from "./validation_error.ts";
import { formTypeIssue, type HeaderRecord, mergeHeaders } from "./headers.ts";
import { lengthIssue } from "./content_length.ts";
import type { EncodedRequest } from "./request.ts";
import { lazy } from "./lazy.ts";
import { READ_JSON, type ReadSettings, type Streams } from "./outcome.ts";
import { isLive } from "./response_type.ts";
import { unreadable } from "./thrown.ts";
import type { Resolved } from "./resolve.ts";
import { CallbackError, overTotal, tellProgress, totalOf } from "./progress.ts";
import { answeredAt, bodyOf, headerOf } from "./platform_response.ts";
import { cancelSettles } from "./body.ts";
import { quoted } from "./http_error.ts";
import { Pacer, toPlainBytes } from "./chunk.ts";
import { clockOf, nextTurn, startTimer } from "./clock.ts";
import { owns } from "./object.ts";
import { convertKeys, KeyClash } from "./convert_keys.ts";
import { validateWithin } from "./schema.ts";
import {
  brokenBodyMessage,
  liveFailure,
  tooLargeMessage,
} from "./transport_error.ts";

const streams = lazy<Streams>(() =>
  import("./streams.ts").then((module) => {
    module.install([
      CallbackError,
      overTotal,
      tellProgress,
      totalOf,
      bodyOf,
      Pacer,
      toPlainBytes,
      convertKeys,
      KeyClash,
      validateWithin,
      tooLargeMessage,
      brokenBodyMessage,
      clockOf,
      startTimer,
      nextTurn,
      owns,
      cancelSettles,
      answeredAt,
      headerOf,
      quoted,
      liveFailure,
    ]);
    return module;
  })
);

/**
 * How the exchange reads a 2xx body; the module that opens live bodies is
 * loaded, within the deadline, the first time a stream type or a blob asks
 * for it.
 */
export function readSettings(
  resolved: Resolved,
  deadline: Deadline,
): ReadSettings | Promise<ReadSettings> {
  const { responseType, onDownloadProgress, casing, schema, idleTimeout } =
    resolved;
  // A schema's exchange notes the headers it sent (see `noteSent`).
  if (
    responseType === "json" && onDownloadProgress === undefined &&
    schema === undefined
  ) {
    return READ_JSON;
  }
  const settings: ReadSettings = {
    responseType,
    onDownloadProgress,
    streams: undefined,
    casing,
    schema,
    idleTimeout,
  };
  // A blob's type is the media type its `Content-Type` names, which that
  // module reads.
  if (!isLive(responseType) && responseType !== "blob") return settings;
  return deadline.race(streams()).then((module) => {
    settings.streams = module;
    return settings;
  });
}

const NOT_HEADERS: ValidationIssue = Object.freeze({
  path: "",
  message:
    "Cannot use what the header function returned: it must be a Headers, a record or a list of pairs",
});

/**
 * The factory's header function's headers, checked, within the deadline,
 * against the body `request` sends; a problem is refused as one of the
 * request `method` `request.href`.
 */
export async function headersFrom(
  resolved: Resolved,
  deadline: Deadline,
  method: string,
  request: Pick<EncodedRequest, "href" | "init">,
): Promise<HeaderRecord> {
  const returned: unknown = resolved.headerFunction!();
  let fresh = returned;
  // What cannot be asked for its `then` (a revoked Proxy, a getter that
  // throws) is no promise, nor ever a promise's value: it is read below,
  // and refused as unreadable, unless the deadline passed meanwhile.
  if (isThenable(returned)) fresh = await deadline.race(returned);
  else await deadline.race(undefined);
  const headers: HeaderRecord = {};
  let issues: ValidationIssue[];
  try {
    // As the option itself is checked: a string is not read character by
    // character, a number is not taken for no headers.
    issues = typeof fresh === "object" || fresh === undefined
      ? mergeHeaders(headers, fresh as HeadersInit | null | undefined)
      : [NOT_HEADERS];
  } catch (error) {
    // A value whose `toString` throws, as with the factory's own headers.
    issues = [unreadable("the headers", error)];
  }
  for (const name of resolved.unset ?? []) delete headers[name];
  // The call's own Content-Type with a form was refused before.
  const form = formTypeIssue(resolved.body, headers);
  if (form !== undefined) issues = issues.concat(form);
  // The call's own Content-Length, checked before, replaces the function's.
  const { body, headers: own } = request.init;
  const length = own["content-length"] === undefined
    ? lengthIssue(body, headers)
    : undefined;
  if (length !== undefined) issues = issues.concat(length);
  if (issues.length > 0) {
    const { href: url } = request;
    throw validationError(issues, { method, url, where: "the headers" });
  }
  return headers;
}

/** True for a value with a `then` method; false for one that cannot say. */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  try {
    return typeof (value as { then?: unknown } | null)?.then === "function";
  } catch {
    return false;
  }
}
