/**
 * Child process of long_run_test.ts (run with `--v8-flags=--expose-gc`):
 * opens live bodies of each type with one signal that lives on, as a
 * program's shutdown signal does, drops each unread and uncancelled, and
 * reports how many of them, and how many abort listeners on that signal,
 * are left once the heap was collected.
 *
 * @module
 */

import createGrab from "../mod.ts";
import { collectGarbage, countListeners, report } from "./_memory.ts";

const BODIES = 100;
const TYPES = ["stream", "sse", "ndjson"] as const;

const shutdown = new AbortController();
const signal = shutdown.signal;
const listening = countListeners(signal);

const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  // One body each type reads: an event, and a line that is a value.
  () =>
    new Response("data: 1\n\n1\n", {
      headers: { "content-type": "text/event-stream", "x-kind": "live" },
    }),
);
const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, { retry: 0 });

const results: Record<string, unknown> = {};
for (const responseType of TYPES) {
  const bodies: WeakRef<object>[] = [];
  let failures = 0;
  for (let i = 0; i < BODIES; i++) {
    const [data, error] = await grab("GET /live", { signal, responseType });
    if (error !== null || data === null) failures++;
    else bodies.push(new WeakRef(data));
  }
  await collectGarbage();
  results[responseType] = {
    failures,
    bodies: BODIES,
    left: bodies.filter((body) => body.deref() !== undefined).length,
    listeners: listening(),
  };
}
await report(results);
// The dropped bodies were never read: the process ends without waiting.
Deno.exit(0);
