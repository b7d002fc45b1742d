/**
 * A caller's stream body, sent through a stream of grab's own: grab then
 * cancels the caller's source itself when the grab fails, whatever the
 * runtime's `fetch` does with the abort (some leave a body they were given
 * open and locked), and knows when the source failed while it was sent
 * (some runtimes send the body cut short, and report the server's answer).
 *
 * @module
 */

import type { GrabValidationError } from "./errors.ts";
import { asValidationError } from "./validation_error.ts";
import { bare } from "./object.ts";

/** The caller's stream body and grab's stream of it, which `fetch` is given. */
export class SourcePipe {
  /** The stream that is sent: each chunk read from the source when asked for. */
  readonly body: ReadableStream<Uint8Array>;
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #failed: { error: unknown } | undefined;
  #over = false;

  /** Takes `source` (locked from now on: a grab given it meanwhile is refused it). */
  constructor(source: ReadableStream<Uint8Array>) {
    const reader = this.#reader = source.getReader();
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => void (this.#controller = controller),
      pull: (controller) =>
        reader.read().then(({ done, value }) => {
          if (this.#over) return;
          if (done) {
            this.#end();
            return controller.close();
          }
          if (isBytes(value)) controller.enqueue(value);
          else this.#refuse(value, controller);
        }, (error: unknown) => {
          if (this.#over) return;
          this.#failed = { error };
          this.#end();
          controller.error(error);
        }),
      // A hook that replaced the body, or a `fetch` done with it, lets go.
      cancel: (reason) => this.#end(reason, true),
    }, { highWaterMark: 0 });
  }

  /**
   * A chunk that is not bytes is refused as `fetch` refuses it, on every
   * runtime (Bun's sends a string), with a message that says so: the grab
   * fails as the source failing, and the source is cancelled.
   */
  #refuse(
    chunk: unknown,
    controller: ReadableStreamDefaultController<Uint8Array>,
  ): void {
    const error = new TypeError(
      `A request body's stream must give Uint8Array chunks, as fetch takes them; it gave ${
        chunkKind(chunk)
      }`,
    );
    this.#failed = { error };
    this.#end(error, true);
    controller.error(error);
  }

  /** The source's own error, when it failed while it was read. */
  get failed(): { error: unknown } | undefined {
    return this.#failed;
  }

  /**
   * The grab failed: the source is cancelled and let go of, and the stream
   * sent fails, so a `fetch` that reads on is refused the rest.
   */
  release(reason: unknown): void {
    if (this.#over) return;
    try {
      this.#controller.error(reason);
    } catch {
      // Errored or closed already.
    }
    this.#end(reason, true);
  }

  /**
   * The grab has its answer, read whole, before `fetch` sent the whole body
   * (a server may answer without reading it all): the rest is not wanted.
   * The stream sent fails, so a `fetch` that sends on (Deno's does, to the
   * end of a source that may never end) is refused the rest, and the source
   * is cancelled and let go, as a failed grab's is. A source read to its end
   * is let go already.
   */
  finish(): void {
    this.release(
      new TypeError("The server answered before the body was sent whole"),
    );
  }

  /**
   * The grab was refused before it began (a `GrabValidationError`): the
   * source is the caller's again, neither read on nor cancelled.
   */
  leave(): void {
    if (this.#over) return;
    try {
      this.#controller.error(new TypeError("The request was not sent"));
    } catch {
      // Errored or closed already.
    }
    this.#end();
  }

  /**
   * Lets go of the source, cancelling it first when `cancel`: the lock is
   * released at once, not when the source's own `cancel` settles (it may
   * never), as the stream is closed as soon as the cancel begins.
   */
  #end(reason?: unknown, cancel = false): void {
    if (this.#over) return;
    this.#over = true;
    const reader = this.#reader;
    if (cancel) reader.cancel(reason).catch(() => {});
    try {
      reader.releaseLock();
    } catch {
      // A read still pending where the runtime refuses to release then.
    }
  }
}

/**
 * The pipe of a request's stream body, put in place of it in `init`; none
 * for any other body. A stream read from already is refused as `fetch`
 * refuses it, and left to the caller: the returned error is a
 * `GrabValidationError`.
 */
export function pipeSource(
  method: string,
  href: string,
  init: RequestInit,
): SourcePipe | GrabValidationError | undefined {
  const source = init.body;
  if (!(source instanceof ReadableStream)) return undefined;
  try {
    new Request(
      href,
      bare({ method, body: source, duplex: "half" }) as RequestInit,
    );
  } catch (error) {
    return asValidationError(error, method, href);
  }
  const pipe = new SourcePipe(source);
  init.body = pipe.body;
  return pipe;
}

/**
 * True for a `Uint8Array` (a Node `Buffer` too), from any realm; false for
 * anything else, also a Proxy or a getter that throws when looked at.
 */
function isBytes(chunk: unknown): chunk is Uint8Array {
  try {
    return chunk instanceof Uint8Array ||
      ArrayBuffer.isView(chunk) && tagOf(chunk) === "Uint8Array";
  } catch {
    return false;
  }
}

/** What a chunk that is not bytes is, for the message: `a string`, `a DataView`. */
function chunkKind(chunk: unknown): string {
  if (chunk === null || chunk === undefined) return String(chunk);
  if (typeof chunk !== "object") return article(typeof chunk);
  try {
    if (ArrayBuffer.isView(chunk)) return article(tagOf(chunk));
    if (chunk instanceof ArrayBuffer) return "an ArrayBuffer";
  } catch {
    // A Proxy, a getter that throws: an object all the same.
  }
  return "an object";
}

/** `name` with its indefinite article: `a DataView`, `an Int8Array`. */
function article(name: string): string {
  // By sound: "a Uint8Array", as U reads "you" here.
  return `${/^[aeioAEIO]/.test(name) ? "an" : "a"} ${name}`;
}

/** The class a value says it is of (`Uint8Array`, `DataView`). */
function tagOf(value: object): string {
  return Object.prototype.toString.call(value).slice(8, -1);
}
