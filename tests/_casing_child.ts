/**
 * Child process of bounds_misc_test.ts (run with `--v8-flags=--expose-gc`):
 * grabs eight JSON bodies with `casing: "camelCase"` whose single key is
 * 2 MiB long and new each time, drops the data, and reports the heap
 * retained: a cache of converted keys must not keep a server's long keys.
 *
 * @module
 */

import createGrab from "../mod.ts";
import { report } from "./_memory.ts";

const KEY_BYTES = 2 * 1024 * 1024;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");
const heap = () => {
  for (let i = 0; i < 4; i++) gc();
  return Deno.memoryUsage().heapUsed;
};

let served = 0;
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () => {
    // Words of letters only, so that each key is converted indeed.
    const word = String.fromCharCode(97 + served++);
    const key = `key_${word}_${"x".repeat(KEY_BYTES)}`;
    return new Response(`{"${key}":1}`, {
      headers: { "content-type": "application/json" },
    });
  },
);
const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
  casing: "camelCase",
  retry: 0,
});
const before = heap();
let keys = 0;
for (let i = 0; i < 8; i++) {
  const [data] = await grab<Record<string, number>>("GET /long-key");
  keys += Object.keys(data ?? {}).length;
}
const after = heap();
await server.shutdown();
await report({ keys, keyBytes: KEY_BYTES, before, after });
