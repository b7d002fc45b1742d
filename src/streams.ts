/**
 * Opening a live body: the `"stream"`, `"sse"` and `"ndjson"` response
 * types. The grab settles at the head; from then on the body is the
 * caller's, read only as fast as the caller reads, ended by the caller's
 * signal, `attemptTimeout` or a stall past `idleTimeout`, and released at
 * its end, on cancel and on failure. Loaded on first use: a program that
 * never streams never loads it. A `"blob"` loads it too, for the media type
 * its `Content-Type` names.
 *
 * @module
 */

import type { Casing } from "./casing.ts";
import type { Deadline } from "./deadline.ts";
import type { GrabTransportError, TransportErrorKind } from "./errors.ts";
import { grabStream, type ItemStep } from "./grab_stream.ts";
import { Chunks } from "./live_chunks.ts";
import { CallbackError, owns, tooLargeMessage } from "./live_kit.ts";
import { decodeItem } from "./live_item.ts";
import { LineSplitter } from "./ndjson.ts";
import type { Progress, ServerSentEvent, StreamType } from "./response_type.ts";
import type { StandardSchema } from "./schema.ts";
import { EventStreamParser } from "./sse.ts";
import type { TransportExtra } from "./transport_error.ts";

/** Everything a live body needs, decided when its head arrived. */
export interface LiveBody {
  response: Response;
  /** The response's status, which a body that breaks off names. */
  status: number;
  /** True when the platform's `fetch` made it. */
  platform: boolean;
  /** True when its cancel settles soon (`cancelSettles` in `body.ts`). */
  waitForCancel: boolean;
  /** Ends the body: the caller's signal and `attemptTimeout`. */
  deadline: Deadline;
  /** Lets go of the deadline; called once, when the body is done with. */
  release: () => void;
  /** The cap of one event or line. */
  maxBodyBytes: number;
  progress: ((progress: Progress) => void) | undefined;
  casing: Casing;
  schema: StandardSchema | undefined;
  /** Milliseconds each read may wait for the server, or `false`. */
  idleTimeout: number | false;
  fail: (
    kind: TransportErrorKind,
    extra?: TransportExtra,
  ) => GrabTransportError;
}

export { install } from "./live_kit.ts";
export { blobTypeOf, essenceOf } from "./media_type.ts";
export { notEventStream, openLive } from "./live_open.ts";

/** The data of a live body of `type`. */
export function openStream(type: StreamType, live: LiveBody): unknown {
  if (type === "stream") return byteStream(live);
  return grabStream(new Items(type, new Chunks(live, true), live));
}

/**
 * The body as a byte stream that reads only when its reader asks. A byte
 * stream, as a `fetch` body is, so that a BYOB reader (`getReader({ mode:
 * "byob" })`, `read(view, { min })`) reads it too. A default read takes a
 * chunk's buffer away (a transfer), so a chunk is handed on as it is only
 * when it is a whole buffer of the platform's own body, which no hook or
 * wrapper cloned (`owned`): fresh for each read and grab's alone, and a
 * copy of each would cost a large download up to a third of its speed.
 * Any other is copied: its buffer may be shared (a pool's, a custom
 * `fetch`'s), and a transfer would empty it for its other holders.
 */
function byteStream(live: LiveBody): ReadableStream<Uint8Array> {
  const owned = live.waitForCancel;
  // What a BYOB read had no room for, handed to the next read.
  let rest: Uint8Array | null = null;
  let ended: ((failure: unknown) => void) | undefined;
  // The caller's signal or `attemptTimeout` errors the stream at once, as a
  // `fetch` body's: a chunk a released read left queued is dropped with it.
  const chunks = new Chunks(live, false, (failure) => {
    rest = null;
    ended?.(failure);
  });
  const source: UnderlyingByteSource = {
    type: "bytes",
    start(controller) {
      ended = (failure) => controller.error(failure);
    },
    async pull(controller) {
      try {
        let chunk = rest;
        rest = null;
        // What was kept of a chunk is not served once the caller's signal
        // or `attemptTimeout` ended the body, as a `fetch` body's is not.
        if (chunk === null) chunk = await chunks.read();
        else chunks.check();
        // A byte stream takes no empty chunk, which a custom `fetch` may give.
        while (chunk?.byteLength === 0) chunk = await chunks.read();
        const request = controller.byobRequest;
        if (chunk === null) {
          controller.close();
          request?.respond(0);
        } else if (request === null || request.view === null) {
          const whole = chunk.byteOffset === 0 &&
            chunk.byteLength === chunk.buffer.byteLength;
          // The platform's chunk is over an ArrayBuffer, never a shared one.
          controller.enqueue(
            owned && whole ? chunk as Uint8Array<ArrayBuffer> : chunk.slice(),
          );
        } else {
          const view = request.view;
          const size = Math.min(view.byteLength, chunk.byteLength);
          new Uint8Array(view.buffer, view.byteOffset, size)
            .set(chunk.subarray(0, size));
          if (size < chunk.byteLength) rest = chunk.subarray(size);
          request.respond(size);
        }
      } catch (error) {
        controller.error(error instanceof CallbackError ? error.error : error);
      }
    },
    cancel: (reason) => {
      rest = null;
      return chunks.cancel(reason);
    },
  };
  return new ReadableStream(source, { highWaterMark: 0 });
}

/** A parser of a body into raw items: events or lines. */
interface Parser<Raw> {
  feed(chunk: Uint8Array, out: Raw[]): boolean;
  /** False when the last item passes the cap. */
  end(out: Raw[]): boolean | void;
  /** Lets go of the item not yet ended; the parser is then of no use. */
  drop(): void;
}

/**
 * The items of an SSE or NDJSON body: parsed one chunk at a time, when the
 * items of the last chunk are used up, and decoded one at a time.
 */
class Items<Raw extends ServerSentEvent | string> {
  #chunks: Chunks;
  #live: LiveBody;
  #parser: Parser<Raw>;
  #sse: EventStreamParser | undefined;
  #queue: Raw[] = [];
  #at = 0;
  #ended = false;
  #cancelled = false;
  #failure: GrabTransportError | undefined;
  // As far as the caller has read: an event dropped unserved does not count.
  #lastEventId = "";
  // Parsed events were dropped unserved: the parser's id is past the caller.
  #dropped = false;
  // Ends the schema check under way: the caller's code may never settle.
  #stopCheck: (() => void) | undefined;

  constructor(type: "sse" | "ndjson", chunks: Chunks, live: LiveBody) {
    this.#chunks = chunks;
    this.#live = live;
    if (type === "sse") {
      this.#sse = new EventStreamParser(live.maxBodyBytes);
      this.#parser = this.#sse as unknown as Parser<Raw>;
    } else {
      this.#parser = new LineSplitter(live.maxBodyBytes) as Parser<Raw>;
    }
  }

  get lastEventId(): string {
    return this.#lastEventId;
  }

  async next(): Promise<ItemStep<unknown>> {
    for (;;) {
      // Cancelled during a read: a line the cancel cut off is not served.
      if (this.#cancelled) return null;
      // Items parsed before the caller's signal or the attempt's time ended
      // the body are not served after it.
      if (this.#at < this.#queue.length && this.#endIfPassed()) continue;
      if (this.#at < this.#queue.length) {
        const raw = this.#queue[this.#at]!;
        this.#queue[this.#at++] = undefined as unknown as Raw;
        const step = await this.#decode(raw);
        // The last item of a body that ended was checked: let go.
        if (this.#ended && this.#at === this.#queue.length) {
          this.#chunks.release();
        }
        // Cancelled while a schema checked the item: it is not served.
        if (this.#cancelled) return null;
        if (typeof raw !== "string" && step !== null && owns(step, "value")) {
          this.#lastEventId = (raw as ServerSentEvent).id;
        }
        return step;
      }
      // Every event parsed was served: an id with no data counts too, also
      // one in the chunk of an event over the cap.
      if (!this.#dropped) this.#lastEventId = this.#sse?.lastEventId ?? "";
      if (this.#failure !== undefined) return { error: this.#failure };
      if (this.#ended) return this.#letGoOfSchema();
      this.#queue.length = 0;
      this.#at = 0;
      let chunk;
      try {
        chunk = await this.#chunks.read();
      } catch (error) {
        if (error instanceof CallbackError) throw error.error;
        this.#failure = error as GrabTransportError;
        this.#parser.drop();
        continue;
      }
      // Cancelled during the read: what it brought is not parsed, let alone
      // kept.
      if (this.#cancelled) return null;
      if (chunk === null) {
        this.#ended = true;
        // A last line that a cut-off character pushes over the cap.
        if (this.#parser.end(this.#queue) === false) this.#tooLarge();
        // The deadline is kept while the last items are checked.
        if (this.#queue.length === 0) this.#chunks.release();
      } else if (!this.#parser.feed(chunk, this.#queue)) {
        // The items before the one over the cap are still served.
        await this.#chunks.cancel();
        this.#tooLarge();
      }
    }
  }

  /** The item decoded; `null` as soon as a cancel ends its schema check. */
  #decode(raw: Raw): Promise<ItemStep<unknown> | null> {
    const decoding = decodeItem(raw, this.#live);
    if (this.#live.schema === undefined) return decoding;
    return new Promise((resolve, reject) => {
      this.#stopCheck = () => resolve(null);
      decoding.then(resolve, reject).finally(() => {
        this.#stopCheck = undefined;
      });
    });
  }

  #endIfPassed(): boolean {
    const { deadline, fail } = this.#live;
    const reason = deadline.reason;
    if (reason === undefined) return false;
    this.#dropped = true;
    this.#queue.length = 0;
    this.#at = 0;
    this.#failure ??= fail(reason, { cause: deadline.signal?.reason });
    this.#parser.drop();
    return true;
  }

  #tooLarge(): void {
    const part = this.#sse ? "event" : "line";
    const message = tooLargeMessage(this.#live.maxBodyBytes, part);
    this.#failure = this.#live.fail("too-large", { message });
    // The item over the cap, held up to the cap and a chunk, is let go of
    // now, not when the caller drops the stream, which it keeps to read
    // `error`.
    this.#parser.drop();
  }

  cancel(reason?: unknown): Promise<void> {
    this.#queue.length = 0;
    this.#at = 0;
    this.#cancelled = true;
    // An item the body ended in the middle of: up to the cap, which a
    // caller that keeps the stream (for its `error` or `lastEventId`) would
    // otherwise keep too.
    this.#parser.drop();
    this.#stopCheck?.();
    this.#letGoOfSchema();
    return this.#chunks.cancel(reason);
  }

  // No item is checked from now on. A kept stream, or its error (through
  // the stack it was made with), keeps this: it holds none of the caller's.
  #letGoOfSchema(): null {
    this.#live.schema = undefined;
    return null;
  }
}
