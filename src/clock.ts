/**
 * The clocks deadlines count on, and whether the timers in place are the
 * platform's or a fake clock's (in tests).
 *
 * @module
 */

/**
 * The platform's `setTimeout` as this module found it. A replaced one (a
 * fake clock in tests) must be honoured, and the platform's timeout signals
 * do not use it, so deadlines then keep timers of their own.
 */
export const PLATFORM_SET_TIMEOUT: typeof setTimeout = globalThis.setTimeout;

/** The `clearTimeout` found with {@linkcode PLATFORM_SET_TIMEOUT}. */
export const PLATFORM_CLEAR_TIMEOUT: typeof clearTimeout =
  globalThis.clearTimeout;

/**
 * True when a fake clock was in place as this module loaded (a test
 * runner's global fake timers): the timers found then are not the
 * platform's, so deadlines never share a timeout signal, which would count
 * on the real clock, and count on `Date.now()`. Told by `Date` itself
 * replaced, its `now` not the engine's: a fake clock replaces the
 * constructor, so that `new Date()` follows it too, where a profiler or an
 * APM agent that wraps `Date.now`, or a test that stubs it, leaves the
 * constructor and the platform's timers in place. Unless the clock behind
 * that `Date` tells it faked no `setTimeout`.
 */
const FAKE_AT_LOAD: boolean = (() => {
  try {
    const native = (value: unknown) =>
      Function.prototype.toString.call(value).includes("[native code]");
    const replaced = Date.prototype.constructor !== Date || !native(Date);
    if (!replaced || native(Date.now)) return false;
    // `@sinonjs/fake-timers` (under Vitest's and Jest's fake timers) marks
    // what it fakes with its clock: a `Date` faked alone (a test that
    // freezes the date) leaves the engine's timers, on the real clock.
    const clock = (Date as { clock?: unknown }).clock;
    return clock === undefined ||
      (globalThis.setTimeout as { clock?: unknown }).clock === clock;
  } catch {
    return false;
  }
})();

/** The wall clock, which a fake clock moves with its timers. */
function wall(): number {
  return Date.now();
}

/**
 * The clock the platform's timers count on: monotonic, so a wall clock that
 * is stepped (NTP), set back or frozen (a test that stubs `Date.now`) moves
 * no deadline. The platform's as this module found it, as its timers are: a
 * `performance.now` stubbed or a `performance` taken away later changes
 * neither. The wall clock where `performance` is missing.
 */
export const monotonic: () => number = typeof performance === "object" &&
    typeof performance?.now === "function"
  ? performance.now.bind(performance)
  : wall;

/**
 * The clock a deadline starting now counts on: that of the platform's
 * timers, or `Date.now()` where `setTimeout` is replaced, as a fake clock
 * moves both together.
 */
export function clockOf(): () => number {
  return platformTimers() ? monotonic : wall;
}

/**
 * True while the timers in place are the platform's: those found as this
 * module loaded, unless a fake clock was in place then.
 */
export function platformTimers(): boolean {
  return !FAKE_AT_LOAD && globalThis.setTimeout === PLATFORM_SET_TIMEOUT;
}

/**
 * Runs `run` after `ms` on the timers in place now, and gives what stops it:
 * the `clearTimeout` found with that `setTimeout`, as a fake clock started
 * or restored since would leave a real timer counting, or clear another's.
 */
export function startTimer(run: () => void, ms: number): () => void {
  const clear = globalThis.clearTimeout;
  const timer = setTimeout(run, ms);
  return () => {
    try {
      clear(timer);
    } catch {
      // A fake clock restored since refuses: its timers are gone with it.
    }
  };
}

/**
 * Runs `run` after one turn of the real event loop. On the platform's
 * timers, unless a fake clock was in place as this module loaded: its
 * `setTimeout` waits until the test moves the clock, and throws once the
 * clock is restored, so a message on a channel of its own is the turn then.
 */
export function nextTurn(run: () => void): void {
  if (!FAKE_AT_LOAD) {
    PLATFORM_SET_TIMEOUT(run, 0);
    return;
  }
  if (typeof MessageChannel !== "function") {
    // Nothing to turn on: the loop goes on at once rather than hang.
    queueMicrotask(run);
    return;
  }
  const { port1, port2 } = new MessageChannel();
  port1.onmessage = () => {
    port1.close();
    port2.close();
    run();
  };
  port2.postMessage(null);
}
