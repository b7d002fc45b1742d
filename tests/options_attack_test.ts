import { assert, assertEquals } from "@std/assert";
import createGrab from "../mod.ts";
import { assertValidation, settles } from "./_bounds.ts";
import { json, startServer } from "./_server.ts";

Deno.test("a header function's result is held to what the headers option takes", async (t) => {
  await using server = startServer(() => json({}));
  const grabWith = (result: unknown) =>
    createGrab(server.url, { headers: () => result as HeadersInit });

  await t.step("a string is one problem, not one per character", async () => {
    const token = "x".repeat(5_000);
    const error = await assertValidation(() => grabWith(token)("GET /"));
    assertEquals(error.issues.length, 1);
    assert(error.message.length < 500, "the message stays short");
  });

  await t.step(
    "a number, boolean or function is refused, not sent as no headers",
    async () => {
      for (const result of [7, true, () => ({ authorization: "t" })]) {
        const error = await assertValidation(() => grabWith(result)("GET /"));
        assertEquals(error.issues.length, 1);
      }
      assertEquals(server.requests.length, 0);
    },
  );

  await t.step("null and undefined still mean none", async () => {
    for (const result of [null, undefined]) {
      const [, error] = await settles(grabWith(result)("GET /"));
      assertEquals(error, null);
    }
  });
});
