/**
 * Reading a response into the outcome of an exchange: its body as the
 * response type asks (a live body opened for the stream types), an error
 * body as JSON or text.
 *
 * @module
 */

import {
  type BodySource,
  declaredOver,
  discardBody,
  ENDLESS,
  hasNoBody,
  readBody,
  type ReadResult,
  TOO_LARGE,
} from "./body.ts";
import { CallbackError } from "./progress.ts";
import { decodeBody } from "./decode_body.ts";
import type { Casing } from "./casing.ts";
import {
  answeredAt,
  bodyTaken,
  headerOf,
  headersOrNone,
  statusTextOf,
} from "./platform_response.ts";
import { type Deadline, PASSED } from "./deadline.ts";
import type { GrabTransportError, TransportErrorKind } from "./errors.ts";
import {
  attemptTimeoutMessage,
  notJsonMessage,
  timeoutMessage,
  tooLarge,
  transportError,
} from "./transport_error.ts";
import {
  isLive,
  type Progress,
  type ResponseType,
  type StreamType,
} from "./response_type.ts";
import type { SendOutcome } from "./result.ts";
import type { StandardSchema } from "./schema.ts";

/** The module that opens live bodies, loaded on first use. */
export type Streams = typeof import("./streams.ts");

/** How the 2xx body of an exchange is read. */
export interface ReadSettings {
  responseType: ResponseType;
  onDownloadProgress: ((progress: Progress) => void) | undefined;
  /** Loaded when `responseType` is a stream type. */
  streams: Streams | undefined;
  /** For the items of a live body. */
  casing: Casing;
  schema: StandardSchema | undefined;
  /** Milliseconds each read of a live body may wait, or `false`. */
  idleTimeout: number | false;
}

/** The reading of a JSON body, with no progress. */
export const READ_JSON: ReadSettings = Object.freeze({
  responseType: "json",
  onDownloadProgress: undefined,
  streams: undefined,
  casing: "none",
  schema: undefined,
  idleTimeout: false,
});

/** The response to read, and what it is read with. */
export interface Reading {
  method: string;
  href: string;
  maxBodyBytes: number;
  read: ReadSettings;
  response: Response;
  status: number;
  source: BodySource & { deadline: Deadline };
  /** The grab's own deadline, which a live body takes over. */
  whole: Deadline;
  /**
   * Lets go of the request's body, which a live response's server may read
   * on while it answers, once that response is done with.
   */
  letGoOfBody?: (() => void) | undefined;
  /** How the request's stream body failed while it was sent, if it did. */
  bodyFailed?: (() => { error: unknown } | undefined) | undefined;
  /** The request's headers, whose credentials no message quotes. */
  sent?: HeadersInit | undefined;
  /** Why the body is gone, when it was let go of before this read. */
  unread?: string | undefined;
}

/** A 2xx body that broke off while it was read: a network failure. */
export interface Broken {
  broken: unknown;
  /** The response's status, when its body broke off while it was read. */
  status?: number;
}

/**
 * Reads the body into the outcome. A 2xx body that breaks off is
 * {@linkcode Broken}; once a non-2xx head has arrived, the outcome is that
 * response whatever happens to its body, which is then `null`. Rejects with
 * {@linkcode PASSED} when the deadline passes during a 2xx body, and with
 * what a progress callback threw.
 */
export function readOutcome(reading: Reading): Promise<
  SendOutcome | Broken
> {
  const { response, method, read, source, status } = reading;
  const ok = status >= 200 && status < 300;
  const type = ok ? read.responseType : "json";
  if (
    read.streams !== undefined && isLive(type) && !hasNoBody(method, status)
  ) {
    return handOver(reading, type);
  }
  // A 2xx body read as JSON must end: an event stream may not, and is
  // refused unread (`ENDLESS`).
  const collect = type === "bytes" || type === "blob"
    ? "bytes"
    : ok && type === "json"
    ? "json"
    : "text";
  let body: Promise<ReadResult>;
  let reached = true;
  try {
    body = readBody(
      response,
      method,
      reading.maxBodyBytes,
      source,
      collect,
      read.onDownloadProgress,
    );
  } catch (cause) {
    // A response-like whose head cannot be read again: its body let go.
    reached = false;
    const failed = () => Promise.reject(cause);
    body = discardBody(response, source).then(failed, failed);
  }
  // Not an async function: the read's own promise carries the outcome.
  return body.then(
    (result) => settle(reading, type, result),
    (cause) => readFailed(reading, type, cause, reached),
  );
}

/** A live body handed over, unless it is used or the deadline has passed. */
async function handOver(
  reading: Reading,
  type: StreamType,
): Promise<SendOutcome | Broken> {
  const { response, source } = reading;
  try {
    // A body someone else read or holds cannot be handed over.
    if (bodyTaken(response, source.platform)) {
      return { broken: new TypeError("The response body is already used") };
    }
    // Ended between the head and now (a hook, a progress callback).
    if (source.deadline.reason === undefined) {
      const { notEventStream, openLive } = reading.read.streams!;
      const refused = type === "sse" ? notEventStream(reading) : undefined;
      if (refused === undefined) {
        return respond(reading, openLive(reading, type), false);
      }
      await discardBody(response, source);
      return failure(reading, "parse", undefined, refused);
    }
  } catch (cause) {
    // A response-like whose body cannot be read: no body to hand over.
    await discardBody(response, source);
    return { broken: cause };
  }
  await discardBody(response, source);
  throw PASSED;
}

/**
 * The outcome of a body that could not be read: a non-2xx response still,
 * with why its body is `null`. A 2xx body `reached` and broken off says so.
 */
function readFailed(
  reading: Reading,
  type: ResponseType,
  cause: unknown,
  reached: boolean,
): SendOutcome | Broken {
  if (cause instanceof CallbackError) throw cause.error;
  // The time ran out (or the caller aborted) if a deadline says so: the
  // grab's own first, as an attempt's deadline takes its end for an abort.
  // `due`: a busy loop may run a failure past the time before its timer.
  const { whole, source } = reading;
  const ended = whole.due() ? whole : source.deadline;
  const passed = ended.due() ? ended.reason : undefined;
  if (reading.status < 200 || reading.status > 299) {
    const why = cause === PASSED ? ended.signal?.reason : cause;
    // Which limit passed, and its milliseconds.
    const told = passed !== "timeout"
      ? reading.unread
      : ended === whole
      ? timeoutMessage(whole)
      : attemptTimeoutMessage(ended);
    const error = failure(reading, passed ?? "network", why, told).error;
    return settle(reading, type, null, error);
  }
  if (cause === PASSED || passed !== undefined) throw PASSED;
  if (!reached) return { broken: cause };
  return { broken: cause, status: reading.status };
}

/** The outcome of a body read to its end (or over the cap). */
function settle(
  reading: Reading,
  type: ResponseType,
  result: ReadResult,
  bodyError?: GrabTransportError,
): SendOutcome {
  const { status } = reading;
  const ok = status >= 200 && status < 300;
  if (result === ENDLESS) {
    const declared = headerOf(
      reading.response,
      reading.source.platform,
      "content-type",
    );
    return failure(
      reading,
      "parse",
      undefined,
      notJsonMessage(status, declared),
    );
  }
  if (result === TOO_LARGE) {
    const where = { ...reading, href: answeredAt(reading) };
    const error = tooLarge(where, ok, declaredSize(reading));
    if (ok) return { ok: false, error };
    [bodyError, result] = [error, null];
  }
  const empty = type === "json"
    ? result === null
    : hasNoBody(reading.method, status);
  let body: unknown = null;
  if (!empty) {
    const { response, source } = reading;
    const decoded = decodeBody(type, ok, result, reading);
    if (decoded instanceof SyntaxError) {
      const declared = headerOf(response, source.platform, "content-type");
      const message = notJsonMessage(status, declared);
      return failure(reading, "parse", decoded, message);
    }
    body = decoded;
  }
  const outcome = respond(reading, body, empty);
  if (bodyError !== undefined) outcome.bodyError = bodyError;
  return outcome;
}

/** The size a body over the cap declared, as `readBody` believes it. */
function declaredSize(reading: Reading): number | undefined {
  const { response, source, maxBodyBytes } = reading;
  const at = (name: string) => headerOf(response, source.platform, name);
  const declared = at("content-length");
  return declaredOver(declared, { get: at }, maxBodyBytes, response);
}

function respond(
  reading: Reading,
  body: unknown,
  empty: boolean,
): SendOutcome & { ok: true } {
  const { response, source, status } = reading;
  const platform = source.platform;
  return {
    ok: true,
    method: reading.method,
    status,
    statusText: statusTextOf(response, platform),
    url: answeredAt(reading),
    headers: headersOrNone(response, platform),
    body,
    empty,
  };
}

function failure(
  reading: Reading,
  kind: TransportErrorKind,
  cause?: unknown,
  message?: string,
): SendOutcome & { ok: false } {
  const href = answeredAt(reading);
  const extra = { cause, message };
  const error = transportError(kind, reading.method, href, extra);
  return { ok: false, error };
}
