/**
 * Child process of shared_timeout_test.ts: with `worker` as its argument it
 * first gives `navigator` the user agent of a Cloudflare Worker, whose
 * `fetch` refuses a signal that another request made; with `old-worker`, it
 * takes `navigator` away and gives the Worker's `WebSocketPair`, as a Worker
 * of an old compatibility date has them. It then starts
 * deadlines of one timeout at one instant, as the grabs of requests handled
 * together would, and reports how many of them were handed a shared signal.
 *
 * @module
 */

import { report } from "./_memory.ts";

if (Deno.args[0] === "worker") {
  Object.defineProperty(navigator, "userAgent", {
    value: "Cloudflare-Workers",
  });
} else if (Deno.args[0] === "old-worker") {
  // A Worker of a compatibility date before 2022-03-21: no `navigator`.
  Object.defineProperty(globalThis, "navigator", { value: undefined });
  Object.defineProperty(globalThis, "WebSocketPair", { value: class {} });
}
// Loaded only now, as it tells the runtime once, when it loads.
const { sharedTimeout } = await import("../src/shared_timeout.ts");

const now = performance.now();
let shared = 0;
for (let i = 0; i < 4; i++) {
  if (sharedTimeout(now, 600_000) !== undefined) shared++;
}
await report({ shared });
