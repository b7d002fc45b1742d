/**
 * Child process of mutation_fail_test.ts (run with `--v8-flags=--expose-gc`):
 * opens live bodies with one signal that lives on, as a program's shutdown
 * signal does, drops each unread, and reports how many of them, and how
 * many abort listeners on that signal, are left once the heap was
 * collected.
 *
 * @module
 */

import createGrab from "../mod.ts";
import { collectGarbage, countListeners, report } from "./_memory.ts";

const BODIES = 20;

const shutdown = new AbortController();
const listening = countListeners(shutdown.signal);
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () =>
    new Response("data: 1\n\n", {
      headers: { "content-type": "text/event-stream" },
    }),
);
const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, { retry: 0 });

/** Opens the bodies in a frame of its own, so that none is held after. */
async function openAndDrop(): Promise<WeakRef<object>[]> {
  const bodies: WeakRef<object>[] = [];
  for (let i = 0; i < BODIES; i++) {
    const [data] = await grab("GET /live", {
      signal: shutdown.signal,
      responseType: "sse",
    });
    if (data !== null) bodies.push(new WeakRef(data));
  }
  return bodies;
}

const bodies = await openAndDrop();
const opened = bodies.length;
await collectGarbage();
await report({
  opened,
  left: bodies.filter((body) => body.deref() !== undefined).length,
  listeners: listening(),
});
// The dropped bodies were never read: the process ends without waiting.
Deno.exit(0);
