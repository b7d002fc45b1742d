/**
 * A retried answer's body let go so that its connection is kept: the
 * platform closes a connection whose body is cancelled before its end, and
 * keeps one whose body was read to it, for the retry to reuse.
 *
 * @module
 */

import { type BodySource, discardBody } from "./body.ts";
import { bodyOf, headerOf } from "./platform_response.ts";
import { startTimer } from "./clock.ts";

/** The largest body read to its end rather than cancelled. */
const DRAINED_BYTES = 64 * 1024;

/**
 * The longest a retry waits for a short body to end before it is cancelled:
 * one round trip or two bring one, and a server that stalls it delays the
 * retry by no more than this.
 */
const DRAIN_MS = 1_000;

/**
 * Lets go of a retried answer's body, and resolves once it is let go. A
 * short body that says its length, from the platform's own `fetch` (its
 * framing holds it to that length, the grab's signal ends its read), is
 * read to its end, and cancelled if it has not ended within
 * {@linkcode DRAIN_MS} or grows past {@linkcode DRAINED_BYTES} once decoded;
 * any other body is cancelled at once.
 */
export async function letGo(
  response: Response,
  source: BodySource,
): Promise<void> {
  const declared = source.direct === true
    ? headerOf(response, true, "content-length")
    : null;
  const short = declared !== null && /^\d{1,5}$/.test(declared) &&
    Number(declared) <= DRAINED_BYTES;
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    reader = short ? bodyOf(response, true)?.getReader() : undefined;
  } catch {
    // Used or locked by a hook: not ours to read.
  }
  if (reader === undefined) return await discardBody(response, source);
  const cancel = () => void reader.cancel().catch(ignore);
  const stopTimer = startTimer(cancel, DRAIN_MS);
  try {
    let read = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      read += value.byteLength;
      if (read > DRAINED_BYTES) return cancel();
    }
  } catch {
    // The body failed, or the grab's signal ended it: its connection is gone.
  } finally {
    stopTimer();
  }
}

function ignore(): void {}
