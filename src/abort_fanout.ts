/**
 * Waiting for a signal to abort with one listener on it, however many wait:
 * the grabs that share a caller's signal (one for a page, a request handler,
 * a whole program), the attempts and retry waits of grabs that share a
 * timeout signal, and the live bodies that outlive them.
 *
 * Node warns of a leak ("MaxListenersExceededWarning: Possible EventTarget
 * memory leak detected") once a signal has more than ten listeners, which
 * eleven grabs at once would give it, though each takes its own off as it
 * ends; its `fetch` lifts that limit on the signals it is given, not on the
 * ones grab listens to for it. And adding or removing a listener costs in
 * proportion to those already there.
 *
 * @module
 */

/** The waiters of one signal, and the listener that tells them. */
interface Fanout {
  waiters: Set<() => void>;
  listener: () => void;
}

/**
 * The fanout of each signal waited on, kept while the signal lives: a
 * signal waited on again and again (one for a whole program) makes one.
 */
const fanouts = new WeakMap<AbortSignal, Fanout>();

/**
 * Calls `waiter` once when `signal` aborts, unless it is taken off first
 * with {@linkcode stopWaiting}. The signal gets one listener for all its
 * waiters, there while any waits (a timeout signal with a listener keeps a
 * Deno or Bun program alive). As with a listener, a waiter added after
 * the signal's waiters were told is never called.
 */
export function whenAborted(signal: AbortSignal, waiter: () => void): void {
  let fanout = fanouts.get(signal);
  if (fanout === undefined) {
    const waiters = new Set<() => void>();
    const listener = () => tell(signal, waiters, listener);
    fanout = { waiters, listener };
    fanouts.set(signal, fanout);
  }
  const { waiters } = fanout;
  // Without options: converting them costs more than the listener.
  if (waiters.size === 0) signal.addEventListener("abort", fanout.listener);
  waiters.add(waiter);
}

/** Takes `waiter` off; the last one to go takes the listener off too. */
export function stopWaiting(signal: AbortSignal, waiter: () => void): void {
  const fanout = fanouts.get(signal);
  if (fanout === undefined || !fanout.waiters.delete(waiter)) return;
  if (fanout.waiters.size === 0) {
    signal.removeEventListener("abort", fanout.listener);
  }
}

/**
 * Calls every waiter once, each taken off before it is called: one that a
 * waiter before it takes off is not called, as a listener taken off during
 * the event is not. What a waiter throws is thrown once all were called.
 */
function tell(
  signal: AbortSignal,
  waiters: Set<() => void>,
  listener: () => void,
): void {
  let failed: { error: unknown } | undefined;
  for (const waiter of waiters) {
    waiters.delete(waiter);
    try {
      waiter();
    } catch (error) {
      failed ??= { error };
    }
  }
  signal.removeEventListener("abort", listener);
  if (failed !== undefined) throw failed.error;
}
