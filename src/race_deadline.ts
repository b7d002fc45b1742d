/**
 * A value raced against a deadline's passing, with reactions on the value
 * that hold nothing of the race once it is decided: a promise of the
 * caller's that never settles (a stuck token behind a header function, a
 * hook's, a custom `fetch`'s) and is kept, as a cached one is, then keeps
 * neither the deadline nor the caller's signal of each grab that waited for
 * it, only a few bytes each.
 *
 * @module
 */

import type { Deadline } from "./deadline.ts";

/** What {@linkcode Deadline.race} rejects with once the deadline has passed. */
export const PASSED: unique symbol = Symbol("deadline passed");

/** One race, undecided while `reject` is set. */
interface Racing<T> {
  resolve: ((value: T) => void) | undefined;
  reject: ((error: unknown) => void) | undefined;
  /** Stops waiting for the deadline. */
  stop: (() => void) | undefined;
  /** Receives the value when it comes after the race was lost. */
  late: ((value: T) => void) | undefined;
  /**
   * The deadline, asked on a failure whether its time has come, its timer
   * run or not; held only while that time may still come.
   */
  timed: Deadline | undefined;
}

/**
 * Waits for `value`, or rejects with {@linkcode PASSED} as soon as
 * `deadline` passes. Its closures hold only the race: the deadline is
 * never captured, so nothing but the deadline's own waiters reach it. The
 * race holds it only until it is decided, and only while a timeout counts:
 * such a deadline passes in the end, which decides the race.
 */
export function raceDeadline<T>(
  deadline: Deadline,
  value: Promise<T>,
  late: ((value: T) => void) | undefined,
): Promise<T> {
  const racing: Racing<T> = {
    resolve: undefined,
    reject: undefined,
    stop: undefined,
    late,
    timed: deadline.timed ? deadline : undefined,
  };
  const raced = new Promise<T>((resolve, reject) => {
    racing.resolve = resolve;
    racing.reject = reject;
  });
  racing.stop = deadline.onPass(() => lose(racing));
  value.then((result) => win(racing, result), (error) => fail(racing, error));
  return raced;
}

function lose<T>(racing: Racing<T>): void {
  const reject = racing.reject;
  // `late` stays, for the value that may still come.
  racing.resolve =
    racing.reject =
    racing.stop =
    racing.timed =
      undefined;
  reject?.(PASSED);
}

function win<T>(racing: Racing<T>, result: T): void {
  const { resolve, stop, late } = racing;
  racing.resolve =
    racing.reject =
    racing.stop =
    racing.late =
    racing.timed =
      undefined;
  if (resolve !== undefined) {
    stop?.();
    resolve(result);
    return;
  }
  try {
    late?.(result);
  } catch {
    // Releasing is best effort: the grab has settled already.
  }
}

function fail<T>(racing: Racing<T>, error: unknown): void {
  const { reject, stop, timed } = racing;
  racing.resolve =
    racing.reject =
    racing.stop =
    racing.late =
    racing.timed =
      undefined;
  stop?.();
  // A busy loop may run a failure that came after the timeout's time before
  // the timeout's timer: the race was lost all the same.
  reject?.(timed?.due() ? PASSED : error);
}
