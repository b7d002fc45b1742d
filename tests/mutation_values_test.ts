/**
 * Promises of the values grab is given (JSON bodies and what they lose,
 * paginate's pages, schema issues, the endpoint string) that no other test
 * held: a change to the one source line that keeps each left every other
 * test passing.
 */
import {
  assertEquals,
  assertInstanceOf,
  assertRejects,
  assertStrictEquals,
  assertStringIncludes,
} from "@std/assert";
import createGrab, {
  GrabTransportError,
  GrabValidationError,
  paginate,
} from "../mod.ts";
import type { StandardSchema } from "../src/schema.ts";
import { json, startServer } from "./_server.ts";

/** A value nested `depth` levels deep around the number 1. */
function nest(depth: number, wrap: (inner: unknown) => unknown): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = wrap(value);
  return value;
}

Deno.test("a JSON body is sent 10,000 levels deep and refused at 10,001", async (t) => {
  await using server = startServer((_request, seen) =>
    json({ length: seen.body.length })
  );
  const grab = createGrab(server.url, { retry: 0 });
  // Each array or object counts one level: deeper than a replacer's stack,
  // so the walk of the body's JSON form decides.
  const kinds: [string, (inner: unknown) => unknown, number][] = [
    ["arrays", (inner) => [inner], 2],
    ["objects", (inner) => ({ a: inner }), 6],
  ];
  for (const [label, wrap, perLevel] of kinds) {
    await t.step(`${label}: 10,000 levels go out whole`, async () => {
      const [data, error] = await grab("POST /deep", {
        body: nest(10_000, wrap),
      });
      assertEquals(error, null);
      assertEquals(data, { length: perLevel * 10_000 + 1 });
    });
    await t.step(`${label}: 10,001 levels are refused`, async () => {
      const sent = server.requests.length;
      const error = await assertRejects(
        () => grab("POST /deep", { body: nest(10_001, wrap) }),
        GrabValidationError,
      );
      assertStringIncludes(
        error.message,
        "it is nested deeper, or holds more, than JSON can write",
      );
      assertStrictEquals(server.requests.length, sent);
    });
  }
});

/** An instance of a chain of `classes` empty classes, no getter in any. */
function instanceOfChain(classes: number): object {
  let Class: new () => object = class {};
  for (let i = 1; i < classes; i++) {
    const Parent = Class;
    Class = class extends Parent {};
  }
  return new Class();
}

Deno.test("an empty object of 64 classes goes as {}; of 65 it is taken as hiding data", async (t) => {
  await using server = startServer((_request, seen) =>
    json({ sent: seen.body })
  );
  const grab = createGrab(server.url, { retry: 0 });
  await t.step("64 classes without a getter: {}", async () => {
    const [data, error] = await grab("POST /items", {
      body: { item: instanceOfChain(64) },
    });
    assertEquals(error, null);
    assertEquals(data, { sent: '{"item":{}}' });
  });
  await t.step(
    "65 classes: refused, as a Proxy could make them endless",
    async () => {
      const sent = server.requests.length;
      const error = await assertRejects(
        () => grab("POST /items", { body: { item: instanceOfChain(65) } }),
        GrabValidationError,
      );
      assertEquals(error.issues.map((issue) => issue.path), ["/item"]);
      assertStringIncludes(error.message, "whose data JSON does not see");
      assertStrictEquals(server.requests.length, sent);
    },
  );
});

Deno.test("a Number object JSON writes as null is refused by its value", async (t) => {
  await using server = startServer((_request, seen) =>
    json({ sent: seen.body })
  );
  const grab = createGrab(server.url, { retry: 0 });
  for (
    const [value, what] of [[NaN, "NaN"], [-Infinity, "-Infinity"]] as const
  ) {
    await t.step(`new Number(${what})`, async () => {
      const error = await assertRejects(
        () => grab("POST /items", { body: { n: new Number(value) } }),
        GrabValidationError,
      );
      assertEquals(error.issues, [{
        path: "/n",
        message: `Cannot serialise "/n" as JSON: value is ${what}`,
      }]);
    });
  }
  await t.step("new Number(5) goes as 5", async () => {
    const [data, error] = await grab("POST /items", {
      body: { n: new Number(5) },
    });
    assertEquals(error, null);
    assertEquals(data, { sent: '{"n":5}' });
  });
  assertStrictEquals(server.requests.length, 1);
});

Deno.test("two keys the casing makes one are an issue at the second key's path", async () => {
  await using server = startServer(() => json({}));
  const grab = createGrab(server.url, { casing: "camelCase", retry: 0 });
  const error = await assertRejects(
    () => grab("POST /users", { body: { a: { firstName: 1, first_name: 2 } } }),
    GrabValidationError,
  );
  assertEquals(error.issues.map((issue) => issue.path), ["/a/first_name"]);
  assertStrictEquals(server.requests.length, 0);
});

/** A Standard Schema that refuses every value with `issues`. */
function refusing(issues: unknown[]): StandardSchema {
  return {
    "~standard": { version: 1, vendor: "test", validate: () => ({ issues }) },
  };
}

Deno.test("a schema issue's path is named to 64 segments, then cut", async (t) => {
  await using server = startServer(() => json({}));
  const grab = createGrab(server.url, { retry: 0 });
  for (
    const [segments, named] of [[64, "/a".repeat(64)], [
      65,
      "/a".repeat(64) + "/…",
    ]] as const
  ) {
    await t.step(`${segments} segments`, async () => {
      const schema = refusing([{
        message: "bad",
        path: Array(segments).fill("a"),
      }]);
      const [, error] = await grab("GET /deep", { schema });
      assertStringIncludes(
        String(error?.message),
        `(1 issue; at ${named}: bad)`,
      );
    });
  }
});

Deno.test("what a toJSON returns that JSON writes as {} is refused, with the hint only where it has a toJSON", async () => {
  await using server = startServer(() => json({}));
  const grab = createGrab(server.url, { retry: 0 });
  const error = await assertRejects(
    () =>
      grab("POST /events", {
        body: {
          at: { toJSON: () => new Date(0) },
          tags: { toJSON: () => new Set(["a"]) },
        },
      }),
    GrabValidationError,
  );
  assertEquals(error.issues, [
    {
      path: "/at",
      message:
        'Cannot serialise "/at" as JSON: value is a Date, which JSON writes as {} (JSON does not call the toJSON of what a toJSON returns: return its JSON form, such as date.toJSON())',
    },
    {
      path: "/tags",
      message:
        'Cannot serialise "/tags" as JSON: value is a Set, which JSON writes as {}',
    },
  ]);
  assertStrictEquals(server.requests.length, 0);
});

Deno.test("an unknown method is quoted to 16 characters, then cut", async (t) => {
  await using server = startServer(() => json({}));
  const grab = createGrab(server.url, { retry: 0 });
  for (
    const [method, shown] of [
      ["ABCDEFGHIJKLMNOP", "ABCDEFGHIJKLMNOP"],
      ["ABCDEFGHIJKLMNOPQ", "ABCDEFGHIJKLMNOP…"],
    ] as const
  ) {
    await t.step(`${method.length} characters`, async () => {
      const error = await assertRejects(
        () => grab(`${method} /items` as "GET /items"),
        GrabValidationError,
      );
      assertEquals(error.issues.map((issue) => issue.message), [
        `Cannot use the method "${shown}": use GET, HEAD, POST, PUT, DELETE, OPTIONS or PATCH`,
      ]);
    });
  }
  assertStrictEquals(server.requests.length, 0);
});

Deno.test("a schema issue's path escapes ~ and / as a JSON pointer does", async () => {
  await using server = startServer(() => json({}));
  const grab = createGrab(server.url, { retry: 0 });
  const schema = refusing([
    { message: "bad", path: ["a~b", { key: "c/d" }, 0] },
  ]);
  const [, error] = await grab("GET /items", { schema });
  assertStringIncludes(
    String(error?.message),
    "(1 issue; at /a~0b/c~1d/0: bad)",
  );
});

Deno.test("a control character in the target is named in four hex digits and its escape in two", async (t) => {
  await using server = startServer(() => json({}));
  const grab = createGrab(server.url, { retry: 0 });
  for (const [char, hex] of [["\x0f", "0F"], ["\x10", "10"]] as const) {
    await t.step(`U+00${hex}`, async () => {
      const error = await assertRejects(
        () => grab(`GET /files/a${char}b` as "GET /files"),
        GrabValidationError,
      );
      assertEquals(error.issues.map((issue) => issue.message), [
        `Cannot use the target: it holds the control character U+00${hex}; percent-encode it (%${hex}) or give it in "params" or "query"`,
      ]);
    });
  }
  assertStrictEquals(server.requests.length, 0);
});

Deno.test("a schema that fails with no issues says nothing of them", async () => {
  await using server = startServer(() => json({ id: 1 }));
  const grab = createGrab(server.url, { retry: 0 });
  const [data, error] = await grab("GET /items", { schema: refusing([]) });
  assertStrictEquals(data, null);
  assertInstanceOf(error, GrabTransportError);
  assertEquals(error.kind, "schema");
  assertEquals(
    error.message,
    `Cannot accept the response: the body fails the schema: GET ${server.url}/items`,
  );
});

Deno.test("paginate() takes a next link that spells the page already read otherwise as that page", async (t) => {
  // The first page links to the second, which links to itself spelt
  // otherwise: bare names in another order, or + for %20.
  for (const [second, itself] of [["?b&a", "?a&b"], ["?q=a+b", "?q=a%20b"]]) {
    await t.step(`${second} and ${itself}`, async () => {
      await using server = startServer((_request, { url }) => {
        const next = url.search === "" ? second : itself;
        return new Response(JSON.stringify([url.search]), {
          headers: {
            "content-type": "application/json",
            link: `</items${next}>; rel="next"`,
          },
        });
      });
      const grab = createGrab(server.url, { retry: 0 });
      const pages: unknown[] = [];
      for await (const [data] of paginate(grab, "GET /items", { limit: 5 })) {
        pages.push(data);
      }
      assertEquals(pages, [[""], [second]]);
      assertStrictEquals(server.requests.length, 2);
    });
  }
});

Deno.test("a value JSON would lose is one issue, its members not walked", async () => {
  await using server = startServer(() => json({}));
  const grab = createGrab(server.url, { retry: 0 });
  // The Error is refused whole: what its keys hold is not listed as well.
  const failed = Object.assign(new Error("boom"), { code: 1n });
  const error = await assertRejects(
    () => grab("POST /reports", { body: { failed } }),
    GrabValidationError,
  );
  assertEquals(error.issues, [{
    path: "/failed",
    message:
      'Cannot serialise "/failed" as JSON: value is an Error, which JSON writes without its message, only with the keys added to it: send a plain object of what it holds',
  }]);
  assertStrictEquals(server.requests.length, 0);
});
