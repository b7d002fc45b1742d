/**
 * Child process of bounds_time_test.ts, run with an import map
 * (_fixtures/missing_streams_map.json) that points
 * `src/streams.ts` at a module that does not exist, as a bundle's chunk that
 * could not be fetched. Each live grab must settle with a transport error,
 * never reject, and leave no unhandled rejection; writes one JSON line with
 * what each grab gave.
 *
 * @module
 */

import { report, watchUnhandled } from "./_memory.ts";

const unhandled = watchUnhandled();
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () =>
    new Response("data: x\n\n", {
      headers: { "content-type": "text/event-stream" },
    }),
);
const { default: createGrab } = await import("../mod.ts");
const url = `http://127.0.0.1:${server.addr.port}`;
const outcomes: Record<string, string> = {};
for (const headers of [undefined, () => ({ "x-token": "t" })]) {
  const grab = createGrab(url, { retry: 0, ...(headers ? { headers } : {}) });
  for (const responseType of ["sse", "ndjson", "stream"] as const) {
    const name = `${responseType}${headers ? ", header function" : ""}`;
    try {
      const [, error] = await grab("GET /live", { responseType });
      const { kind = "ok", message = "" } =
        (error as { kind?: string; message?: string } | null) ?? {};
      // A module not loaded says so, rather than blaming the network.
      const unloaded = message.includes("could not be loaded");
      outcomes[name] = unloaded ? `${kind}, unloaded` : kind;
    } catch (error) {
      outcomes[name] = `rejected: ${(error as Error)?.name}`;
    }
  }
}
await new Promise((resolve) => setTimeout(resolve, 20));
await server.shutdown();
await report({ outcomes, unhandled });
