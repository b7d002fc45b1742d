import { assertEquals, assertStrictEquals } from "@std/assert";
import createGrab from "../mod.ts";
import { json, startServer } from "./_server.ts";

/** The request headers the server saw, as a record. */
type Seen = Record<string, string>;

Deno.test("headers of a grab, merged from the factory's and the call's", async (t) => {
  await using server = startServer((_request, seen) =>
    json(Object.fromEntries(seen.headers))
  );

  await t.step(
    "a call header set to undefined removes the factory's",
    async () => {
      const grab = createGrab(server.url, {
        headers: { Authorization: "Bearer secret", "x-keep": "1" },
      });
      const [sent, error] = await grab<Seen>("GET /public", {
        headers: { authorization: undefined, "X-Call": "c" },
      });
      assertStrictEquals(error, null);
      assertStrictEquals(sent?.["authorization"], undefined);
      assertEquals(sent?.["x-keep"], "1");
      assertEquals(sent?.["x-call"], "c");
      // The factory keeps it for the next grab.
      const [next] = await grab<Seen>("GET /private");
      assertEquals(next?.["authorization"], "Bearer secret");
    },
  );

  await t.step(
    "and the header function's, which is called for the others",
    async () => {
      const grab = createGrab(server.url, {
        headers: () => ({ authorization: "Bearer fresh", "x-trace": "t" }),
      });
      const [sent] = await grab<Seen>("GET /public", {
        headers: { AUTHORIZATION: undefined },
      });
      assertStrictEquals(sent?.["authorization"], undefined);
      assertEquals(sent?.["x-trace"], "t");
      const [next] = await grab<Seen>("GET /private");
      assertEquals(next?.["authorization"], "Bearer fresh");
    },
  );

  await t.step(
    "the format still fills an Accept nobody gave a value",
    async () => {
      const grab = createGrab(server.url, { headers: { accept: "text/csv" } });
      const [sent] = await grab<Seen>("GET /x", {
        headers: { accept: undefined },
      });
      assertEquals(sent?.["accept"], "application/json");
    },
  );
});
