/**
 * Promises of the write path (key casing, query building, option checks)
 * that no other test held: a change to the one source line that keeps each
 * left every other test passing.
 */
import {
  assert,
  assertEquals,
  assertRejects,
  assertStrictEquals,
  assertStringIncludes,
} from "@std/assert";
import createGrab, { GrabValidationError } from "../mod.ts";
import { json, startServer } from "./_server.ts";

Deno.test("a clash's message clips a long pointer without half a character at its front", async () => {
  await using server = startServer(() => json({}));
  const grab = createGrab(server.url, { casing: "camelCase" });
  // The pointer is 71 characters: clipped to its last 59, which would start
  // with the second half of the emoji.
  const outer = "x".repeat(10) + "\u{1F600}" + "y".repeat(58);
  const error = await assertRejects(
    () =>
      grab("POST /echo", {
        body: { [outer]: { firstName: 1, first_name: 2 } },
      }),
    GrabValidationError,
  );
  assertStrictEquals(error.issues.length, 1);
  const { message } = error.issues[0]!;
  assert(message.isWellFormed(), message);
  assertStringIncludes(message, ` of …${"y".repeat(58)}: both become`);
  assertStrictEquals(server.requests.length, 0);
});

Deno.test("a circular query is refused by name, as circular, before any request", async (t) => {
  await using server = startServer(() => json({}));
  const grab = createGrab(server.url, { retry: 0 });
  await t.step("an object that holds itself", async () => {
    const query: Record<string, unknown> = { a: 1 };
    query["self"] = query;
    const error = await assertRejects(
      () => grab("GET /items", { query }),
      GrabValidationError,
    );
    assertEquals(error.issues.map((issue) => issue.message), [
      'Cannot serialise the query at "self": it refers to itself',
    ]);
  });
  await t.step("a list that holds itself", async () => {
    const list: unknown[] = [{ b: 1 }];
    list.push(list);
    const error = await assertRejects(
      () => grab("GET /items", { query: { list } }),
      GrabValidationError,
    );
    assertEquals(error.issues.map((issue) => issue.message), [
      'Cannot serialise the query at "list[1]": it refers to itself',
    ]);
  });
  assertStrictEquals(server.requests.length, 0);
});

Deno.test("an option grab does not take is listed after the problems of the options it does", async () => {
  await using server = startServer(() => json({}));
  const grab = createGrab(server.url);
  const error = await assertRejects(
    () =>
      grab("GET /items", {
        timout: 5,
        jsonApi: { extt: ["https://example.com/ext"] },
        timeout: -1,
      } as Record<string, unknown>),
    GrabValidationError,
  );
  const messages = error.issues.map((issue) => issue.message);
  assertStrictEquals(messages.length, 3, messages.join("\n"));
  assertStringIncludes(messages[0]!, 'Cannot use the option "timeout"');
  assertStringIncludes(messages[1]!, 'Cannot use the option "timout"');
  assertStringIncludes(messages[2]!, 'Cannot use the option "jsonApi.extt"');
  assertStrictEquals(server.requests.length, 0);
});
