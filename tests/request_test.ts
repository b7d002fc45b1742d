import { assertEquals, assertStringIncludes } from "@std/assert";
import { spy } from "@std/testing/mock";
import createGrab, { type Format } from "../mod.ts";
import { json, startServer } from "./_server.ts";

/** A value whose `toJSON` counts its calls. */
function counted(value: unknown) {
  const toJSON = spy(() => value);
  return { value: { toJSON }, toJSON };
}

Deno.test("encodeRequest() checks and encodes each part once", async (t) => {
  await using server = startServer((_request, seen) =>
    json({ body: seen.body, query: seen.url.search })
  );
  const cases: [string, Format, "none" | "camelCase"][] = [
    ["json", "json", "none"],
    ["json with casing", "json", "camelCase"],
    ["json-api", "json-api", "none"],
    ["json-api with casing", "json-api", "camelCase"],
  ];
  for (const [name, format, casing] of cases) {
    await t.step(`${name}: the body's toJSON runs once`, async () => {
      const grab = createGrab(server.url, { format, casing, retry: 0 });
      const at = counted("2026-01-01");
      const body = format === "json"
        ? { createdAt: at.value }
        : { type: "notes", createdAt: at.value };
      await grab("POST /notes", { body });
      assertEquals(at.toJSON.calls.length, 1);
      assertStringIncludes(server.requests.at(-1)!.body, '"2026-01-01"');
    });

    await t.step(`${name}: each query value is read once`, async () => {
      const grab = createGrab(server.url, { format, casing, retry: 0 });
      let reads = 0;
      const query = {
        get pageSize() {
          reads++;
          return 10;
        },
      };
      await grab("GET /notes", { query });
      assertEquals(reads, 1);
      assertStringIncludes(server.requests.at(-1)!.url.search, "=10");
    });

    await t.step(`${name}: each header is read once`, async () => {
      const factoryHeaders = spy(() => ({ authorization: "Bearer t" }));
      const grab = createGrab(server.url, {
        format,
        casing,
        headers: factoryHeaders,
        retry: 0,
      });
      let reads = 0;
      const headers = {
        get "x-trace"() {
          reads++;
          return "1";
        },
      };
      await grab("GET /notes", { headers });
      assertEquals(reads, 1);
      assertEquals(server.requests.at(-1)!.headers.get("x-trace"), "1");
      assertEquals(factoryHeaders.calls.length, 1);
    });
  }
});
