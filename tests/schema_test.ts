import assert from "node:assert/strict";
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
    assert.deepEqual(await validateSchema(schema, { n: "4" }), {
      value: { n: 4 },
    });
  });

  await t.step("gives the issues of a failure", async () => {
    const result = await validateSchema(v.object({ n: v.number() }), {
      n: "x",
    });
    assert.ok("issues" in result);
    assert.equal(result.issues.length, 1);
  });

  await t.step("awaits an async validator", async () => {
    assert.deepEqual(await validateSchema(positiveCount(), { count: 2 }), {
      value: { count: 2, checked: true },
    });
    const failed = await validateSchema(positiveCount(), { count: 0 });
    assert.deepEqual(failed, {
      issues: [{ message: "count must be positive", path: ["count"] }],
    });
  });

  await t.step("accepts a falsy output", async () => {
    assert.deepEqual(await validateSchema(z.null(), null), { value: null });
    assert.deepEqual(await validateSchema(v.literal(0), 0), { value: 0 });
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
    assert.equal(error, null);
    assert.equal(meta.statusCode, 200);
    assert.equal(data?.count, 3);
    assert.ok(data?.when instanceof Date);
    assert.equal(data.when.getUTCMonth(), 4);
  });

  await t.step("valibot: data is the schema's output", async () => {
    const schema = v.object({
      count: v.pipe(v.string(), v.transform(Number)),
    });
    const [data, error] = await grab("GET /stats", { schema });
    assert.equal(error, null);
    // valibot drops unknown keys.
    assert.deepEqual(data, { count: 3 });
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
        assert.equal(data, null);
        assert.ok(error instanceof GrabTransportError);
        assert.equal(error.kind, "schema");
        assert.equal(error.method, "GET");
        assert.equal(error.url, `${server.url}/bad`);
        assert.deepEqual(meta, { statusCode: 0 });
        assert.ok(Array.isArray(error.issues));
        assert.equal(error.issues.length, 1);
        const issue = error.issues[0] as {
          message: string;
          path: readonly (PropertyKey | { key: PropertyKey })[];
        };
        assert.equal(typeof issue.message, "string");
        const key = issue.path[0];
        assert.equal(typeof key === "object" ? key.key : key, "count");
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
    assert.ok(error instanceof GrabTransportError);
    assert.equal(error.kind, "schema");
    assert.equal(
      (error.issues?.[0] as { message: string }).message,
      "count must be positive",
    );
  });

  await t.step("a hand-written async validator runs", async () => {
    const schema = positiveCount();
    const [, error] = await grab("GET /negative", { schema });
    assert.ok(error instanceof GrabTransportError);
    assert.equal(error.kind, "schema");
    assert.deepEqual(error.issues, [
      { message: "count must be positive", path: ["count"] },
    ]);
    // "3" is a string, not a number.
    const [data, stringy] = await grab("GET /stats", { schema });
    assert.equal(data, null);
    assert.equal((stringy as GrabTransportError).kind, "schema");
  });

  await t.step("an HTTP error is returned without validating", async () => {
    let called = false;
    const schema: StandardSchema = {
      "~standard": {
        version: 1,
        vendor: "spy",
        validate: (value) => {
          called = true;
          return { value };
        },
      },
    };
    const [, error] = await grab("GET /missing", { schema });
    assert.ok(error instanceof GrabError);
    assert.equal(error.statusCode, 404);
    assert.equal(called, false);
  });

  await t.step("Data is inferred from the schema", async () => {
    const schema = z.object({ count: z.coerce.number() });
    const [data] = await grab("GET /stats", { schema });
    if (data) {
      const n: number = data.count;
      assert.equal(n, 3);
      // @ts-expect-error: the schema has no such key
      assert.equal(data.total, undefined);
    }
    const valibot = v.object({
      count: v.pipe(v.string(), v.transform(Number)),
    });
    const [other] = await grab("GET /stats", { schema: valibot });
    if (other) {
      const n: number = other.count;
      assert.equal(n, 3);
      // @ts-expect-error: count is a number after the transform
      const s: string = other.count;
      assert.equal(typeof s, "number");
    }
  });
});
