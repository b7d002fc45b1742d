/**
 * A JSON body too deep for the checking replacer, written without it: what
 * goes is what was checked.
 *
 * @module
 */

import { assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import createGrab, { GrabValidationError } from "../mod.ts";
import { json, startServer } from "./_server.ts";

Deno.test("a deep JSON body whose toJSON answers NaN when read again is refused, not sent as null", async () => {
  await using server = startServer(() => json({ ok: true }));
  const grab = createGrab(server.url, { retry: 0 });
  // Past a list deeper than the checking replacer reaches, so the body is
  // read again to be written without it: the second answer is what went.
  let calls = 0;
  const ratio = { toJSON: () => ++calls === 1 ? 1 : NaN };
  let deep: unknown = 1;
  for (let i = 0; i < 5_000; i++) deep = [deep];
  const body = { deep, ratio };
  const error = await assertRejects(
    () => grab("POST /deep", { body }),
    GrabValidationError,
  );
  assertEquals(error.issues.map((issue) => issue.path), ["/ratio"]);
  assertStringIncludes(error.issues[0]!.message, "value is NaN");
  assertEquals(server.requests.length, 0);
});
