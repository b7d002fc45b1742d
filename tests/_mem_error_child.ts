/**
 * Child process of bounded_state_test.ts (run with `--v8-flags=--expose-gc`):
 * makes grabs that fail with a status (404, and 503 retried), keeps each
 * `GrabError` as a caller that logs or queues its errors does, drops
 * everything else of the grab, and reports how many of the caller's
 * options (the body, the path parameters, the query, the hooks, the signal)
 * are still reachable. A control that the caller keeps must survive, which
 * shows the count sees a reference when there is one.
 *
 * @module
 */

import createGrab from "../mod.ts";
import { collectGarbage, report } from "./_memory.ts";

const GRABS = 40;
const KINDS = ["body", "params", "query", "hooks", "signal", "control"];

const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  (request) =>
    Response.json({ message: "no" }, {
      status: new URL(request.url).pathname.startsWith("/busy") ? 503 : 404,
    }),
);
const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
  retry: { limit: 1, backoff: () => 0 },
  hooks: { afterResponse() {}, beforeRetry() {} },
});

const alive = new Map(KINDS.map((kind) => [kind, 0]));
const registry = new FinalizationRegistry<string>((kind) => {
  alive.set(kind, alive.get(kind)! - 1);
});
function watch(kind: string, value: object): void {
  alive.set(kind, alive.get(kind)! + 1);
  registry.register(value, kind);
}

const errors: unknown[] = [];
const controls: object[] = [];
let failures = 0;

// In its own function, so that nothing of one grab stays in this frame.
async function one(i: number): Promise<void> {
  const body = { n: i, note: "x".repeat(64) };
  const params = { id: String(i) };
  const query = { n: i };
  const hooks = { afterResponse() {}, beforeRetry() {} };
  const { signal } = new AbortController();
  const control = { n: i };
  for (const [kind, value] of Object.entries({ body, params, query, hooks })) {
    watch(kind, value);
  }
  watch("signal", signal);
  watch("control", control);
  controls.push(control);
  const endpoint = i % 2 === 0 ? "POST /missing/:id" : "POST /busy/:id";
  const [, error] = await grab(endpoint, {
    body,
    params,
    query,
    hooks,
    signal,
  });
  if (error?.name === "GrabError") errors.push(error);
  else failures++;
}

for (let i = 0; i < GRABS; i++) await one(i);
await collectGarbage();
await collectGarbage();
await report({
  grabs: GRABS,
  failures,
  kept: errors.length,
  alive: Object.fromEntries(alive),
});
await server.shutdown();
