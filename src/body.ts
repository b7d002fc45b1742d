/**
 * Reading a response body: to the end under a byte cap, or cancelled, and
 * within the deadline when the body may ignore the abort signal.
 *
 * @module
 */

import { type Deadline, PASSED } from "./deadline.ts";

/**
 * Cancels a response body, ignoring a body that is already used or locked
 * (a hook read it): either way nothing is left open.
 */
export async function cancelBody(response: Response): Promise<void> {
  try {
    await response.body?.cancel();
  } catch {
    // Used or locked by its reader; not ours to release.
  }
}

/** The body was over the byte cap and has been cancelled. */
export const TOO_LARGE: unique symbol = Symbol("too-large");

const decoder = new TextDecoder();

/** Where a response body comes from, and the deadline its reads are held to. */
export interface BodySource {
  /**
   * True when the platform's `fetch` made the response and nothing replaced
   * it: its body honours the HTTP framing and the abort signal. Any other
   * body may lie about its length, never end, or ignore the signal.
   */
  platform: boolean;
  /** Bounds each read of a body that may ignore the signal. */
  deadline?: Deadline | undefined;
}

const UNTRUSTED: BodySource = { platform: false };
const DIGITS = /^\d+$/;

/**
 * Reads a response body as text, or `null` when it is empty by status,
 * method or bytes. Cancels a body over `maxBodyBytes` as soon as the cap is
 * passed, before buffering the rest. A read failure rejects; a body that
 * outlasts `source.deadline` rejects with {@linkcode PASSED}.
 */
export async function readBody(
  response: Response,
  method: string,
  maxBodyBytes: number,
  source: BodySource = UNTRUSTED,
): Promise<string | null | typeof TOO_LARGE> {
  // Reading `response.body` makes a JavaScript stream and loses the
  // platform's fast path, so it is touched only where a stream is needed.
  const status = response.status;
  if (method === "HEAD" || status === 204 || status === 205) {
    await discardBody(response, source);
    return null;
  }
  const headers = response.headers;
  const declared = headers.get("content-length");
  if (declared !== null && Number(declared) > maxBodyBytes) {
    await discardBody(response, source);
    return TOO_LARGE;
  }
  if (source.platform && fitsFastPath(response, declared, maxBodyBytes)) {
    const text = await response.text();
    return text === "" ? null : text;
  }
  return await readStream(response, maxBodyBytes, source);
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
  declared: string | null,
  maxBodyBytes: number,
): boolean {
  if (maxBodyBytes === Infinity) return true;
  if (declared === null || !DIGITS.test(declared)) return false;
  const headers = response.headers;
  return headers.get("transfer-encoding") === null &&
    headers.get("content-encoding") === null &&
    response.type !== "cors" && response.type !== "opaque";
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
  const cancelling = cancelBody(response);
  if (source.platform) await cancelling;
}

async function readStream(
  response: Response,
  maxBodyBytes: number,
  { platform, deadline }: BodySource,
): Promise<string | null | typeof TOO_LARGE> {
  const stream = response.body;
  if (stream === null) return null;
  const reader = stream.getReader();
  // A body that is not the platform's may ignore the signal and never answer
  // a cancel either. Cancelling the reader ends a pending read at once
  // (the streams standard closes the stream before asking its source), so
  // one waiter bounds every read; a cancel is then never waited for.
  const bounded = !platform && deadline?.signal !== undefined;
  const cancel = (): Promise<void> => {
    const cancelling = reader.cancel().catch(ignore);
    return bounded ? Promise.resolve() : cancelling;
  };
  const stopWaiting = bounded ? deadline!.onPass(() => void cancel()) : ignore;
  let first: Uint8Array | undefined;
  let streaming: TextDecoder | undefined;
  let text = "";
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || (bounded && deadline!.due())) break;
      size += value.byteLength;
      if (size > maxBodyBytes) {
        await cancel();
        return TOO_LARGE;
      }
      if (first === undefined && streaming === undefined) {
        first = value;
        continue;
      }
      if (streaming === undefined) {
        // Deno 2.9 drops a U+FEFF that starts any streamed chunk, not just
        // the first: keep every BOM here and strip the leading one below.
        streaming = new TextDecoder("utf-8", { ignoreBOM: true });
        text = streaming.decode(first, { stream: true });
        first = undefined;
      }
      text += streaming.decode(value, { stream: true });
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
  if (streaming !== undefined) {
    text += streaming.decode();
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  } else if (first !== undefined) text = decoder.decode(first);
  // A body of only a byte order mark is as empty as no bytes at all.
  return size === 0 || text === "" ? null : text;
}

function releaseLock(reader: ReadableStreamDefaultReader<Uint8Array>): void {
  try {
    reader.releaseLock();
  } catch {
    // A read still pending on a body that ignored the cancel.
  }
}

function ignore(): void {}
