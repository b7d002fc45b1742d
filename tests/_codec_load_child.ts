/**
 * Child process of bounds_time_test.ts, run with an import map that points
 * `src/jsonapi/format.ts` at a module that does not exist or that never
 * finishes loading, as a bundle's chunk that could not be fetched or whose
 * fetch stalls. Every JSON:API grab and `Call.send` must settle with a
 * transport error, within its timeout, and leave no unhandled rejection;
 * writes one JSON line with what each gave, then exits (a stalled import
 * would keep the process alive).
 *
 * @module
 */

import { report, watchUnhandled } from "./_memory.ts";

const unhandled = watchUnhandled();
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () => Response.json({ data: null }),
);
const { default: createGrab, Call } = await import("../mod.ts");
const url = `http://127.0.0.1:${server.addr.port}`;
// The timeout, from the parent: short for a load that never ends, long for
// one that fails, so a slow machine cannot make a failed load a timeout.
const timeout = Number(Deno.args[0] ?? 300);
const options = { format: "json-api", timeout, retry: 0 } as const;
const grab = createGrab(url, options);
const outcomes: Record<string, string> = {};
// A module not loaded says so, rather than blaming the network.
const kindOf = (error: unknown) => {
  const { kind = "ok", message = "" } =
    (error as { kind?: string; message?: string } | null) ?? {};
  return message.includes("could not be loaded") ? `${kind}, unloaded` : kind;
};
for (const attempt of ["first", "second"]) {
  try {
    const [, error] = await grab("GET /a");
    outcomes[`grab, ${attempt}`] = kindOf(error);
  } catch (error) {
    outcomes[`grab, ${attempt}`] = `rejected: ${(error as Error)?.name}`;
  }
}
// The failure names the URL with its path parameters filled; a missing
// one is still a validation error, whether or not the codec loads.
try {
  const [, error] = await grab("GET /users/:id", { params: { id: 7 } });
  const at = (error as { url?: string } | null)?.url ?? "";
  outcomes["grab, params"] = `${kindOf(error)} ${new URL(at).pathname}`;
} catch (error) {
  outcomes["grab, params"] = `rejected: ${(error as Error)?.name}`;
}
try {
  await grab("GET /users/:id", {} as never);
  outcomes["grab, missing param"] = "settled";
} catch (error) {
  outcomes["grab, missing param"] = `rejected: ${(error as Error)?.name}`;
}
try {
  const outcome = await new Call("GET /a", url).send(options);
  outcomes["Call.send"] = outcome.ok ? "ok" : kindOf(outcome.error);
} catch (error) {
  outcomes["Call.send"] = `rejected: ${(error as Error)?.name}`;
}
// A stream body the failed grab never sent is released, not left open.
let cancelled = false;
const body = new ReadableStream({
  cancel() {
    cancelled = true;
  },
});
try {
  const [, error] = await grab("POST /a", { body });
  await new Promise((resolve) => setTimeout(resolve, 0));
  outcomes["grab, stream body"] = `${kindOf(error)} cancelled: ${cancelled}`;
} catch (error) {
  outcomes["grab, stream body"] = `rejected: ${(error as Error)?.name}`;
}
await new Promise((resolve) => setTimeout(resolve, 20));
await server.shutdown();
await report({ outcomes, unhandled });
Deno.exit(0);
