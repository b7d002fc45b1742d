/**
 * The builder of {@linkcode GrabTransportError}s: one message per kind, the
 * request named by origin and path only.
 *
 * @module
 */

import type { TransportErrorKind, TransportExtra } from "./error_types.ts";
import { isEventStream } from "./response_type.ts";
import { GrabTransportError } from "./errors.ts";
import { namedUrl, quoted } from "./http_error.ts";
import { redactCause, safeUrl } from "./redact.ts";
import { issuesDetail } from "./schema_issues.ts";
import type { SendOutcome } from "./result.ts";

export type { TransportExtra };

const TRANSPORT_MESSAGES: Record<TransportErrorKind, string> = {
  network: "Cannot complete the request: the network failed",
  abort: "Cannot complete the request: it was aborted",
  timeout: "Cannot complete the request: the timeout passed",
  parse: "Cannot read the response: the body is not valid JSON",
  "too-large": "Cannot read the response: the body is over maxBodyBytes",
  schema: "Cannot accept the response: the body fails the schema",
};

/**
 * What a body that broke off after its head arrived says: the response of
 * `status` had begun, so neither the connection nor the request failed
 * before it; `loaded` bytes of it came, when they were counted; on the
 * last of how many `attempts`, when there were several.
 */
export function brokenBodyMessage(
  status: number,
  loaded?: number,
  attempts = 1,
): string {
  const where = loaded === undefined
    ? "before its end"
    : `after ${loaded} bytes`;
  return `Cannot read the response: the body of the ${status} response broke off ${where}${
    lastOf(attempts)
  } ` +
    "(the connection closed early, or its length, chunks or encoding were bad; see the cause)";
}

/**
 * What a 2xx body that is not JSON says (or an event stream asked for as
 * JSON, let go unread): its status and the media type the server gave it
 * (quoted as a reason phrase is: redacted, cut), which tell a proxy's or a
 * login's HTML page from JSON cut short, since the body itself is not kept,
 * and the response type that reads an event stream or NDJSON.
 */
export function notJsonMessage(
  status: number,
  contentType: string | null,
): string {
  const label = labelOf(contentType);
  if (contentType !== null && isEventStream(contentType)) {
    return `Cannot read the response: the ${status} response is an event stream (${label}), not one JSON body, and may never end; read it with responseType "sse" for its events, or "text" for the text`;
  }
  return contentType !== null && NDJSON.test(contentType)
    ? `Cannot read the response: the body of the ${status} response (${label}) is not one JSON value but one a line; read it with responseType "ndjson"`
    : `Cannot read the response: the body of the ${status} response (${label}) is not valid JSON; read it with responseType "text" to see what the server sent`;
}

/** A `Content-Type` of newline-delimited JSON, by its common names. */
const NDJSON =
  /^[\t ]*application\/(?:x-)?(?:ndjson|jsonl|jsonlines)[\t ]*(?:;|$)/i;

/**
 * What a 2xx JSON body that is no JSON:API document says: as
 * {@linkcode notJsonMessage} does, its status and media type (an API that
 * answers plain JSON there), and `reason`, what the document lacks.
 */
export function notADocumentMessage(
  status: number,
  contentType: string | null,
  reason: string,
): string {
  return `Cannot read the response: the body of the ${status} response (${
    labelOf(contentType)
  }) is not a valid JSON:API document (${reason}); read it with format "json" to see what the server sent`;
}

/** A response's media type for a message: quoted as a reason phrase is. */
function labelOf(contentType: string | null): string {
  return contentType === null
    ? "no Content-Type"
    : `Content-Type "${quoted(contentType)}"`;
}

/**
 * Why a retried answer's body is `null` when it is returned after all: its
 * body was slow to end, and the wait before the retry no longer fitted in
 * the time left once it had. A retried success, which is nothing without its
 * body, ends with it as a timeout.
 */
export const LET_GO_FOR_RETRY =
  "Cannot read the response body: it was let go of for a retry, and it was so slow to end that the retry's wait no longer fitted in the timeout; raise timeout to let the retry be made";

/**
 * What a request fails with when its stream body failed while it was sent
 * (a chunk that is not bytes, an error of the caller's stream): the cause
 * is that failure.
 */
export const SOURCE_FAILED =
  "Cannot complete the request: the body's stream failed while it was sent, so the server got at most part of it (see the cause); it is not sent again";

/**
 * What the grab's `timeout` passing says: its milliseconds, and how to give
 * a slow server more, as the kind alone does not tell it from
 * `attemptTimeout`.
 */
export function timeoutMessage(deadline: { told: number | false }): string {
  return `Cannot complete the request: the timeout (${deadline.told} ms) passed; raise timeout, or set it to false`;
}

/**
 * What a timeout of one attempt says: which limit passed, as `timeout`'s
 * message also does, and on the last of how many `attempts`, when there
 * were several.
 */
export function attemptTimeoutMessage(
  deadline: { timeout: number | false },
  attempts = 1,
): string {
  return `Cannot complete the request: the attemptTimeout (${deadline.timeout} ms) passed${
    lastOf(attempts)
  }; raise attemptTimeout, or set it to false`;
}

/**
 * Which attempt a failure ended, when there were several: a caller cannot
 * tell retries made from none.
 */
function lastOf(attempts: number): string {
  return attempts > 1 ? ` on the last of ${attempts} attempts` : "";
}

/**
 * What a network failure of the last of `attempts` says: how many were
 * made, as a caller cannot tell retries done from none; one is not counted.
 */
export function networkMessage(attempts: number): string | undefined {
  return attempts > 1
    ? `Cannot complete the request: the network failed after ${attempts} attempts`
    : undefined;
}

/**
 * How a live body of `method` `href` fails. Only its attempt's time can end
 * it, as the grab's has stopped: a timeout names `attemptTimeout`. When the
 * request's stream body failed meanwhile (`bodyFailed` tells how), the
 * network's failure is that: the server's answer broke off as its request
 * did. A schema's detail leaves out the credentials of the headers `sent`.
 */
export function liveFailure(
  method: string,
  href: string,
  attempt: { timeout: number | false },
  bodyFailed?: () => { error: unknown } | undefined,
  sent?: HeadersInit,
): (kind: TransportErrorKind, extra?: TransportExtra) => GrabTransportError {
  return (kind, extra = {}) => {
    const failed = kind === "network" ? bodyFailed?.() : undefined;
    return transportError(
      kind,
      method,
      href,
      kind === "timeout"
        ? { message: attemptTimeoutMessage(attempt), ...extra }
        : failed === undefined
        ? { sent, ...extra }
        : { cause: failed.error, message: SOURCE_FAILED },
    );
  };
}

/**
 * Builds a {@linkcode GrabTransportError}: the request named by origin and
 * path only, the cause redacted of every URL's query and userinfo.
 */
export function transportError(
  kind: TransportErrorKind,
  method: string,
  href: string,
  extra: TransportExtra = {},
): GrabTransportError {
  const url = safeUrl(href);
  const told = extra.detail ??
    (kind === "schema" ? issuesDetail(extra.issues, extra.sent) : undefined);
  const detail = told === undefined ? "" : ` (${told})`;
  const what = extra.message ?? TRANSPORT_MESSAGES[kind];
  return new GrabTransportError(
    `${what}${detail}: ${method} ${namedUrl(url)}`,
    {
      kind,
      method,
      url,
      cause: redactCause(extra.cause),
      issues: extra.issues,
    },
  );
}

/**
 * Why a body over `cap` bytes (`maxBodyBytes`), or one event or line of a
 * live body (`part`), was not read, and what to do about it: a success's
 * body (`streamable`) may be read as a stream, which the cap does not bound.
 * A body's size is what its Content-Length `declared`, or else more than
 * the cap, counted as it came.
 */
export function tooLargeMessage(
  cap: number,
  part: "body" | "event" | "line",
  streamable = false,
  declared?: number,
): string {
  // A length past every integer (`1e400`) is named no more than the cap.
  const size = declared === undefined
    ? `more than ${cap} bytes, counted as it came`
    : `${
      Number.isSafeInteger(declared) ? declared : `more than ${cap}`
    } bytes, as its Content-Length says`;
  const what = part === "body" ? `the body (${size})` : `one ${part}`;
  const instead = streamable ? ', or read it with responseType "stream"' : "";
  return `Cannot read the response: ${what} is over maxBodyBytes ` +
    `(${cap} bytes); raise maxBodyBytes${instead}`;
}

/** The error of a body over `maxBodyBytes`; see {@linkcode tooLargeMessage}. */
export function tooLarge(
  where: { method: string; href: string; maxBodyBytes: number },
  streamable: boolean,
  declared?: number,
): GrabTransportError {
  const cap = where.maxBodyBytes;
  const message = tooLargeMessage(cap, "body", streamable, declared);
  return transportError("too-large", where.method, where.href, { message });
}

/**
 * The outcome of a grab whose `deadline` passed (kind `"timeout"`, with its
 * milliseconds) or whose signal aborted (kind `"abort"`).
 */
export function passedOutcome(
  deadline: PassedDeadline,
  method: string,
  href: string,
): SendOutcome & { ok: false } {
  const kind = deadline.reason ?? "abort";
  const cause = deadline.signal?.reason;
  const message = kind === "timeout" ? timeoutMessage(deadline) : undefined;
  const extra = { cause, message };
  return { ok: false, error: transportError(kind, method, href, extra) };
}

/** What {@linkcode passedOutcome} reads of a `Deadline`. */
export interface PassedDeadline {
  readonly reason: "timeout" | "abort" | undefined;
  readonly signal: AbortSignal | undefined;
  readonly told: number | false;
}

/**
 * The outcome of an exchange that a module it needs (`what`) was not loaded
 * for: a bundle's chunk that could not be fetched. Kind `"network"`, as that
 * fetch failed, though the request was never sent; the next grab loads the
 * module again.
 */
export function unloadedOutcome(
  what: string,
  method: string,
  href: string,
  cause: unknown,
): SendOutcome & { ok: false } {
  const message =
    `Cannot send the request: ${what} could not be loaded (the next grab loads it again)`;
  const extra = { cause, message };
  return { ok: false, error: transportError("network", method, href, extra) };
}
