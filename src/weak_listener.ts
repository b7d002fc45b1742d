/**
 * An abort listener that does not hold what it tells: for a signal that may
 * outlive it (one for the whole program), so that what the caller drops is
 * collected, and the listener taken off the signal after it.
 *
 * @module
 */

import { stopWaiting, whenAborted } from "./abort_fanout.ts";

interface Listening {
  signal: AbortSignal;
  listener: () => void;
}

/** Takes the listener off its signal once its target is collected. */
let collected: FinalizationRegistry<Listening> | undefined;

/**
 * Calls `onAbort(target)` when `signal` aborts, while anything else holds
 * `target`; the listener holds it only weakly, where the runtime has weak
 * references. `onAbort` must not hold `target` either. Returns the
 * listener, for {@linkcode unlistenWeakly}.
 */
export function listenWeakly<T extends object>(
  signal: AbortSignal,
  target: T,
  onAbort: (target: T) => void,
): () => void {
  // A Worker whose compatibility date is before 2025-05-05 (or that sets
  // `disable_weak_ref`) has neither: the listener holds `target` there.
  if (
    typeof WeakRef !== "function" || typeof FinalizationRegistry !== "function"
  ) {
    return listenStrongly(signal, target, onAbort);
  }
  const held = new WeakRef(target);
  const listener = () => {
    const target = held.deref();
    if (target !== undefined) onAbort(target);
  };
  whenAborted(signal, listener);
  collected ??= new FinalizationRegistry(({ signal, listener }) =>
    stopWaiting(signal, listener)
  );
  collected.register(target, { signal, listener }, target);
  return listener;
}

/**
 * A listener that holds `target`. A function of its own: a closure over
 * `target` in `listenWeakly` would make every closure there hold it.
 */
function listenStrongly<T extends object>(
  signal: AbortSignal,
  target: T,
  onAbort: (target: T) => void,
): () => void {
  const listener = () => onAbort(target);
  whenAborted(signal, listener);
  return listener;
}

/** Takes the listener that {@linkcode listenWeakly} added for `target` off. */
export function unlistenWeakly(
  signal: AbortSignal,
  target: object,
  listener: () => void,
): void {
  stopWaiting(signal, listener);
  collected?.unregister(target);
}
