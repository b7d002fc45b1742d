/**
 * Child process of live_streams_at_scale_test.ts (run with
 * `--v8-flags=--expose-gc`): reads many short event streams one after
 * another with `idleTimeout` and without, and reports the heap each run
 * retains; then drops streams read in part, their idle timer armed, and
 * reports how many of their responses are left once that timer had time to
 * lapse.
 *
 * @module
 */

import createGrab, { type GrabStream } from "../mod.ts";
import { collectGarbage, report } from "./_memory.ts";

const STREAMS = Number(Deno.args[0] ?? 2_000);
const DROPPED = 50;
const IDLE = 100;

const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () =>
    new Response("data: 1\n\ndata: 2\n\n", {
      headers: { "content-type": "text/event-stream" },
    }),
);
const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, { retry: 0 });

async function run(idleTimeout: number | false) {
  let failures = 0;
  await collectGarbage();
  const before = Deno.memoryUsage().heapUsed;
  for (let i = 0; i < STREAMS; i++) {
    const [events, error] = await grab("GET /short", {
      responseType: "sse",
      idleTimeout,
    });
    if (error !== null || events === null) {
      failures++;
      continue;
    }
    let seen = 0;
    for await (const _ of events) seen++;
    if (seen !== 2 || events.error !== null) failures++;
  }
  await collectGarbage();
  return { failures, retained: Deno.memoryUsage().heapUsed - before };
}

// Warm up, so the first run pays for no code loaded.
await run(false);
const without = await run(false);
const withIdle = await run(IDLE);

// Read one event of each, so the idle timer is armed, and drop it. The
// timer holds the body's reader and response, which a fetch of our own
// sees: once it lapsed, the heap lets go of them all.
const responses: WeakRef<Response>[] = [];
const watched = createGrab(`http://127.0.0.1:${server.addr.port}`, {
  retry: 0,
  fetch: async (input, init) => {
    const response = await fetch(input, init);
    responses.push(new WeakRef(response));
    return response;
  },
});
for (let i = 0; i < DROPPED; i++) {
  const [events] = await watched("GET /short", {
    responseType: "sse",
    idleTimeout: IDLE,
  });
  const iterator = (events as GrabStream<unknown>)[Symbol.asyncIterator]();
  await iterator.next();
}
// Past the idle timeout: a timer finding no read pending lapses.
await new Promise((resolve) => setTimeout(resolve, IDLE * 3));
await collectGarbage();
const left = responses.filter((body) => body.deref() !== undefined).length;

await report({
  with: withIdle,
  without,
  streams: STREAMS,
  dropped: { bodies: DROPPED, left },
});
Deno.exit(0);
