/**
 * Child process of clock_test.ts: wraps `Date.now` before grab loads, as a
 * profiler or an APM agent does (the engine's own clock behind it, the
 * timers the platform's), then steps the wall clock an hour forward while
 * a grab reads its body, and reports how the grab ended. A wrapped
 * `Date.now` is no fake clock: the step must move no deadline.
 *
 * @module
 */

import { report } from "./_memory.ts";

const HOUR = 3_600_000;

let offset = 0;
const engine = Date.now;
Date.now = function now(): number {
  return engine.call(Date) + offset;
};

const { default: createGrab } = await import("../mod.ts");

const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () => {
    const parts = ["[1", ",2", ",3]"];
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (sent === 1) offset = HOUR;
        if (sent === parts.length) return controller.close();
        controller.enqueue(new TextEncoder().encode(parts[sent++]));
      },
    });
    return new Response(body, {
      headers: { "content-type": "application/json" },
    });
  },
);
// A fetch of the caller's: its body is read chunk by chunk, the clock
// looked at after each.
const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
  retry: 0,
  timeout: 30_000,
  fetch: (input, init) => fetch(input, init),
});
const [data, error] = await grab("GET /items");
await server.shutdown();
await report({ data, kind: (error as { kind?: string } | null)?.kind ?? null });
