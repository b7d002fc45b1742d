/**
 * The request of one grab, encoded once: the URL with its parameters and
 * query, the headers, and the body as the format writes it. Every problem is
 * an issue, all of them found before anything is sent.
 *
 * @module
 */

import type { HttpMethod } from "./endpoint.ts";
import { GrabValidationError, type ValidationIssue } from "./errors.ts";
import type { Codec } from "./format.ts";
import { formTypeIssue, type HeaderRecord } from "./headers.ts";
import { lengthIssue } from "./content_length.ts";
import { isArrayBuffer, isOutOfBounds, isSharedBuffer } from "./buffers.ts";
import { formBlob } from "./form_blob.ts";
import { type Fetch, isPlatform } from "./fetch.ts";
import { isNode } from "./runtime.ts";
import { notText } from "./text.ts";
import type { Resolved } from "./resolve.ts";
import type { SendOutcome } from "./result.ts";
import type { SourcePipe } from "./source_pipe.ts";
import { fillUrl, searchOf } from "./fill_url.ts";
import type { UrlTemplate } from "./url.ts";
import { tooLong } from "./path_segment.ts";
import { bare } from "./object.ts";

/** A request ready for its attempts, but for the factory's header function. */
export interface EncodedRequest {
  href: string;
  init: RequestInit & { headers: HeaderRecord; duplex?: "half" };
  /** False for a stream body, which cannot be sent twice. */
  replayable: boolean;
  /** The pipe a stream body is sent through, once the attempts begin. */
  source?: SourcePipe | undefined;
  /** The format's media type, for a `Content-Type` the caller left out. */
  mediaType: string | undefined;
  /** What to accept, for an `Accept` the caller left out. */
  accept: string | undefined;
  /** True when the format wrote the body. */
  encoded: boolean;
  /** True in JSON:API mode. */
  jsonApi: boolean;
  /** True for a body that has no type of its own, as it was given. */
  untyped: boolean;
}

/**
 * Encodes the request: fills the URL, serialises the query (keys in the
 * wire casing), and has the format write the body. Returns every issue
 * instead when something cannot be sent; throws a `GrabValidationError` for
 * a query that refers to itself or nests too deep.
 */
export function encodeRequest(
  method: HttpMethod,
  template: UrlTemplate,
  resolved: Resolved,
  codec: Codec,
): EncodedRequest | ValidationIssue[] {
  const href = fillUrl(template, resolved.params, searchOf(resolved));
  const body = codec.encodeBody(resolved.body, method, resolved);
  // Joined, never spread into push: as arguments, some 120,000 issues (a
  // list of objects that each hold two keys the casing makes one)
  // overflowed the stack, and every issue was lost.
  let issues: ValidationIssue[] = typeof href === "string" ? [] : href;
  const long = typeof href === "string" ? tooLong(href) : undefined;
  if (long !== undefined) issues.push({ path: "", message: long });
  if (Array.isArray(body)) issues = issues.concat(body);
  else if (body.body !== undefined && (method === "GET" || method === "HEAD")) {
    issues.push({
      path: "",
      message: `Cannot send a body with ${method}: fetch does not allow it`,
    });
  } else {
    const why = notText(resolved.body) ?? checkSendable(body.body);
    if (why !== undefined) {
      issues.push({ path: "", message: `Cannot send the body: ${why}` });
    }
    const form = formTypeIssue(body.body, resolved.headers);
    if (form !== undefined) issues.push(form);
    const length = lengthIssue(body.body, resolved.headers);
    if (length !== undefined) issues.push(length);
  }
  if (issues.length > 0 || typeof href !== "string" || Array.isArray(body)) {
    return issues;
  }
  const init: EncodedRequest["init"] = bare({
    method,
    headers: resolved.headers,
  });
  const mediaType = codec.mediaType(resolved);
  const stream = body.body instanceof ReadableStream;
  if (body.body !== undefined) {
    const { limit, methods } = resolved.retry;
    // Sent more than once, or after a header function is waited for.
    const later = resolved.headerFunction !== undefined ||
      (limit > 0 && methods.has(method));
    init.body = resendable(body.body, resolved.fetch) ??
      (later ? held(body.body) : body.body);
  }
  if (stream) init.duplex = "half";
  if (resolved.redirect !== undefined) init.redirect = resolved.redirect;
  if (resolved.credentials !== undefined) {
    init.credentials = resolved.credentials;
  }
  return {
    href,
    init,
    replayable: !stream,
    mediaType,
    accept: acceptOf(mediaType, resolved),
    encoded: body.encoded,
    jsonApi: resolved.format === "json-api",
    untyped: isUntyped(body.body),
  };
}

/**
 * Bytes or a form as a `Blob` for Node's own `fetch`, or `undefined`: its
 * undici cannot send an `ArrayBuffer` or a typed array again to the target
 * of a 307 or 308 redirect ("detached ArrayBuffer"), and sends a form there
 * with a boundary its `Content-Type` does not name; a blob goes again, with
 * its length and type, as it was. The blob holds a copy of bytes, as
 * {@linkcode held} would, and refers to a form's files.
 */
function resendable(body: BodyInit, fetch: Fetch): Blob | undefined {
  const form = body instanceof FormData;
  if (!form && !isArrayBuffer(body) && !ArrayBuffer.isView(body)) {
    return undefined;
  }
  if (!isPlatform(fetch) || !isNode()) return undefined;
  return form ? formBlob(body) : new Blob([body as ArrayBuffer]);
}

/**
 * A body that may be sent again, or only once a header function is done,
 * copied where the caller could still change it (bytes, a form, search
 * parameters): `fetch` sends what a body holds when it is called, so each
 * attempt sends what the grab was given, even when the caller reuses or
 * transfers its buffer once the grab has begun.
 */
export function held(body: BodyInit): BodyInit {
  if (isArrayBuffer(body)) return body.slice(0);
  if (ArrayBuffer.isView(body)) {
    const { buffer, byteOffset, byteLength } = body;
    return new Uint8Array(buffer, byteOffset, byteLength).slice();
  }
  if (body instanceof URLSearchParams) return new URLSearchParams(body);
  if (!(body instanceof FormData)) return body;
  const copy = new FormData();
  // A file is a blob, which cannot change: the copy refers to it.
  for (const [name, value] of body) copy.append(name, value);
  return copy;
}

/**
 * Why `fetch` would refuse a body given as it is, if it would: a stream
 * someone is reading already, bytes in a `SharedArrayBuffer`, an
 * `ArrayBuffer` that was transferred away, or a view past the end of its
 * resized buffer. Each would otherwise fail at every attempt as if the
 * network had (or, copied for a retry, go as an empty body).
 */
export function checkSendable(
  body: BodyInit | undefined,
): string | undefined {
  if (body instanceof ReadableStream) {
    return body.locked ? "the stream is locked by a reader" : undefined;
  }
  const buffer = ArrayBuffer.isView(body) ? body.buffer : body;
  if (isSharedBuffer(buffer)) {
    return "its bytes are in a SharedArrayBuffer, which fetch does not send";
  }
  // `detached` is recent (ES2024); where it is missing, fetch tells.
  const detached = (buffer as { detached?: boolean } | null | undefined)
    ?.detached;
  if (detached === true && isArrayBuffer(buffer)) {
    return "its ArrayBuffer was transferred away (detached)";
  }
  return ArrayBuffer.isView(body) && isOutOfBounds(body)
    ? "the view is out of the bounds of its ArrayBuffer, which was resized smaller after the view was made: make the view again within the buffer"
    : undefined;
}

/**
 * What the Fetch standard types a string body, which Bun's `fetch`, `Request`
 * and `Response` leave untyped.
 */
const TEXT_TYPE = "text/plain;charset=UTF-8";

/**
 * Completes the headers: the factory's header function's below the call's,
 * then the format's `Accept` and `Content-Type` where neither gave one (in
 * JSON:API mode also for a string, bytes or a stream sent as it is, a
 * document the caller wrote), and in JSON mode a string body's type where
 * nobody gave one, as the Fetch standard types it: every runtime then sends
 * it.
 */
export function completeHeaders(
  request: EncodedRequest,
  fromFunction: HeaderRecord | undefined,
): void {
  let headers = request.init.headers;
  if (fromFunction !== undefined) {
    headers = request.init.headers = { ...fromFunction, ...headers };
  }
  const { accept, mediaType } = request;
  if (accept !== undefined && headers["accept"] === undefined) {
    headers["accept"] = accept;
  }
  if (headers["content-type"] !== undefined) return;
  const { body } = request.init;
  if (request.encoded || (request.jsonApi && request.untyped)) {
    // The format's type; none when `jsonApi.headers` is false.
    if (mediaType !== undefined) headers["content-type"] = mediaType;
  } else if (typeof body === "string" && !request.jsonApi) {
    headers["content-type"] = TEXT_TYPE;
  }
}

/**
 * True for a body that carries no type of its own: a string, bytes or a
 * stream (a blob, a form or search parameters each have theirs).
 */
function isUntyped(body: BodyInit | null | undefined): boolean {
  return typeof body === "string" || isArrayBuffer(body) ||
    ArrayBuffer.isView(body) || body instanceof ReadableStream;
}

/**
 * What a grab accepts: the format's media type for a JSON read; the
 * stream's type for events and lines; for text, bytes, blobs and raw
 * streams anything in JSON mode (`fetch`'s own), the JSON:API media type in
 * JSON:API mode, whose servers may refuse other types. Nothing when the
 * JSON:API headers are turned off.
 */
function acceptOf(
  mediaType: string | undefined,
  resolved: Resolved,
): string | undefined {
  const type = resolved.responseType;
  if (type === "json") return mediaType;
  const jsonApi = resolved.format === "json-api";
  if (jsonApi && resolved.jsonApi.headers === false) return undefined;
  if (type === "sse") return "text/event-stream";
  if (type === "ndjson") return "application/x-ndjson";
  return jsonApi ? mediaType : undefined;
}

/**
 * Cancels a stream body that was never sent, as `fetch` cancels one it
 * could not send; one that `fetch` (or anyone) holds a reader of is left to
 * its holder.
 */
export function releaseUnsent(body: unknown): void {
  if (body instanceof ReadableStream && !body.locked) {
    body.cancel().catch(() => {});
  }
}

/**
 * The outcome of an exchange; with a stream body, one that releases that
 * body when the exchange fails or rejects: the caller's source (a file, a
 * socket) is not left open by a settled grab, whether or not `fetch` began
 * to send it. A `GrabValidationError` leaves it to the caller, as `fetch`
 * leaves a stream it refused: the grab never began. (A grab answered
 * before its body was sent whole lets go of the rest once the answer is
 * read: see `bodyAnswered`.)
 */
export function releasingOnFailure(
  outcome: Promise<SendOutcome>,
  request: EncodedRequest,
): Promise<SendOutcome> {
  if (request.replayable) return outcome;
  // Read once settled: the pipe is put in place when the attempts begin.
  const release = (reason: unknown) => {
    const { source } = request;
    const refused = reason instanceof GrabValidationError;
    if (source !== undefined) refused ? source.leave() : source.release(reason);
    else if (!refused) releaseUnsent(request.init.body);
  };
  return outcome.then((settled) => {
    if (!settled.ok) release(settled.error);
    return settled;
  }, (error: unknown) => {
    release(error);
    throw error;
  });
}
