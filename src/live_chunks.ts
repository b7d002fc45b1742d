/**
 * The chunks of a live body, read one at a time as its items are asked
 * for, counted for progress, ended by the deadline, and released once.
 *
 * @module
 */

import {
  bodyOf,
  brokenBodyMessage,
  CallbackError,
  clockOf,
  nextTurn,
  overTotal,
  Pacer,
  startTimer,
  tellProgress,
  toPlainBytes,
  totalOf,
} from "./live_kit.ts";
import type { GrabTransportError } from "./errors.ts";
import type { LiveBody } from "./streams.ts";

/**
 * The chunks of a body, each read only when asked for, counted for
 * progress, and ended with a `GrabTransportError` when the deadline passes
 * or the connection fails.
 */
export class Chunks {
  #live: LiveBody;
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  // Set once the waiter is in place; the waiter may run at once, before.
  #stopWaiting: () => void = ignore;
  #total: number | undefined;
  #loaded = 0;
  #closed = false;
  #released = false;
  // Past the body's end the deadline is kept until `release()`: the last
  // items it gave are still decoded (a schema checks them) within it.
  #keepAtEnd: boolean;
  #passed = false;
  // The server kept a read waiting past `idleTimeout`.
  #idled = false;
  // One timer for every read, re-armed when it fires: one set and cleared
  // per read would cost a stream of small chunks a tenth of its speed.
  #stopIdle: (() => void) | undefined;
  // When the pending read began; `undefined` between reads.
  #readSince: number | undefined;
  #clock = clockOf();
  // A body that is not the platform's may never let timers fire.
  #pacer: Pacer | undefined;

  /**
   * `onPass` is told when the caller's signal or `attemptTimeout` ends the
   * body, with the failure its next read throws.
   */
  constructor(
    live: LiveBody,
    keepAtEnd: boolean,
    onPass?: (failure: unknown) => void,
  ) {
    this.#live = live;
    this.#keepAtEnd = keepAtEnd;
    this.#pacer = live.platform ? undefined : new Pacer();
    this.#reader = bodyOf(live.response, live.platform)?.getReader();
    this.#total = totalOf(live.response);
    // A body that is not the platform's may ignore the signal: cancelling
    // its reader ends a pending read at once.
    this.#stopWaiting = live.deadline.onPass(() => {
      // Let go at once, even of a body nobody reads; the next read says why.
      this.#passed = true;
      this.#close();
      this.#reader?.cancel(live.deadline.signal?.reason).catch(ignore);
      onPass?.(this.failure()!);
    });
  }

  /**
   * The next chunk, or `null` at the end. Throws the failure that ended
   * the body, or a {@linkcode CallbackError}.
   */
  async read(): Promise<Uint8Array | null> {
    const reader = this.#reader;
    const { deadline, fail } = this.#live;
    this.check();
    if (this.#closed || reader === undefined) {
      this.#close();
      return null;
    }
    let result;
    this.#watchIdle();
    try {
      result = await reader.read();
      this.#readSince = undefined;
      const pause = this.#pacer?.pause();
      if (pause !== undefined) await pause;
    } catch (cause) {
      this.#readSince = undefined;
      this.#close();
      if (this.#idled) throw this.#idleFailure();
      // A busy loop may run a failure past the time before its timer.
      if (deadline.due()) {
        throw fail(deadline.reason!, { cause });
      }
      const message = brokenBodyMessage(this.#live.status, this.#loaded);
      throw fail("network", { cause, message });
    }
    // A body that is not the platform's may hand over chunks without ever
    // yielding to the timers: the clock is read after each one.
    if (
      deadline.reason !== undefined || (!this.#live.platform && deadline.due())
    ) {
      await this.cancel(deadline.signal?.reason);
      throw fail(deadline.reason!, { cause: deadline.signal?.reason });
    }
    if (this.#idled) throw this.#idleFailure();
    if (result.done) {
      this.#close(this.#keepAtEnd);
      return null;
    }
    const chunk = this.#live.platform
      ? result.value
      : toPlainBytes(result.value);
    if (chunk === undefined) {
      await this.cancel();
      throw fail("network", {
        cause: new TypeError("The body gave a chunk that is not bytes"),
      });
    }
    this.#loaded += chunk.byteLength;
    this.#total = overTotal(this.#loaded, this.#total);
    const progress = this.#live.progress;
    if (progress !== undefined) {
      try {
        tellProgress(progress, { loaded: this.#loaded, total: this.#total });
      } catch (error) {
        await this.cancel();
        throw new CallbackError(error);
      }
    }
    return chunk;
  }

  /**
   * The failure that ended the body, if one did: the caller's signal,
   * `attemptTimeout` or a stall past `idleTimeout`.
   */
  failure(): GrabTransportError | undefined {
    const { deadline, fail } = this.#live;
    if (this.#idled) return this.#idleFailure();
    if (!this.#passed) return undefined;
    return fail(deadline.reason ?? "abort", { cause: deadline.signal?.reason });
  }

  /** Throws {@linkcode failure}, if there is one. */
  check(): void {
    const failure = this.failure();
    if (failure !== undefined) throw failure;
  }

  /**
   * Releases the body, handing `reason` on to its cancel; waits for a
   * cancel that settles soon.
   */
  async cancel(reason?: unknown): Promise<void> {
    if (this.#closed) return this.release();
    this.#close();
    const cancelling = this.#reader?.cancel(reason).catch(ignore);
    if (this.#live.waitForCancel) await cancelling;
  }

  /** Lets go of the deadline, once. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#live.release();
  }

  /**
   * Counts the read about to wait for the server: only such a read counts
   * toward `idleTimeout`, not the caller's time between reads.
   */
  #watchIdle(): void {
    const idle = this.#live.idleTimeout;
    // A timer of Infinity would fire at once.
    if (idle === false || idle === Infinity) return;
    this.#readSince = this.#clock();
    if (this.#stopIdle === undefined) this.#armIdle(idle);
  }

  /**
   * Ends the pending read once it has waited `idleTimeout`. A timer that
   * finds no read pending lapses, and one that finds a later read than it
   * was set for waits out that read's rest. A read found past its time is
   * given as long again as its timer was late, up to one more
   * `idleTimeout`, and at least one turn of the event loop (`overdue`, when
   * it began): a timer that fires late, after the program's own code held
   * the loop, may come before the bytes that arrived meanwhile, and then the
   * server was not idle. On a busy machine one turn is not enough for them
   * to pass the connection and the platform's body to the read.
   */
  #armIdle(ms: number, overdue?: number): void {
    const check = () => {
      this.#stopIdle = undefined;
      const since = this.#readSince;
      if (since === undefined || this.#closed) return;
      const idle = this.#live.idleTimeout as number;
      const waited = this.#clock() - since;
      // A clock that went back leaves at most a whole idleTimeout to wait.
      if (waited < idle) {
        return this.#armIdle(Math.min(idle, Math.ceil(idle - waited)));
      }
      if (since !== overdue) {
        return this.#armIdle(Math.min(idle, Math.floor(waited - idle)), since);
      }
      this.#idled = true;
      this.#close();
      // Ends the pending read at once, and reaches the body's own cancel.
      this.#reader?.cancel(idleError(idle)).catch(ignore);
    };
    if (overdue === undefined || ms > 0) {
      this.#stopIdle = startTimer(check, ms);
      return;
    }
    let stopped = false;
    this.#stopIdle = () => stopped = true;
    nextTurn(() => stopped || check());
  }

  #idleFailure(): GrabTransportError {
    const idle = this.#live.idleTimeout as number;
    return this.#live.fail("timeout", {
      cause: idleError(idle),
      message:
        `Cannot read on: the server sent nothing for the idleTimeout (${idle} ms) after ${this.#loaded} bytes; raise idleTimeout, or set it to false`,
    });
  }

  #close(keep = false): void {
    if (!this.#closed) {
      this.#closed = true;
      this.#stopWaiting();
      this.#stopIdle?.();
      this.#stopIdle = undefined;
    }
    if (!keep) this.release();
  }
}

function ignore(): void {}

function idleError(idle: number): DOMException {
  return new DOMException(
    `The server sent nothing for ${idle} ms`,
    "TimeoutError",
  );
}
