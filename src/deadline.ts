/**
 * The deadline of one grab (or of one attempt, for `attemptTimeout`): its
 * timeout and a signal to follow as one abort signal, and a race that bounds
 * whatever else it waits for (a header function, a hook, a custom `fetch`, a
 * body that ignores the signal).
 *
 * @module
 */

import { clockOf, startTimer } from "./clock.ts";
import {
  inCallerContext,
  listen,
  type Shared,
  sharedTimeout,
  unlisten,
} from "./shared_timeout.ts";
import { listenWeakly, unlistenWeakly } from "./weak_listener.ts";
import { stopWaiting, whenAborted } from "./abort_fanout.ts";
import { PASSED, raceDeadline } from "./race_deadline.ts";

export { PASSED };

/** The end of a grab's (or an attempt's) time, shared by every stage of it. */
export class Deadline {
  /**
   * Aborts when the timeout passes or the caller's signal aborts; `undefined`
   * when neither can happen, so nothing needs to listen.
   */
  readonly signal: AbortSignal | undefined;
  /** The milliseconds it was given, or `false`. */
  readonly timeout: number | false;
  /** The milliseconds its timeout's message names: the caller's. */
  readonly told: number | false;
  // When the timeout passes, on the clock chosen as the deadline starts.
  #end: number;
  #clock: () => number;
  #kept = false;
  #reason: "timeout" | "abort" | undefined;
  #controller: AbortController | undefined;
  #stopTimer: (() => void) | undefined;
  #user: AbortSignal | undefined;
  #weak: (() => void) | undefined; // on #user, while a body keeps this
  #onAbort: (() => void) | undefined;
  // Called when the deadline passes. A set rather than listeners on the
  // signal: adding and removing an event listener per race costs more.
  #waiters: Set<() => void> | undefined;
  // The timeout signal this deadline shares with others, if it does.
  #shared: Shared | undefined;
  #onShared: (() => void) | undefined;

  /**
   * Starts the clock.
   *
   * @param timeout Milliseconds (at most 2^31 − 1), or `false` or `Infinity`
   * for none.
   * @param user The caller's signal.
   * @param shared How this deadline may share the timeout of the deadlines
   * of the same timeout that start within 1/2000 of it, when nothing will
   * ever stop its clock early (no live body keeps it): `"signal"`, their
   * timeout signal itself, when no code of the caller's sees it; `"timer"`,
   * a signal of its own that their signal aborts until this deadline is
   * disposed, when a hook or a custom `fetch` sees it (a shared signal
   * aborts after the grab, holding its listeners till then); `false`, a
   * timer of its own.
   * @param told The milliseconds the caller gave, when `timeout` is what is
   * left of them: a timeout's message names them.
   */
  constructor(
    timeout: number | false,
    user: AbortSignal | undefined,
    shared: "signal" | "timer" | false = false,
    told: number | false = timeout,
  ) {
    this.timeout = timeout;
    this.told = told;
    const bounded = timeout !== false && timeout !== Infinity;
    this.#clock = clockOf();
    const now = this.#clock();
    this.#end = bounded ? now + timeout : Infinity;
    if (!bounded && user === undefined) {
      this.signal = undefined;
      return;
    }
    this.#shared = bounded && user === undefined && shared !== false
      ? sharedTimeout(now, timeout)
      : undefined;
    if (this.#shared !== undefined && shared === "signal") {
      this.signal = this.#shared.signal;
      return;
    }
    this.#controller = new AbortController();
    this.signal = this.#controller.signal;
    const linked = this.#shared;
    if (linked !== undefined) {
      // A hook's or a custom `fetch`'s listener on the signal runs then.
      this.#onShared = inCallerContext(() =>
        this.#pass("timeout", linked.signal.reason)
      );
      listen(linked, this.#onShared);
      return;
    }
    if (user?.aborted) {
      this.#pass("abort", user.reason);
      return;
    }
    if (bounded) {
      this.#stopTimer = startTimer(
        () => this.#pass("timeout", timeoutError()),
        timeout,
      );
    }
    if (user !== undefined) {
      this.#user = user;
      this.#onAbort = () => this.#pass("abort", this.#user!.reason);
      whenAborted(user, this.#onAbort);
    }
  }

  /** Milliseconds until the timeout passes; `Infinity` without one. */
  left(): number {
    return this.#end - this.#clock();
  }

  /** True while its time may still come: a timeout counts down. */
  get timed(): boolean {
    return this.#end !== Infinity;
  }

  /** Why the signal aborted, once it has. */
  get reason(): "timeout" | "abort" | undefined {
    const shared = this.#shared;
    if (this.#reason === undefined && shared?.signal.aborted) {
      this.#pass("timeout", shared.signal.reason);
    }
    return this.#reason;
  }

  /**
   * True once the deadline has passed; passes it when its time has come but
   * its timer could not fire yet (a loop of reads that never yields to the
   * event loop).
   */
  due(): boolean {
    if (this.#reason === undefined && this.#clock() >= this.#end) {
      this.#pass("timeout", timeoutError());
    }
    return this.reason !== undefined;
  }

  #pass(reason: "timeout" | "abort", cause: unknown): void {
    if (this.#reason !== undefined) return;
    this.#reason = reason;
    // A shared signal aborts by itself, for every deadline that shares it.
    this.#controller?.abort(cause);
    const waiters = this.#waiters;
    this.#waiters = undefined;
    waiters?.forEach((waiter) => waiter());
  }

  /**
   * Calls `waiter` once when the deadline passes (at once if it has);
   * returns the function that stops waiting.
   */
  onPass(waiter: () => void): () => void {
    if (this.reason !== undefined) {
      waiter();
      return ignore;
    }
    if (this.signal === undefined) return ignore;
    const shared = this.#shared;
    if (shared !== undefined && this.#onShared === undefined) {
      // Listened to only when something waits: most grabs never race.
      this.#onShared = () => this.#pass("timeout", shared.signal.reason);
      listen(shared, this.#onShared);
    }
    (this.#waiters ??= new Set()).add(waiter);
    return () => this.#waiters?.delete(waiter);
  }

  /**
   * Waits for `value`, or rejects with {@linkcode PASSED} as soon as the
   * deadline passes, whether or not `value` ever settles. `late` receives
   * what `value` resolves to after the race was lost, to release it (a
   * response body).
   */
  race<T>(value: T | Promise<T>, late?: (value: T) => void): Promise<T> {
    if (this.reason !== undefined) return lost(value, late);
    if (this.signal === undefined || !isThenable(value)) {
      return Promise.resolve(value);
    }
    return raceDeadline(this, Promise.resolve(value), late);
  }

  /**
   * Hands the deadline to a body that outlives the grab (a live stream):
   * with `stopClock`, its timeout no longer counts, while the caller's
   * signal still ends the body. `dispose()` does nothing from now on; the
   * function returned disposes it, for the body to call at its end.
   */
  keepFor(stopClock: boolean): () => void {
    if (this.#shared !== undefined) {
      throw new TypeError("A shared deadline cannot be kept for a body");
    }
    if (stopClock) {
      this.#stopTimer?.();
      this.#stopTimer = undefined;
      this.#end = Infinity;
    }
    this.#kept = true;
    const user = this.#user;
    const strong = this.#onAbort;
    if (user === undefined || strong === undefined) {
      return () => {
        this.#kept = false;
        this.dispose();
      };
    }
    // A body the caller drops unread is not held by a signal that lives on
    // (one for the whole program), as fetch does not hold it.
    stopWaiting(user, strong);
    this.#weak = listenWeakly(user, this, Deadline.#callerAborted);
    this.#onAbort = undefined;
    return () => {
      this.#kept = false;
      const weak = this.#weak;
      this.#weak = undefined;
      if (weak !== undefined) unlistenWeakly(this.#user!, this, weak);
      this.dispose();
    };
  }

  static #callerAborted(deadline: Deadline): void {
    deadline.#pass("abort", deadline.#user!.reason);
  }

  /** Stops the timer and the listener on the caller's signal. */
  dispose(): void {
    if (this.#kept) return;
    if (this.#onShared !== undefined) {
      unlisten(this.#shared!, this.#onShared);
      this.#onShared = undefined;
    }
    // A signal of its own no longer follows the shared one.
    if (this.#controller !== undefined) this.#shared = undefined;
    this.#stopTimer?.();
    if (this.#onAbort !== undefined) stopWaiting(this.#user!, this.#onAbort);
    // A kept error or stream keeps this deadline: let go of the caller's.
    this.#user = this.#onAbort = undefined;
    this.#waiters = undefined;
  }
}

function lost<T>(value: T | Promise<T>, late?: (value: T) => void): Promise<T> {
  release(Promise.resolve(value), late);
  return Promise.reject(PASSED);
}

/** Hands a value that arrives too late to `late`; nothing may escape. */
function release<T>(value: Promise<T>, late?: (value: T) => void): void {
  value.then((result) => {
    try {
      late?.(result);
    } catch {
      // Releasing is best effort: the grab has settled already.
    }
  }, ignore);
}

function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === "function";
}

function ignore(): void {}

function timeoutError(): DOMException {
  return new DOMException("The timeout passed", "TimeoutError");
}

/**
 * Resolves `true` after `ms`, or `false` as soon as `signal` aborts. `ms` is
 * at most 2^31 − 1: the caller never asks a timer for more.
 */
export function sleep(
  ms: number,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      stop();
      resolve(false);
    };
    const stop = startTimer(() => {
      if (signal !== undefined) stopWaiting(signal, onAbort);
      resolve(true);
    }, ms);
    if (signal !== undefined) whenAborted(signal, onAbort);
  });
}
