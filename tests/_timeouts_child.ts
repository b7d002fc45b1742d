/**
 * Child process of shared_timeout_test.ts (run with `--v8-flags=--expose-gc`):
 * starts deadlines three at a time, as grabs that start together would, each
 * three with a ten-minute timeout of its own (a timeout counted from a
 * budget on `performance.now()`, new each time), ends them, and reports the heap retained. A
 * timeout signal that two deadlines share holds its memory until it fires,
 * long after they ended.
 *
 * @module
 */

import { Deadline } from "../src/deadline.ts";
import { report } from "./_memory.ts";

const THREES = 40_000;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");
const heap = () => {
  for (let i = 0; i < 4; i++) gc();
  return Deno.memoryUsage().heapUsed;
};

/**
 * Starts and ends `count` threes of deadlines, with timeouts from `from`
 * on; returns how many threes shared a signal.
 */
function threes(from: number, count: number): number {
  let shared = 0;
  for (let i = 0; i < count; i++) {
    const timeout = from + i / count;
    // The first of a timeout's window keeps a timer of its own; the second
    // makes a signal that the third shares.
    const [first, second, third] = [0, 1, 2].map(() =>
      new Deadline(timeout, undefined, "signal")
    ) as [Deadline, Deadline, Deadline];
    if (second.signal === third.signal) shared++;
    for (const deadline of [first, second, third]) deadline.dispose();
  }
  return shared;
}

threes(1_000_000, 100);
const before = heap();
const shared = threes(600_000, THREES);
const after = heap();
await report({ threes: THREES, shared, before, after });
