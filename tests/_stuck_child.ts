/**
 * Child process of long_run_test.ts (run with `--v8-flags=--expose-gc`):
 * grabs that each time out waiting for one promise of the caller's that
 * never settles (a header function's token that is stuck, a hook's, a
 * custom `fetch`'s), each grab with a signal of its own. The promise stays
 * reachable, as a cached one does, and keeps every reaction on it. Reports,
 * once the heap is collected, how many of the grabs' signals are left and
 * the heap each grab left behind.
 *
 * @module
 */

import createGrab from "../mod.ts";
import { collectGarbage, report } from "./_memory.ts";

const BATCH = 250;
const BATCHES = 8;

// Never settles; held here for the whole program.
const stuck = new Promise<never>(() => {});
const base = "http://127.0.0.1:9";
const grabs = {
  headers: createGrab(base, { headers: () => stuck, retry: 0 }),
  hook: createGrab(base, { hooks: { beforeRequest: () => stuck }, retry: 0 }),
  fetch: createGrab(base, { fetch: () => stuck, retry: 0 }),
};

const results: Record<string, unknown> = {};
for (const [name, grab] of Object.entries(grabs)) {
  const signals: WeakRef<AbortSignal>[] = [];
  let timeouts = 0;
  const batch = async () => {
    const settled = await Promise.all(
      Array.from({ length: BATCH }, () => {
        const controller = new AbortController();
        signals.push(new WeakRef(controller.signal));
        return grab("GET /item", { timeout: 5, signal: controller.signal });
      }),
    );
    for (const [, error] of settled) {
      if ((error as { kind?: string } | null)?.kind === "timeout") timeouts++;
    }
  };
  await batch();
  await collectGarbage();
  const before = Deno.memoryUsage().heapUsed;
  for (let i = 1; i < BATCHES; i++) await batch();
  await collectGarbage();
  const after = Deno.memoryUsage().heapUsed;
  results[name] = {
    grabs: signals.length,
    timeouts,
    signalsLeft: signals.filter((signal) => signal.deref() !== undefined)
      .length,
    bytesPerGrab: Math.round((after - before) / ((BATCHES - 1) * BATCH)),
  };
}
await report(results);
