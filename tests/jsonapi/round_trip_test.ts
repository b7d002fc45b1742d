// deno-lint-ignore-file no-console
import { assertEquals, assertStrictEquals } from "@std/assert";
import { fc } from "../_npm.ts";
import createGrab from "../../mod.ts";
import { convertKey } from "../../src/casing.ts";
import { startServer } from "../_server.ts";

const RUNS = Number(Deno.env.get("GRAB_FUZZ_RUNS") ?? 200);
const RESERVED = new Set([
  "type",
  "id",
  "lid",
  "links",
  "relationships",
  "attributes",
  "meta",
]);

// camelCase names that survive camelCase → snake_case → camelCase exactly.
const name = fc.stringMatching(/^[a-z][a-zA-Z0-9]{0,9}$/).filter((key) =>
  !RESERVED.has(key) && convertKey(key, "camelCase") === key &&
  convertKey(convertKey(key, "snake_case"), "camelCase") === key
);
const scalar = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) =>
    !Object.is(n, -0)
  ),
  fc.boolean(),
  fc.constant(null),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(name, tie("value"), { maxKeys: 3 }),
  ),
}));
const identifier = fc.record({
  type: fc.constantFrom("people", "tags", "blog-posts"),
  id: fc.string({ minLength: 1, maxLength: 6 }),
});
const resource = fc.tuple(
  fc.constantFrom("articles", "blog-posts"),
  fc.string({ minLength: 1, maxLength: 8 }),
  fc.dictionary(name, value, { maxKeys: 5 }),
  fc.dictionary(
    name,
    fc.oneof(identifier, fc.array(identifier, { minLength: 1, maxLength: 3 })),
    { maxKeys: 3 },
  ),
).filter(([, , attributes, relationships]) =>
  Object.keys(attributes).every((key) => !(key in relationships))
).map(([type, id, attributes, relationships]) => ({
  type,
  id,
  ...attributes,
  ...relationships,
}));

Deno.test("JSON:API round trip", async (t) => {
  await using server = startServer((_request, seen) =>
    new Response(seen.body, {
      status: 201,
      headers: { "content-type": "application/vnd.api+json" },
    })
  );
  const api = createGrab(server.url, {
    format: "json-api",
    casing: "camelCase",
    retry: 0,
  });

  await t.step(
    "a valid flat resource serialised, echoed and denormalised is unchanged",
    async () => {
      let runs = 0;
      await fc.assert(
        fc.asyncProperty(resource, async (flat) => {
          runs++;
          const before = server.requests.length;
          const [data, error] = await api("POST /articles", { body: flat });
          assertStrictEquals(error, null);
          assertStrictEquals(server.requests.length, before + 1);
          // fast-check builds null-prototype objects; compare as plain data.
          assertEquals(data, JSON.parse(JSON.stringify(flat)));
        }),
        { seed: 20261121, numRuns: RUNS },
      );
      console.log(`round trip: ${runs} runs`);
      assertStrictEquals(runs, RUNS);
    },
  );
});
