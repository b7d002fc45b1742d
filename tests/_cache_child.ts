/**
 * Child process of bounds_misc_test.ts (run with `--v8-flags=--expose-gc`):
 * grabs about 1,000 distinct endpoints through one factory against a local
 * server and reports the heap retained afterwards. The endpoints are 60 KB
 * long each (the pad stays under 64 KiB, as Deno's fetch refuses longer
 * URLs), or with `params` as argument 3 KB of 1,000 `/:a` path parameters
 * each, whose parsed segments weigh far more than their text, or with
 * `segments` 3.6 KB of 1,800 `/a` path segments before one `/:a`, whose
 * text the template keeps between its parameters. There are
 * fewer than 1,000 distinct endpoints in all, so a cache bounded only at
 * 1,000 entries would still hold every one when the heap is measured; with
 * `segments` 60, fewer than the 1 MiB the cache counts fits at 16 KB each,
 * so every one is held then.
 *
 * @module
 */

import createGrab from "../mod.ts";
import { report } from "./_memory.ts";

const mode = Deno.args[0];
const ENDPOINTS = mode === "segments" ? 60 : 998;
const PAD = 60_000;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");
const collect = () => {
  for (let i = 0; i < 4; i++) gc();
};

const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () => new Response(null, { status: 204 }),
);
const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
  retry: 0,
  timeout: 30_000,
});

let failures = 0;
for (let i = 0; i < 20; i++) {
  const [, error] = await grab("GET /warm-up");
  if (error !== null) failures++;
}
collect();
const before = Deno.memoryUsage().heapUsed;

const withParams = mode === "params" || mode === "segments";
const pad = "p".repeat(PAD);
const path = mode === "segments"
  ? "/a".repeat(1_800) + "/:a"
  : "/:a".repeat(1_000);
let endpointBytes = 0;
for (let i = 0; i < ENDPOINTS; i++) {
  const endpoint = withParams
    ? `GET ${path}?i=${i}`
    : `GET /x?i=${i}&pad=${pad}`;
  endpointBytes += endpoint.length;
  const [, error] = withParams
    ? await grab(endpoint as "GET /:a", { params: { a: "1" } })
    : await grab(endpoint as "GET /x");
  if (error !== null) failures++;
}
collect();
const after = Deno.memoryUsage().heapUsed;

// The factory, and whatever it caches, is still in use here.
const [, last] = await grab("GET /last");
if (last !== null) failures++;
await server.shutdown();

await report({ before, after, failures, endpoints: ENDPOINTS, endpointBytes });
