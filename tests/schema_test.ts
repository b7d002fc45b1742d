import {
  assert,
  assertEquals,
  assertRejects,
  assertStrictEquals,
  assertStringIncludes,
} from "@std/assert";
import { assertSpyCalls, spy } from "@std/testing/mock";
import { v, z } from "./_npm.ts";
import createGrab, { GrabError, GrabTransportError } from "../mod.ts";
import { type StandardSchema, validateSchema } from "../src/schema.ts";
import { json, startServer } from "./_server.ts";

/** A hand-written Standard Schema that validates asynchronously. */
function positiveCount(): StandardSchema<{ count: number; checked: true }> {
  return {
    "~standard": {
      version: 1,
      vendor: "hand",
      validate: async (value) => {
        await Promise.resolve();
        const count = (value as { count?: unknown } | null)?.count;
        return typeof count === "number" && count > 0
          ? { value: { count, checked: true as const } }
          : {
            issues: [{ message: "count must be positive", path: ["count"] }],
          };
      },
    },
  };
}

Deno.test("validateSchema()", async (t) => {
  await t.step("gives the schema's output", async () => {
    const schema = z.object({ n: z.coerce.number() });
    assertEquals(await validateSchema(schema, { n: "4" }), {
      value: { n: 4 },
    });
  });

  await t.step("gives the issues of a failure", async () => {
    const result = await validateSchema(v.object({ n: v.number() }), {
      n: "x",
    });
    assert("issues" in result);
    assertEquals(result.issues.length, 1);
  });

  await t.step("awaits an async validator", async () => {
    assertEquals(await validateSchema(positiveCount(), { count: 2 }), {
      value: { count: 2, checked: true },
    });
    const failed = await validateSchema(positiveCount(), { count: 0 });
    assertEquals(failed, {
      issues: [{ message: "count must be positive", path: ["count"] }],
    });
  });

  const handMade = (result: unknown): StandardSchema => ({
    "~standard": {
      version: 1,
      vendor: "hand",
      validate: () => result as never,
    },
  });

  await t.step("awaits any thenable, not only a Promise", async () => {
    const failing = {
      then(resolve: (result: unknown) => void) {
        resolve({ issues: [{ message: "nope" }] });
      },
    };
    assertEquals(await validateSchema(handMade(failing), 1), {
      issues: [{ message: "nope" }],
    });
    const passing = {
      then: (resolve: (r: unknown) => void) => resolve({ value: 2 }),
    };
    assertEquals(await validateSchema(handMade(passing), 1), { value: 2 });
  });

  await t.step(
    "a result that is neither { value } nor { issues: [...] } is the validator's bug",
    async () => {
      for (const result of ["garbage", null, {}, { issues: "bad" }, 7]) {
        await assertRejects(
          () => validateSchema(handMade(result), 1),
          TypeError,
          "Cannot use the schema's result: it is neither",
        );
      }
    },
  );

  await t.step("accepts a falsy output", async () => {
    assertEquals(await validateSchema(z.null(), null), { value: null });
    assertEquals(await validateSchema(v.literal(0), 0), { value: 0 });
  });
});

Deno.test("grab() with a schema", async (t) => {
  await using server = startServer({
    "/stats": () => json({ count: "3", when: "2024-05-01T00:00:00.000Z" }),
    "/bad": () => json({ count: "many" }),
    "/missing": () => json({ message: "gone" }, { status: 404 }),
    "/negative": () => json({ count: -1 }),
  });
  const grab = createGrab(server.url);

  await t.step("zod: data is the schema's output", async () => {
    const schema = z.object({
      count: z.coerce.number(),
      when: z.string().transform((text) => new Date(text)),
    });
    const [data, error, meta] = await grab("GET /stats", { schema });
    assertStrictEquals(error, null);
    assertEquals(meta.statusCode, 200);
    assertEquals(data?.count, 3);
    assert(data?.when instanceof Date);
    assertEquals(data.when.getUTCMonth(), 4);
  });

  await t.step("valibot: data is the schema's output", async () => {
    const schema = v.object({
      count: v.pipe(v.string(), v.transform(Number)),
    });
    const [data, error] = await grab("GET /stats", { schema });
    assertStrictEquals(error, null);
    // valibot drops unknown keys.
    assertEquals(data, { count: 3 });
  });

  const failures: [string, StandardSchema][] = [
    ["zod", z.object({ count: z.number() })],
    ["valibot", v.object({ count: v.number() })],
  ];
  for (const [name, schema] of failures) {
    await t.step(
      `${name}: a failing response is kind schema with issues`,
      async () => {
        const [data, error, meta] = await grab("GET /bad", { schema });
        assertStrictEquals(data, null);
        assert(error instanceof GrabTransportError);
        assertEquals(error.kind, "schema");
        assertEquals(error.method, "GET");
        assertEquals(error.url, `${server.url}/bad`);
        assertEquals(meta, { statusCode: 0 });
        assert(Array.isArray(error.issues));
        assertEquals(error.issues.length, 1);
        const issue = error.issues[0] as {
          message: string;
          path: readonly (PropertyKey | { key: PropertyKey })[];
        };
        assertEquals(typeof issue.message, "string");
        const key = issue.path[0];
        assertEquals(typeof key === "object" ? key.key : key, "count");
      },
    );
  }

  await t.step("zod: an async refinement runs", async () => {
    const schema = z.object({ count: z.number() }).refine(
      async (value) => {
        await Promise.resolve();
        return value.count > 0;
      },
      { message: "count must be positive" },
    );
    const [, error] = await grab("GET /negative", { schema });
    assert(error instanceof GrabTransportError);
    assertEquals(error.kind, "schema");
    assertEquals(
      (error.issues?.[0] as { message: string }).message,
      "count must be positive",
    );
  });

  await t.step("a hand-written async validator runs", async () => {
    const schema = positiveCount();
    const [, error] = await grab("GET /negative", { schema });
    assert(error instanceof GrabTransportError);
    assertEquals(error.kind, "schema");
    assertEquals(error.issues, [
      { message: "count must be positive", path: ["count"] },
    ]);
    // "3" is a string, not a number.
    const [data, stringy] = await grab("GET /stats", { schema });
    assertStrictEquals(data, null);
    assertEquals((stringy as GrabTransportError).kind, "schema");
  });

  await t.step(
    "issues holding a BigInt (zod's maximum, valibot's input) still log as JSON",
    async () => {
      const schemas: StandardSchema[] = [
        z.object({
          count: z.string().transform((text) => BigInt(text)).pipe(
            z.bigint().max(2n),
          ),
        }),
        v.object({
          count: v.pipe(
            v.string(),
            v.transform((text: string) => BigInt(text)),
            v.maxValue(2n),
          ),
        }),
      ];
      for (const schema of schemas) {
        const [, error] = await grab("GET /stats", { schema });
        assert(error instanceof GrabTransportError);
        assertEquals(error.kind, "schema");
        const logged = JSON.parse(JSON.stringify(error));
        assertEquals(logged.kind, "schema");
        const text = JSON.stringify(logged.issues);
        assertStringIncludes(text, '"2"');
        // The issues themselves keep what the schema gave.
        assert(
          JSON.stringify(
            error.issues,
            (_, x) => typeof x === "bigint" ? "big" : x,
          ).includes('"big"'),
        );
      }
    },
  );

  await t.step("an HTTP error is returned without validating", async () => {
    const validate = spy((value: unknown) => ({ value }));
    const schema: StandardSchema = {
      "~standard": { version: 1, vendor: "spy", validate },
    };
    const [, error] = await grab("GET /missing", { schema });
    assert(error instanceof GrabError);
    assertEquals(error.statusCode, 404);
    assertSpyCalls(validate, 0);
  });

  await t.step("Data is inferred from the schema", async () => {
    const schema = z.object({ count: z.coerce.number() });
    const [data] = await grab("GET /stats", { schema });
    if (data) {
      const n: number = data.count;
      assertEquals(n, 3);
      // @ts-expect-error: the schema has no such key
      assertStrictEquals(data.total, undefined);
    }
    const valibot = v.object({
      count: v.pipe(v.string(), v.transform(Number)),
    });
    const [other] = await grab("GET /stats", { schema: valibot });
    if (other) {
      const n: number = other.count;
      assertEquals(n, 3);
      // @ts-expect-error: count is a number after the transform
      const s: string = other.count;
      assertEquals(typeof s, "number");
    }
  });
});
