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
import { report } from "./_memory.ts";

const BODIES = 100;
const TYPES = ["stream", "sse", "ndjson"] as const;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");

/** Collects, then lets finalizers run, a few times. */
async function collect(): Promise<void> {
  for (let i = 0; i < 4; i++) {
    gc!();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const shutdown = new AbortController();
const listening = new Set<unknown>();
const signal = shutdown.signal;
const add = signal.addEventListener.bind(signal);
const remove = signal.removeEventListener.bind(signal);
signal.addEventListener = (
  type: string,
  listener: EventListenerOrEventListenerObject,
  options?: boolean | AddEventListenerOptions,
) => {
  if (type === "abort") listening.add(listener);
  add(type, listener, options);
};
signal.removeEventListener = (
  type: string,
  listener: EventListenerOrEventListenerObject,
  options?: boolean | EventListenerOptions,
) => {
  if (type === "abort") listening.delete(listener);
  remove(type, listener, options);
};

const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () => new Response("data: 1\n\n1\n", { headers: { "x-kind": "live" } }),
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
  await collect();
  results[responseType] = {
    failures,
    bodies: BODIES,
    left: bodies.filter((body) => body.deref() !== undefined).length,
    listeners: listening.size,
  };
}
await report(results);
// The dropped bodies were never read: the process ends without waiting.
Deno.exit(0);
