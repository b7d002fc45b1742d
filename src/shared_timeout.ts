/**
 * Timeout signals shared by deadlines: the deadlines of one timeout that
 * start within a short window share one platform timeout signal, so a grab
 * pays for neither a controller nor a timer of its own (but the first of
 * each window, which keeps a timer it can clear).
 *
 * @module
 */

import {
  monotonic,
  PLATFORM_CLEAR_TIMEOUT,
  PLATFORM_SET_TIMEOUT,
  platformTimers,
} from "./clock.ts";
import { MAX_TIMER_DELAY } from "./retry.ts";
import { globalOf, isNode, userAgent } from "./runtime.ts";

/**
 * True where what one request made is not to be used by another: a
 * Cloudflare Worker, which refuses a signal made while handling another
 * request, given to its `fetch` or listened to ("Cannot perform I/O on
 * behalf of a different request"). A signal shared by deadlines that start
 * together would cross requests there, so each deadline keeps its own.
 * Told once, by the user agent Workers give, or by their `WebSocketPair`
 * where a compatibility date before 2022-03-21 gives no `navigator`.
 */
const PER_REQUEST: boolean = userAgent() === "Cloudflare-Workers" ||
  typeof globalOf("WebSocketPair") === "function";

function sharesTimers(): boolean {
  return !PER_REQUEST && platformTimers() &&
    typeof AbortSignal.timeout === "function";
}

/**
 * A timeout signal shared by the deadlines of one window, and those of them
 * that wait for it: one listener on the signal tells them all, as adding
 * and removing a listener per deadline costs time in proportion to the
 * listeners already there. The listener is there only while someone waits:
 * a timeout signal with an abort listener keeps the program alive.
 */
export interface Shared {
  slot: number;
  timeout: number;
  signal: AbortSignal;
  waiting: Set<() => void>;
  /** The listener on the signal, while anyone waits. */
  onAbort: (() => void) | undefined;
  /** When the signal aborts, on the clock of {@linkcode monotonic}. */
  end: number;
  /** The timer that keeps the program alive while anyone waits. */
  hold: ReturnType<typeof setTimeout> | undefined;
  /** True while the listener is about to be taken off. */
  leaving: boolean;
}

/** The shared signal last handed out. */
let last: Shared | undefined;

/**
 * The window each timeout was last met in, and its shared signal once a
 * second deadline met it there. A platform timeout signal cannot be
 * cleared: it holds its memory until it fires, however soon its grabs
 * settle. So the first deadline of a window keeps a timer of its own, which
 * is cleared when it is disposed, and only a second one makes a signal to
 * share: timeouts that are seldom met twice in a window (each grab's its
 * own, counted from a budget) leave nothing behind. Bounded in entries.
 */
const windows = new Map<number, { slot: number; shared: Shared | undefined }>();

/** How many timeouts {@linkcode windows} remembers at once. */
const WINDOWS_LIMIT = 64;

/**
 * True where a timeout signal keeps no program alive, listened to or not:
 * Node's. Deno's and Bun's do (with a listener on it), and a browser's or a
 * worker's program does not end that way. Told once, by the globals.
 */
const SIGNALS_LET_GO: boolean = isNode();

/**
 * Adds `waiter` to those told when the shared signal aborts. On Node, while
 * anyone waits, a timer of the signal's length keeps the program alive: a
 * grab waiting for its timeout alone (a hook or a custom `fetch` that never
 * settles) would otherwise see the program end first, its promise never
 * settled. Elsewhere the signal itself does, and a timer set and cleared
 * for each grab would cost a custom `fetch`'s grab a third of its time.
 */
export function listen(shared: Shared, waiter: () => void): void {
  shared.waiting.add(waiter);
  if (shared.onAbort !== undefined) return;
  shared.onAbort = () => {
    shared.onAbort = undefined;
    release(shared);
    const waiting = [...shared.waiting];
    shared.waiting.clear();
    for (const waiter of waiting) waiter();
  };
  // Without options: converting them costs more than the listener.
  shared.signal.addEventListener("abort", shared.onAbort);
  if (!SIGNALS_LET_GO) return;
  // Ends with the signal or after it, as both count on the platform's timers.
  const left = Math.max(0, Math.ceil(shared.end - monotonic()));
  shared.hold = PLATFORM_SET_TIMEOUT(release, left, shared);
}

/**
 * `waiter` for {@linkcode listen}, run in the context of the code calling
 * this (its `AsyncLocalStorage` store, its trace): the listener on a shared
 * signal runs in the context of the deadline that made it on Node, and in
 * none on Deno, so a hook's or a custom `fetch`'s listener on the signal a
 * deadline aborts would see another grab's context. A promise reaction
 * keeps the context it was added in; the function returned only resolves
 * it, so `waiter` runs a microtask after the signal aborts, and nothing
 * holds it once the function is taken off with {@linkcode unlisten}.
 */
export function inCallerContext(waiter: () => void): () => void {
  let resolve!: () => void;
  new Promise<void>((settle) => resolve = settle).then(waiter);
  return resolve;
}

function release(shared: Shared): void {
  if (shared.hold === undefined) return;
  PLATFORM_CLEAR_TIMEOUT(shared.hold);
  shared.hold = undefined;
}

/**
 * Removes `waiter`; the last one to go takes the listener off the signal,
 * so that a signal nobody waits for no longer keeps the program alive. It
 * is taken off two microtasks later, before the event loop could end, unless
 * someone waits again by then: the grab that an `await` in a loop starts
 * next keeps it, as taking it off and adding it again costs more.
 */
export function unlisten(shared: Shared, waiter: () => void): void {
  shared.waiting.delete(waiter);
  if (shared.waiting.size > 0 || shared.onAbort === undefined) return;
  if (shared.leaving) return;
  shared.leaving = true;
  queueMicrotask(() => queueMicrotask(() => takeOff(shared)));
}

function takeOff(shared: Shared): void {
  shared.leaving = false;
  if (shared.waiting.size > 0 || shared.onAbort === undefined) return;
  shared.signal.removeEventListener("abort", shared.onAbort);
  shared.onAbort = undefined;
  release(shared);
}

/**
 * How many windows a timeout is cut into: each signal holds memory until
 * it fires, so grabs share one per window of 1/2000 of the timeout, in
 * whole milliseconds (at least 1 ms), which ends at most that window late,
 * never early. Rounded down, a window may be shorter: a timeout of 3 s
 * counts up to 3,000 signals at once.
 */
const SIGNALS_PER_TIMEOUT = 2_000;

/** The span of start times that share one signal of `timeout`. */
function windowOf(timeout: number): number {
  return Math.max(1, Math.floor(timeout / SIGNALS_PER_TIMEOUT));
}

/**
 * How many shared signals may count at once, of every timeout together:
 * about one busy timeout's worth at least, twice that for most. A timeout
 * met twice in a window and never again (two grabs at once with a timeout
 * counted from a budget) makes a signal for that window alone, and ever-new
 * timeouts would make them without end, each holding its memory for its
 * whole timeout. Past this bound, a deadline keeps a timer of its own,
 * cleared when it ends.
 */
const SIGNALS_LIMIT = 2 * SIGNALS_PER_TIMEOUT;

/** When each shared signal ends, on the clock of `now`: a min-heap. */
const ends: number[] = [];

/** True while fewer than {@linkcode SIGNALS_LIMIT} shared signals count. */
function mayCount(now: number): boolean {
  while (ends.length > 0 && ends[0]! <= now) dropSoonest();
  return ends.length < SIGNALS_LIMIT;
}

/** Notes a shared signal that counts until `end`. */
function countUntil(end: number): void {
  let at = ends.push(end) - 1;
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (ends[parent]! <= end) break;
    ends[at] = ends[parent]!;
    at = parent;
  }
  ends[at] = end;
}

function dropSoonest(): void {
  const last = ends.pop()!;
  if (ends.length === 0) return;
  let at = 0;
  for (;;) {
    let child = 2 * at + 1;
    if (child >= ends.length) break;
    if (child + 1 < ends.length && ends[child + 1]! < ends[child]!) child++;
    if (ends[child]! >= last) break;
    ends[at] = ends[child]!;
    at = child;
  }
  ends[at] = last;
}

/**
 * A signal that aborts at least `timeout` ms after `now`, shared by every
 * deadline but the first that starts in the same window with the same
 * timeout; `undefined` for the first. The platform's timeout signal holds no
 * timer that keeps a program alive and needs no clearing, so a grab pays for
 * neither a controller nor a timer of its own.
 */
function sharedSignal(now: number, timeout: number): Shared | undefined {
  const window = windowOf(timeout);
  const slot = Math.floor(now / window);
  if (last !== undefined && last.slot === slot && last.timeout === timeout) {
    return last;
  }
  const met = windows.get(timeout);
  if (met === undefined) {
    if (windows.size >= WINDOWS_LIMIT) windows.clear();
    windows.set(timeout, { slot, shared: undefined });
    return undefined;
  }
  if (met.slot !== slot) {
    met.slot = slot;
    met.shared = undefined;
    return undefined;
  }
  if (met.shared === undefined) {
    if (!mayCount(now)) return undefined;
    // From the window's start: never early for a deadline at its close
    // (rounded up, as a timeout signal takes whole milliseconds).
    const ms = Math.ceil(timeout + window - (now - slot * window));
    const signal = AbortSignal.timeout(ms);
    countUntil(now + ms);
    met.shared = {
      slot,
      timeout,
      signal,
      waiting: new Set(),
      onAbort: undefined,
      end: now + ms,
      hold: undefined,
      leaving: false,
    };
  }
  return last = met.shared;
}

/**
 * The shared timeout signal for a deadline of `timeout` ms starting `now`
 * (on the clock of {@linkcode clockOf} with the platform's timers), or
 * `undefined` when it must keep a timer of its own: it is the first of its
 * window, `setTimeout` is replaced (a fake clock), or the wait plus the
 * window is longer than a timer can hold.
 */
export function sharedTimeout(
  now: number,
  timeout: number,
): Shared | undefined {
  if (!sharesTimers() || timeout + windowOf(timeout) > MAX_TIMER_DELAY) {
    return undefined;
  }
  return sharedSignal(now, timeout);
}
