/**
 * Child process of mutation_left_test.ts: the first JSON:API grab of a
 * process, whose caller keeps the event loop busy while the JSON:API module
 * loads (a program's start-up work). The arguments: the milliseconds kept
 * busy, the timeout, and whether the server answers (1) or never does (0).
 * Reports the failure's kind and message, and how many requests the server
 * saw.
 *
 * @module
 */

import createGrab from "../mod.ts";
import { report } from "./_memory.ts";

const [busyMs = 0, timeout = 0, answer = 1] = Deno.args.map(Number);
let requests = 0;
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  async () => {
    requests++;
    // Answers at once, or never when told: the process exits meanwhile.
    if (answer === 0) await new Promise(() => {});
    return Response.json({ data: null });
  },
);
const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
  retry: 0,
  timeout,
  format: "json-api",
});
const pending = grab("GET /x");
// The caller's own work, which keeps the loop busy: no timer fires meanwhile.
const until = performance.now() + busyMs;
while (performance.now() < until) { /* busy */ }
const [, error] = await pending;
await report({
  kind: error?.name === "GrabTransportError" ? error.kind : null,
  message: error?.message ?? null,
  requests,
});
Deno.exit(0);
