/**
 * Reading a response body: to the end under a byte cap, or cancelled, and
 * within the deadline when the body may ignore the abort signal.
 *
 * @module
 */

import { type Deadline, PASSED } from "./deadline.ts";
import { Gathered, Pacer, toPlainBytes } from "./chunk.ts";
import {
  bodyOf,
  codingHidden,
  headersOf,
  platformBytes,
  platformText,
  RESPONSE_TYPE,
} from "./platform_response.ts";
import { type Counted, DIGITS, report, totalOf } from "./progress.ts";
import { isEventStream, type Progress } from "./response_type.ts";

/**
 * Cancels a response body, ignoring a body that is already used or locked
 * (a hook read it): either way nothing is left open. A platform response's
 * own body is cancelled, whatever is put in its place.
 */
export async function cancelBody(
  response: Response,
  platform = false,
): Promise<void> {
  try {
    await bodyOf(response, platform)?.cancel();
  } catch {
    // Used or locked by its reader; not ours to release.
  }
}

/** The body was over the byte cap and has been cancelled. */
export const TOO_LARGE: unique symbol = Symbol("too-large");

/** Where a response body comes from, and the deadline its reads are held to. */
export interface BodySource {
  /**
   * True when the platform's `fetch` made the response: its body honours
   * the HTTP framing, and its cancel settles. Any other body may lie about
   * its length, or never answer.
   */
  platform: boolean;
  /**
   * True when the platform's own `fetch` answered the request as it was
   * sent, and nothing replaced the response: its body honours the signal,
   * and it is at the request's URL unless redirected. A body that is not
   * direct may ignore the signal, so its reads are held to the deadline.
   */
  direct?: boolean | undefined;
  /** Bounds each read of a body that may ignore the signal. */
  deadline?: Deadline | undefined;
  /**
   * True when an `afterResponse` hook, or a `fetch` other than the
   * platform's own (a wrapper), may keep a `clone()` of the response (it
   * cloned it, or made it): its cancel then settles only once the clone is
   * read or cancelled too.
   */
  cloned?: boolean | undefined;
}

/**
 * True when cancelling the body of `source` settles soon and is worth
 * waiting for: the platform's own body, which no hook may have tee'd.
 */
export function cancelSettles(source: BodySource): boolean {
  return source.platform && source.cloned !== true;
}

const UNTRUSTED: BodySource = { platform: false };

/**
 * The body was one JSON body cannot be, a live event stream, and has been
 * cancelled unread: it may never end for a read to its end to finish.
 */
export const ENDLESS: unique symbol = Symbol("endless");

/**
 * How a body is collected: decoded text, its bytes, or decoded text that
 * must end as one JSON body does (a body of no declared length labelled an
 * event stream is {@linkcode ENDLESS}).
 */
export type Collect = "text" | "bytes" | "json";

/** A read body: text or bytes, `null` when empty by status or method. */
export type ReadResult =
  | string
  | Uint8Array
  | null
  | typeof TOO_LARGE
  | typeof ENDLESS;

/** True when status or method say there is no body to read. */
export function hasNoBody(method: string, status: number): boolean {
  return method === "HEAD" || status === 204 || status === 205;
}

/**
 * Reads a response body as text (`null` when empty by status, method or
 * bytes) or as bytes (`null` when empty by status or method). Cancels a body
 * over `maxBodyBytes` as soon as the cap is passed, before buffering the
 * rest. Reports each chunk to `progress`. A read failure rejects; a body
 * that outlasts `source.deadline` rejects with {@linkcode PASSED}; a
 * progress callback that throws rejects with a `CallbackError`.
 * Headers that cannot be read (a custom `fetch`'s response) throw at once.
 */
export function readBody(
  response: Response,
  method: string,
  maxBodyBytes: number,
  source: BodySource = UNTRUSTED,
  collect: Collect = "text",
  progress?: (progress: Progress) => void,
): Promise<ReadResult> {
  // Not async: the common read is the platform's promise, in no frame of
  // ours. Reading `response.body` makes a JavaScript stream and loses the
  // platform's fast path, so it is touched only where a stream is needed.
  if (hasNoBody(method, response.status)) {
    return discardBody(response, source).then(() => null);
  }
  const headers = headersOf(response, source.platform);
  const declared = headers.get("content-length");
  if (declaredOver(declared, headers, maxBodyBytes, response) !== undefined) {
    return discardBody(response, source).then(() => TOO_LARGE);
  }
  // Only a body of no declared length may never end.
  if (collect === "json" && declared === null) {
    const type = headers.get("content-type");
    if (type !== null && isEventStream(type)) {
      return discardBody(response, source).then(() => ENDLESS);
    }
  }
  // Only a body that honours the signal (the platform's reader could not be
  // cancelled), read as the platform reads it, whatever is put on it. Its
  // declared length is trusted only from the platform's own `fetch`: on Deno
  // and Node a Proxy passes for a platform response, and `Response`'s own
  // members read its internals through the Proxy's traps.
  if (
    progress === undefined && source.platform &&
    (source.direct === true ||
      (maxBodyBytes === Infinity && source.deadline?.signal === undefined)) &&
    fitsFastPath(response, headers, declared, maxBodyBytes)
  ) {
    return collect === "bytes"
      ? platformBytes(response)
      : platformText(response).then(textOrNull);
  }
  const counted = progress === undefined
    ? undefined
    : { total: totalOf(response), report: progress };
  return readStream(response, maxBodyBytes, source, collect, counted);
}

const textOrNull = (text: string) => text === "" ? null : text;

/**
 * The size a body's `declared` length says, when that is over the cap and
 * believed; else `undefined`. A compressed body's length is not its size
 * once decoded, which the cap bounds: the bytes of little that does not
 * compress outgrow it. A browser may hide that it is compressed.
 */
export function declaredOver(
  declared: string | null,
  headers: { get(name: string): string | null },
  maxBodyBytes: number,
  response: Response,
): number | undefined {
  if (declared === null) return undefined;
  const size = Number(declared);
  // Asked only of a length over the cap: most bodies fit, and pay nothing.
  return size > maxBodyBytes && headers.get("content-encoding") === null &&
      !codingHidden(response)
    ? size
    : undefined;
}

/**
 * The platform's own reader is far faster than a JavaScript stream loop. It
 * is safe only when the body cannot outgrow the cap: no cap at all, or a
 * declared length that the framing honours. A `Transfer-Encoding` overrides
 * `Content-Length` (RFC 9112, 6.3), so the length then says nothing; a
 * compressed body inflates past it; a browser hides `Content-Encoding` on a
 * cross-origin response.
 */
function fitsFastPath(
  response: Response,
  headers: Headers,
  declared: string | null,
  maxBodyBytes: number,
): boolean {
  if (maxBodyBytes === Infinity) return true;
  if (declared === null || !DIGITS.test(declared)) return false;
  const type = RESPONSE_TYPE.call(response);
  return headers.get("transfer-encoding") === null &&
    headers.get("content-encoding") === null &&
    type !== "cors" && type !== "opaque";
}

/**
 * Cancels a body that is not read: the platform's at once, any other within
 * the deadline, as it may never answer.
 */
export async function discardBody(
  response: Response,
  source: BodySource,
): Promise<void> {
  // Another body's cancel may never settle: it is asked, not waited for.
  const cancelling = cancelBody(response, source.platform);
  if (cancelSettles(source)) await within(source, cancelling);
}

/**
 * A cancel that settles soon, waited for; within the deadline unless the
 * platform's own `fetch` made the body (a Proxy may pass for the platform's
 * response, its cancel never settling).
 */
function within(source: BodySource, cancelling: Promise<void>): Promise<void> {
  const deadline = source.deadline;
  if (source.direct === true || deadline?.signal === undefined) {
    return cancelling;
  }
  return deadline.race(cancelling).catch(ignore);
}

async function readStream(
  response: Response,
  maxBodyBytes: number,
  source: BodySource,
  collect: Collect,
  counted: Counted | undefined,
): Promise<ReadResult> {
  const { platform, direct, deadline } = source;
  const waitForCancel = cancelSettles(source);
  const stream = bodyOf(response, platform);
  if (stream === null) return collect === "bytes" ? new Uint8Array(0) : null;
  const reader = stream.getReader();
  // A body may ignore the signal, unless the platform's own fetch carried
  // it (a custom fetch may not pass it on), and one not the platform's may
  // never answer a cancel. Cancelling the reader ends a pending read at once
  // (the streams standard closes the stream first) and tells the source why,
  // as a live body's cancel does: one waiter bounds every read. Only the
  // platform's cancel is waited for, unless a hook may have tee'd the body.
  const bounded = !direct && deadline?.signal !== undefined;
  const cancel = (): Promise<void> => {
    const cancelling = reader.cancel(deadline?.signal?.reason).catch(ignore);
    return waitForCancel ? within(source, cancelling) : Promise.resolve();
  };
  const stopWaiting = bounded ? deadline!.onPass(() => void cancel()) : ignore;
  const gathered = new Gathered(collect);
  const pacer = platform ? undefined : new Pacer();
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const pause = pacer?.pause();
      if (pause !== undefined) await pause;
      if (bounded && deadline!.due()) break;
      // Only the platform's own `fetch` is sure to give plain bytes: a Proxy
      // may pass for a platform response and hand over any stream.
      const chunk = direct === true ? value : toPlainBytes(value);
      if (chunk === undefined) {
        throw new TypeError("The body gave a chunk that is not bytes");
      }
      size += chunk.byteLength;
      if (size > maxBodyBytes) {
        await cancel();
        return TOO_LARGE;
      }
      gathered.add(chunk);
      if (counted !== undefined) report(counted, size);
    }
  } catch (error) {
    // A body that broke off. Its lock is released for whoever looks at it
    // next; a body read to the end keeps it, as releasing costs a stack
    // trace (the reader's closed promise rejects with a fresh TypeError).
    await cancel();
    releaseLock(reader);
    throw error;
  } finally {
    stopWaiting();
  }
  // The deadline passed and ended the reads early.
  if (bounded && deadline!.reason !== undefined) throw PASSED;
  return gathered.result(size);
}

function releaseLock(reader: ReadableStreamDefaultReader<Uint8Array>): void {
  try {
    reader.releaseLock();
  } catch {
    // A read still pending on a body that ignored the cancel.
  }
}

function ignore(): void {}
