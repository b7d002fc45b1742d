/**
 * Child process of bounds_time_test.ts, run with an import map
 * (_fixtures/missing_upload_map.json) that points `src/upload.ts` at a
 * module that does not exist, as a bundle's chunk that could not be
 * fetched. Each grab that reports its upload must settle with a transport
 * error, never reject, send nothing, release a stream body it never sent
 * and leave no unhandled rejection; writes one JSON line with what each
 * grab gave.
 *
 * @module
 */

import { report, watchUnhandled } from "./_memory.ts";

const unhandled = watchUnhandled();
let requests = 0;
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  async (request) => {
    requests++;
    await request.body?.cancel();
    return Response.json({});
  },
);
const { default: createGrab } = await import("../mod.ts");
const url = `http://127.0.0.1:${server.addr.port}`;
const outcomes: Record<string, string> = {};
const cases = {
  "text, first": {},
  "text, second": {},
  "text, hook": { hooks: { beforeRequest: () => {} } },
  "stream": {},
} as const;
for (const [name, options] of Object.entries(cases)) {
  let cancelled = false;
  const body = name === "stream"
    ? new ReadableStream<Uint8Array>({
      cancel() {
        cancelled = true;
      },
    })
    : "hello";
  const grab = createGrab(url, { retry: 0, ...options });
  try {
    const [, error] = await grab("POST /up", {
      body,
      onUploadProgress: () => {},
    });
    await new Promise((resolve) => setTimeout(resolve, 0));
    const { kind = "ok", message = "" } =
      (error as { kind?: string; message?: string } | null) ?? {};
    // A module not loaded says so, rather than blaming the caller's body.
    const unloaded = message.includes("could not be loaded");
    outcomes[name] = `${kind}${unloaded ? ", unloaded" : ""}` +
      (name === "stream" ? ` cancelled: ${cancelled}` : "");
  } catch (error) {
    outcomes[name] = `rejected: ${(error as Error)?.name}`;
  }
}
outcomes.requests = String(requests);
await new Promise((resolve) => setTimeout(resolve, 20));
await server.shutdown();
await report({ outcomes, unhandled });
