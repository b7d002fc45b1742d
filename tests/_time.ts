/**
 * Helpers for tests that fake the clock with `FakeTime` while real sockets
 * carry the requests. Fake time moves only when a test ticks it; the
 * requests and responses still need real turns of the event loop, which
 * {@linkcode until} gives them without moving the fake clock.
 *
 * @module
 */

import type { FakeTime } from "@std/testing/time";

/** Real milliseconds a wait may take before the test fails instead. */
const REAL_BOUND_MS = 10_000;

/**
 * Lets real I/O run until `done()` holds, leaving fake time where it is.
 * Fails after 10 s of real time, so a request that never arrives or a wait
 * that never ends fails the test instead of stalling the run.
 */
export async function until(
  time: FakeTime,
  done: () => boolean,
  what: string,
): Promise<void> {
  // performance.now() is not faked: it bounds the wait in real time.
  const started = performance.now();
  while (!done()) {
    if (performance.now() - started > REAL_BOUND_MS) {
      throw new Error(`Waited ${REAL_BOUND_MS} ms of real time for ${what}`);
    }
    await time.runMicrotasks();
  }
}

/** A promise, and whether it has settled yet. */
export interface Watched<T> {
  readonly promise: Promise<T>;
  readonly settled: boolean;
}

/** Watches `promise` so a test can tell whether it is still pending. */
export function watch<T>(promise: Promise<T>): Watched<T> {
  let settled = false;
  const done = () => {
    settled = true;
  };
  promise.then(done, done);
  return {
    promise,
    get settled() {
      return settled;
    },
  };
}

/**
 * The value of a watched promise once it settles, letting real I/O run
 * meanwhile and leaving fake time where it is.
 */
export async function settle<T>(
  time: FakeTime,
  watched: Watched<T>,
): Promise<T> {
  await until(time, () => watched.settled, "the promise to settle");
  return await watched.promise;
}
