/**
 * Every grab settles within its bounds, whatever the server sends and
 * whatever a custom `fetch` hands over: no work in proportion to the square
 * of a server's text, no rejection for a response grab cannot read.
 *
 * No test asserts how fast anything is: a hang guard only turns a hang into
 * a failure.
 *
 * @module
 */

import { assertEquals } from "@std/assert";
import { runChild } from "./_bounds.ts";

Deno.test("a server's error detail is redacted in time in proportion to its length", async () => {
  const reply = await runChild<Record<string, unknown>>(
    "./_detail_child.ts",
    ["--allow-net=127.0.0.1"],
    { guardMs: 30_000 },
  );
  const expected = { status: 422, redacted: true, leaks: false };
  assertEquals(reply, { words: expected, brackets: expected });
});
