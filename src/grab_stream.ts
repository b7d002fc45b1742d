/**
 * `GrabStream`: the items of a live body (Server-Sent Events, NDJSON values)
 * as an async iterable that never throws, in the manner of Go's
 * `bufio.Scanner`: the loop ends at the end of the body or at the first
 * failure, and `error` tells which.
 *
 * @module
 */

import type { GrabTransportError } from "./errors.ts";
import { owns } from "./live_kit.ts";

/**
 * The next step of a stream's source: an item, the failure that ends the
 * stream, or `null` at its end. What a source throws is the caller's own
 * error (a progress callback that threw) and reaches the loop as it is.
 * @internal
 */
export type ItemStep<T> =
  | { value: T }
  | { error: GrabTransportError }
  | null;

/**
 * Where a stream's items come from.
 * @internal
 */
export interface ItemSource<T> {
  next(): Promise<ItemStep<T>>;
  /** Releases the body, handing `reason` on to its cancel; the items not yet read are dropped. */
  cancel(reason?: unknown): Promise<void>;
  /** The last event id seen, for Server-Sent Events. */
  readonly lastEventId: string;
}

/** Makes a stream of a source; set by `GrabStream` itself. */
let create: <T>(source: ItemSource<T>) => GrabStream<T>;

const DONE: IteratorReturnResult<undefined> = Object.freeze({
  done: true,
  value: undefined,
}) as IteratorReturnResult<undefined>;

/**
 * The items of a streamed body: `for await` them, then look at `error`. The
 * loop never throws; breaking out of it, or calling `cancel()`, releases the
 * body. A stream nobody reads or cancels holds its connection open.
 *
 * @typeParam T Each item: a `ServerSentEvent`, or an NDJSON value.
 *
 * @example Reading a stream of events to its end
 * ```ts
 * import createGrab from "@grab/grab";
 * const grab = createGrab("https://api.example.com");
 * const [events, error] = await grab("GET /events", { responseType: "sse" });
 * if (error) throw error;
 * if (events === null) throw new Error("No stream: the server sent 204");
 * for await (const event of events) console.log(event.event, event.data);
 * if (events.error) console.error("The stream broke off:", events.error.kind);
 * ```
 */
export class GrabStream<T> implements AsyncIterable<T> {
  #source!: ItemSource<T>;
  #error: GrabTransportError | null = null;
  #ended = false;
  // One step at a time: a step started while another runs waits for it.
  #last: Promise<unknown> = Promise.resolve();

  private constructor() {}

  /**
   * `null` while the stream runs and after it ended cleanly (or was
   * cancelled); the failure that ended it otherwise: kind `"network"`,
   * `"abort"`, `"timeout"` (`attemptTimeout` or `idleTimeout`), `"too-large"`
   * (one event or line over `maxBodyBytes`), `"parse"` or `"schema"`.
   */
  get error(): GrabTransportError | null {
    return this.#error;
  }

  /**
   * The id of the last Server-Sent Event seen (`""` before any `id:`
   * field), to resume with a `Last-Event-ID` header; `""` for NDJSON. An
   * event the loop was not given (it broke, or the body was ended) does not
   * count, so a resume asks for it again.
   */
  get lastEventId(): string {
    return this.#source.lastEventId;
  }

  /**
   * Stops reading and releases the body; the loop then ends. `reason` is
   * handed on to the body's cancel, as `ReadableStream.cancel` does.
   */
  cancel(reason?: unknown): Promise<void> {
    this.#ended = true;
    return this.#source.cancel(reason);
  }

  /**
   * The items not yet read. A loop that breaks cancels the stream, so a
   * loop after a break, a cancel or the end gets nothing.
   */
  [Symbol.asyncIterator](): AsyncIterator<T, undefined> {
    return {
      next: () => this.#turn(() => this.#next()),
      // The body is released at once, which ends a step still pending; the
      // answer waits its turn, as a generator's does, so it never comes
      // before the steps asked for earlier.
      return: () => {
        const cancelling = this.cancel();
        return this.#turn(() => cancelling.then(() => DONE));
      },
      // Thrown into a loop that delegates (`yield*`): the body is released
      // and the error goes on as it is, as a generator's would.
      throw: (error?: unknown) => {
        const cancelling = this.cancel();
        return this.#turn(() =>
          cancelling.then(() => {
            throw error;
          })
        );
      },
    };
  }

  /** Runs `step` once the steps asked for before it have settled. */
  #turn<R>(step: () => Promise<R>): Promise<R> {
    const turn = this.#last.then(step);
    this.#last = turn.catch(ignore);
    return turn;
  }

  async #next(): Promise<IteratorResult<T, undefined>> {
    if (this.#ended) return DONE;
    let step: ItemStep<T>;
    try {
      step = await this.#source.next();
    } catch (error) {
      this.#ended = true;
      await this.#source.cancel();
      throw error;
    }
    if (step === null) {
      this.#ended = true;
      return DONE;
    }
    if (owns(step, "error")) {
      this.#ended = true;
      this.#error = step.error;
      await this.#source.cancel();
      return DONE;
    }
    return { done: false, value: step.value };
  }

  static {
    create = <T>(source: ItemSource<T>) => {
      const stream = new GrabStream<T>();
      stream.#source = source;
      return stream;
    };
  }
}

function ignore(): void {}

/** A stream of the items of `source`. @internal */
export function grabStream<T>(source: ItemSource<T>): GrabStream<T> {
  return create(source);
}
