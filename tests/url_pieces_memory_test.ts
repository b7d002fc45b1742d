/**
 * The endpoint cache's byte estimate against what an entry holds: the URL
 * text a template keeps between its `:name` parameters.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import { runChild } from "./_bounds.ts";

Deno.test("the per-factory endpoint cache counts the text kept between path parameters", async () => {
  // 60 endpoints of 1,800 `/a` segments and one `/:a`: 3.6 KB of text each,
  // under the 16 KB an entry may be counted at, all held at once. Kept as
  // the text was built, a piece a segment, each held some 120 KB: 7 MB.
  const report = await runChild<{
    before: number;
    after: number;
    failures: number;
    endpoints: number;
  }>("./_cache_child.ts", [
    "--allow-net=127.0.0.1",
    "--v8-flags=--expose-gc",
  ], { args: ["segments"] });
  const MB = 1024 * 1024;
  assertEquals(report.failures, 0);
  const retained = report.after - report.before;
  assert(
    retained < 3 * MB,
    `${
      (retained / MB).toFixed(1)
    } MB retained after ${report.endpoints} endpoints`,
  );
});
