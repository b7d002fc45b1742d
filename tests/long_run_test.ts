/**
 * A long-running program: one signal that lives as long as the program,
 * many grabs through it, and a long run of pages. What a grab leaves
 * behind must not add up.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import { runChild } from "./_bounds.ts";

interface Dropped {
  failures: number;
  bodies: number;
  left: number;
  listeners: number;
}

Deno.test("a live body dropped unread lets go of a signal that lives on", async () => {
  const report = await runChild<Record<string, Dropped>>(
    "./_dropped_child.ts",
    ["--allow-net=127.0.0.1", "--v8-flags=--expose-gc"],
  );
  for (const type of ["stream", "sse", "ndjson"]) {
    const { failures, bodies, left, listeners } = report[type]!;
    assertEquals(failures, 0, type);
    // The heap was collected: the bodies dropped are gone (the last one may
    // still be about).
    assert(left < bodies / 2, `${type}: ${left} of ${bodies} bodies left`);
    // A body still held may keep its listener; a body collected keeps none.
    assert(
      listeners <= left,
      `${type}: ${listeners} abort listeners left for ${left} bodies`,
    );
  }
});

Deno.test("paginate() over a long run of pages with long links holds a few bytes per page", async () => {
  const report = await runChild<{
    pages: number;
    from: number;
    cursor: number;
    retained: number;
  }>("./_pages_child.ts", ["--allow-net=127.0.0.1", "--v8-flags=--expose-gc"]);
  assertEquals(report.pages, 1_000);
  // Each link kept as it is would hold 32 KiB a page: about 28 MiB here.
  const perPage = report.retained / (report.pages - report.from);
  assert(
    perPage < 2048,
    `${
      Math.round(perPage)
    } bytes a page retained, with links of ${report.cursor} bytes`,
  );
});
