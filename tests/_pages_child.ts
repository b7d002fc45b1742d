/**
 * Child process of long_run_test.ts (run with `--v8-flags=--expose-gc`):
 * follows pages whose next links hold a cursor of a given length with
 * `limit: Infinity`, and reports the heap held, within the loop, over each
 * half of the run from one page to the last: what the walk holds grows in
 * both, a one-off (the engine's own) lands in one. Its arguments: how many pages, from which page, and
 * the cursor's length (1,000 pages from page 100 with cursors of 32 KiB, a
 * server's long cursors, by default).
 *
 * @module
 */

import createGrab, { paginate } from "../mod.ts";
import { report } from "./_memory.ts";

const [PAGES, FROM, CURSOR] = [1_000, 100, 32 * 1024].map((value, at) =>
  Deno.args[at] === undefined ? value : Number(Deno.args[at])
) as [number, number, number];

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");

function heapUsed(): number {
  for (let i = 0; i < 4; i++) gc!();
  return Deno.memoryUsage().heapUsed;
}

const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  (request) => {
    const n = Number(new URL(request.url).searchParams.get("n") ?? 0);
    // The cursor differs at its end only.
    const cursor = `${"c".repeat(CURSOR)}${n + 1}`;
    const headers: Record<string, string> = n + 1 < PAGES
      ? { link: `</items?cursor=${cursor}&n=${n + 1}>; rel="next"` }
      : {};
    return Response.json([n], { headers });
  },
);
const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, { retry: 0 });

let pages = 0;
const MID = FROM + Math.floor((PAGES - FROM) / 2);
let at = 0;
let middle = 0;
let after = 0;
for await (const _ of paginate(grab, "GET /items", { limit: Infinity })) {
  pages++;
  // Within the loop: what the run holds until it ends.
  if (pages === FROM) at = heapUsed();
  if (pages === MID) middle = heapUsed();
  if (pages === PAGES) after = heapUsed();
}
await server.shutdown();
await report({
  pages,
  cursor: CURSOR,
  halves: [[middle - at, MID - FROM], [after - middle, PAGES - MID]],
});
