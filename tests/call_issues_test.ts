/**
 * `new Call` lists every problem of an endpoint, a forbidden method among
 * them, before any request.
 *
 * @module
 */

import { assertEquals, assertThrows } from "@std/assert";
import { Call, GrabValidationError } from "../mod.ts";
import { startServer } from "./_server.ts";

Deno.test("new Call() names TRACE and CONNECT beside a target that fails", async () => {
  await using server = startServer(() => new Response("reached"));
  for (const method of ["TRACE", "CONNECT"]) {
    const cases: [string, string | undefined][] = [
      [`${method} /x`, undefined],
      [`${method} http://user:pw@127.0.0.1/x`, server.url],
    ];
    for (const [endpoint, base] of cases) {
      const error = assertThrows(
        () => new Call(endpoint, base),
        GrabValidationError,
      );
      const messages = error.issues.map((issue) => issue.message);
      assertEquals(messages.length, 2, messages.join(" | "));
      assertEquals(
        messages.filter((message) => message.includes(`"${method}"`)).length,
        1,
      );
    }
  }
  assertEquals(server.requests.length, 0);
});
