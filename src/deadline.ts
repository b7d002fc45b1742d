/**
 * The deadline of one grab (or of one attempt, for `attemptTimeout`): its
 * timeout and a signal to follow as one abort signal, and a race that bounds
 * whatever else it waits for (a header function, a hook, a custom `fetch`, a
 * body that ignores the signal).
 *
 * @module
 */

/** What {@linkcode Deadline.race} rejects with once the deadline has passed. */
export const PASSED: unique symbol = Symbol("deadline passed");

/** The end of a grab's (or an attempt's) time, shared by every stage of it. */
export class Deadline {
  /**
   * Aborts when the timeout passes or the caller's signal aborts; `undefined`
   * when neither can happen, so nothing needs to listen.
   */
  readonly signal: AbortSignal | undefined;
  #end: number;
  #kept = false;
  #reason: "timeout" | "abort" | undefined;
  #controller: AbortController | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #user: AbortSignal | undefined;
  #onAbort: (() => void) | undefined;
  // Called when the deadline passes. A set rather than listeners on the
  // signal: adding and removing an event listener per race costs more.
  #waiters: Set<() => void> | undefined;
  // True when the signal is a timeout signal shared with other deadlines.
  #shared = false;
  #onShared: (() => void) | undefined;

  /**
   * Starts the clock.
   *
   * @param timeout Milliseconds (at most 2^31 − 1), or `false` or `Infinity`
   * for none.
   * @param user The caller's signal.
   * @param shared True when nothing will ever stop this clock early or abort
   * this deadline alone (no live body keeps it): it may then share one
   * timeout signal with the deadlines of the same timeout that start within
   * 1/2000 of it.
   */
  constructor(
    timeout: number | false,
    user: AbortSignal | undefined,
    shared = false,
  ) {
    const bounded = timeout !== false && timeout !== Infinity;
    const now = Date.now();
    this.#end = bounded ? now + timeout : Infinity;
    if (!bounded && user === undefined) {
      this.signal = undefined;
      return;
    }
    if (
      bounded && user === undefined && shared && sharesTimers() &&
      timeout + windowOf(timeout) <= MAX_DELAY
    ) {
      this.signal = sharedSignal(now, timeout);
      this.#shared = true;
      return;
    }
    this.#controller = new AbortController();
    this.signal = this.#controller.signal;
    if (user?.aborted) {
      this.#pass("abort", user.reason);
      return;
    }
    if (bounded) {
      this.#timer = setTimeout(
        () => this.#pass("timeout", timeoutError()),
        timeout,
      );
    }
    if (user !== undefined) {
      this.#user = user;
      this.#onAbort = () => this.#pass("abort", user.reason);
      user.addEventListener("abort", this.#onAbort, { once: true });
    }
  }

  /** `Date.now()` at which the timeout passes; `Infinity` without one. */
  get end(): number {
    return this.#end;
  }

  /** Why the signal aborted, once it has. */
  get reason(): "timeout" | "abort" | undefined {
    if (this.#reason === undefined && this.#shared && this.signal!.aborted) {
      this.#pass("timeout", this.signal!.reason);
    }
    return this.#reason;
  }

  /**
   * True once the deadline has passed; passes it when its time has come but
   * its timer could not fire yet (a loop of reads that never yields to the
   * event loop).
   */
  due(): boolean {
    if (this.#reason === undefined && Date.now() >= this.#end) {
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
    if (this.#shared && this.#onShared === undefined) {
      // Listened to only when something waits: most grabs never race.
      this.#onShared = () => this.#pass("timeout", this.signal!.reason);
      this.signal!.addEventListener("abort", this.#onShared, { once: true });
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
    const settled = Promise.resolve(value);
    return new Promise<T>((resolve, reject) => {
      const stop = this.onPass(() => {
        reject(PASSED);
        release(settled, late);
      });
      settled.then(
        (result) => {
          stop();
          resolve(result);
        },
        (error) => {
          stop();
          reject(error);
        },
      );
    });
  }

  /**
   * Hands the deadline to a body that outlives the grab (a live stream):
   * with `stopClock`, its timeout no longer counts, while the caller's
   * signal still ends the body. `dispose()` does nothing from now on; the
   * function returned disposes it, for the body to call at its end.
   */
  keepFor(stopClock: boolean): () => void {
    if (this.#shared) {
      throw new TypeError("A shared deadline cannot be kept for a body");
    }
    if (stopClock) {
      if (this.#timer !== undefined) clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#end = Infinity;
    }
    this.#kept = true;
    return () => {
      this.#kept = false;
      this.dispose();
    };
  }

  /** Stops the timer and the listener on the caller's signal. */
  dispose(): void {
    if (this.#kept) return;
    if (this.#onShared !== undefined) {
      this.signal!.removeEventListener("abort", this.#onShared);
      this.#onShared = undefined;
    }
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#onAbort !== undefined) {
      this.#user!.removeEventListener("abort", this.#onAbort);
    }
    this.#waiters = undefined;
  }
}

/**
 * The platform's `setTimeout` as this module found it. A replaced one (a
 * fake clock in tests) must be honoured, and the platform's timeout signals
 * do not use it, so deadlines then keep timers of their own.
 */
const PLATFORM_SET_TIMEOUT = globalThis.setTimeout;

function sharesTimers(): boolean {
  return globalThis.setTimeout === PLATFORM_SET_TIMEOUT &&
    typeof AbortSignal.timeout === "function";
}

/** The timeout signal last handed out, with what it was made for. */
let last: { slot: number; timeout: number; signal: AbortSignal } | undefined;

/**
 * How many signals of one timeout may count at once: each holds memory
 * until it fires, so grabs share one per window of 1/2000 of the timeout
 * (at least 1 ms), which ends at most that window late, never early.
 */
const SIGNALS_PER_TIMEOUT = 2_000;

/** The span of start times that share one signal of `timeout`. */
function windowOf(timeout: number): number {
  return Math.max(1, Math.floor(timeout / SIGNALS_PER_TIMEOUT));
}

/**
 * A signal that aborts at least `timeout` ms after `now`, shared by every
 * deadline that starts in the same window with the same timeout. The
 * platform's timeout signal holds no timer that keeps a program alive and
 * needs no clearing, so a grab pays for neither a controller nor a timer of
 * its own.
 */
function sharedSignal(now: number, timeout: number): AbortSignal {
  const window = windowOf(timeout);
  const slot = Math.floor(now / window);
  if (last === undefined || last.slot !== slot || last.timeout !== timeout) {
    // From the window's start: never early for a deadline at its close.
    const ms = timeout + window - (now - slot * window);
    last = { slot, timeout, signal: AbortSignal.timeout(ms) };
  }
  return last.signal;
}

/** The longest wait a timer can hold. */
const MAX_DELAY = 2 ** 31 - 1;

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
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
