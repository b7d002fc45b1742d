// deno-lint-ignore-file camelcase -- these tests are about snake_case keys
import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertRejects,
  assertStrictEquals,
  assertStringIncludes,
  assertThrows,
} from "@std/assert";
import createGrab, {
  GrabTransportError,
  GrabValidationError,
  isGrabTransportError,
} from "../mod.ts";
import { convertKey } from "../src/casing.ts";
import {
  clashIn,
  convertKeys,
  findClash,
  KeyClash,
} from "../src/convert_keys.ts";
import { denormalise } from "../src/jsonapi/denormalise.ts";
import { json, startServer } from "./_server.ts";
import { codecFor } from "../src/format.ts";

// The JSON:API modules take the core's helpers as the codec loads.
await codecFor("json-api");

const NDJSON = { "content-type": "application/x-ndjson" };
const JSON_API = { "content-type": "application/vnd.api+json" };

Deno.test("convertKeys() refuses two keys of one object that become one", async (t) => {
  await t.step("names both keys and the object by JSON pointer", () => {
    const value = { list: [{ "a/b": { first_name: 1, firstName: 2 } }] };
    const clash = assertThrows(
      () => convertKeys(value, "camelCase"),
      KeyClash,
    );
    assertEquals(clash.at, "/list/0/a~1b");
    assertEquals(clash.keys, ["first_name", "firstName"]);
    assertStrictEquals(
      clash.message,
      'keys "first_name" and "firstName" of /list/0/a~1b both become "firstName" in camelCase',
    );
  });

  await t.step("at the top, and in each casing", () => {
    const cases = [
      ["camelCase", { user_id: 1, userId: 2 }, "userId"],
      ["snake_case", { userId: 1, user_id: 2 }, "user_id"],
      ["kebab-case", { "user-id": 1, user_id: 2 }, "user-id"],
      ["PascalCase", { userId: 1, UserId: 2 }, "UserId"],
    ] as const;
    for (const [casing, value, both] of cases) {
      const clash = assertThrows(() => convertKeys(value, casing), KeyClash);
      assertStrictEquals(clash.at, "");
      assertStringIncludes(clash.message, `both become "${both}" in ${casing}`);
    }
  });

  await t.step("keys the casing keeps apart still convert", () => {
    // "userID" and "user_id" stay two keys: user_i_d and user_id.
    assertEquals(
      convertKeys({ userID: 1, userId: 2 }, "snake_case"),
      { user_i_d: 1, user_id: 2 },
    );
    assertEquals(convertKeys({ a_b: 1, aB: 2 }, "none"), { a_b: 1, aB: 2 });
  });

  await t.step("a long pointer keeps its end in the message", () => {
    let value: Record<string, unknown> = { a_b: 1, aB: 2 };
    for (let i = 0; i < 30; i++) value = { [`level${i}`]: value };
    const clash = assertThrows(() => convertKeys(value, "camelCase"), KeyClash);
    assertStringIncludes(clash.message, " of …el8/level7/level6/");
    assertStringIncludes(clash.message, '/level1/level0 both become "aB"');
  });

  await t.step("a very long key is shortened in the message", () => {
    const long = "a_b".repeat(1000);
    const value = { [long]: 1, [convertKey(long, "camelCase")]: 2 };
    const clash = assertThrows(() => convertKeys(value, "camelCase"), KeyClash);
    assert(clash.message.length < 300, clash.message);
    assertEquals(clash.keys[0], long);
  });
});

Deno.test("convertKeys() finds a clash whatever the conversions met before", async (t) => {
  await t.step("the same clash twice, and keys that clash only apart", () => {
    const value = { c_d: 1, cD: 2 };
    assertThrows(() => convertKeys(value, "camelCase"), KeyClash);
    assertThrows(() => convertKeys(value, "camelCase"), KeyClash);
    // In two objects the keys lose nothing: no clash, before or after.
    assertEquals(convertKeys([{ c_d: 1 }, { cD: 2 }], "camelCase"), [
      { cD: 1 },
      { cD: 2 },
    ]);
    assertEquals(convertKeys({ c_d: 1 }, "camelCase"), { cD: 1 });
  });

  await t.step("with the cache cleared between the two keys", () => {
    // More keys than the cache holds come between the two.
    const value: Record<string, number> = { e_f: 0 };
    for (let i = 0; i < 10_050; i++) value[`k${i}_x`] = i;
    value["eF"] = 1;
    const clash = assertThrows(
      () => convertKeys({ outer: value }, "camelCase"),
      KeyClash,
    );
    assertEquals(clash.at, "/outer");
    assertEquals(clash.keys, ["e_f", "eF"]);
  });
});

Deno.test("denormalise() passes over a repeat's fields, clash or not, whatever it met before", () => {
  const document = () => ({
    data: { type: "a", id: "1", attributes: { g_h: 1 } },
    // The second occurrence's fields are not used: the first's win.
    included: [{ type: "a", id: "1", attributes: { g_h: 2, gH: 3 } }],
  });
  const first = denormalise(document(), { casing: "camelCase" });
  assertEquals(first, { ok: true, data: { type: "a", id: "1", gH: 1 } });
  // Now "gH" is a key that two keys became: the same answer.
  assertThrows(() => convertKeys({ g_h: 1, gH: 2 }, "camelCase"), KeyClash);
  assertEquals(denormalise(document(), { casing: "camelCase" }), first);
  const clashing = denormalise(
    { data: { type: "a", id: "1", attributes: { g_h: 2, gH: 3 } } },
    { casing: "camelCase" },
  );
  assertEquals(clashing.ok, false);
});

Deno.test("findClash() and clashIn() find the first two keys that become one", () => {
  assertEquals(findClash(["id", "first_name", "firstName"], "camelCase"), [
    1,
    2,
  ]);
  // The same key twice (an attribute and a relationship) is no clash.
  assertEquals(findClash(["a_b", "a_b", "x"], "camelCase"), undefined);
  assertEquals(findClash(["a_b", "a_b", "aB"], "camelCase"), [0, 2]);
  assertEquals(findClash(["userID", "user_id"], "snake_case"), undefined);
  const clash = clashIn("/user", ["first_name", "firstName"], "snake_case")!;
  assertEquals(clash.issue("/user/firstName"), {
    path: "/user/firstName",
    message:
      'Cannot send keys "first_name" and "firstName" of /user: both become "first_name" in snake_case',
  });
  assertStrictEquals(clashIn("", ["a"], "camelCase"), undefined);
});

Deno.test("a clipped key in a clash's message never ends in half a character", () => {
  const key = "a".repeat(59) + "\u{1F600}_x";
  const clash = new KeyClash(
    "",
    [key, convertKey(key, "camelCase")],
    "camelCase",
  );
  assert(clash.message.isWellFormed(), clash.message);
});

Deno.test("casing: a JSON body with two keys that become one", async (t) => {
  await using server = startServer({
    "/echo": (_request, seen) => json(JSON.parse(seen.body)),
    "/ok": () => json({}),
    "/user": () => json({ user: { first_name: "Ada", firstName: "Grace" } }),
    "/rows": () =>
      new Response('{"row_id":1}\n{"row_id":2,"rowId":3}\n{"row_id":4}\n', {
        headers: NDJSON,
      }),
  });
  const grab = createGrab(server.url, { casing: "camelCase" });

  await t.step(
    "is not sent: a validation error at the second key",
    async () => {
      const error = await assertRejects(
        () =>
          grab("POST /echo", {
            body: { user: { firstName: "Ada", first_name: "Grace" } },
          }),
        GrabValidationError,
      );
      assertEquals(error.issues, [{
        path: "/user/first_name",
        message:
          'Cannot send keys "firstName" and "first_name" of /user: both become "first_name" in snake_case',
      }]);
      assertStrictEquals(server.requests.length, 0);
    },
  );

  await t.step("inside what a toJSON returns, too", async () => {
    const error = await assertRejects(
      () =>
        grab("POST /echo", {
          body: { when: { toJSON: () => ({ aB: 1, a_b: 2 }) } },
        }),
      GrabValidationError,
    );
    assertEquals(error.issues.map((issue) => issue.path), ["/when/a_b"]);
    assertStrictEquals(server.requests.length, 0);
  });

  await t.step(
    "no clash: a key without a value, and a class instance's keys",
    async () => {
      class Point {
        a_b = 1;
        aB = 2;
      }
      for (
        const [body, sent] of [
          [{ first_name: undefined, firstName: "x" }, '{"first_name":"x"}'],
          [{ firstName: "x", first_name: undefined }, '{"first_name":"x"}'],
          // Only plain objects are renamed: nothing of it is lost.
          [{ at: new Point() }, '{"at":{"a_b":1,"aB":2}}'],
        ] as const
      ) {
        const [, error] = await grab("POST /ok", { body });
        assertStrictEquals(error, null);
        assertStrictEquals(server.requests.at(-1)!.body, sent);
      }
    },
  );

  await t.step(
    "a real clash beside a class instance: only the clash",
    async () => {
      class Point {
        a_b = 1;
        aB = 2;
      }
      const error = await assertRejects(
        () =>
          grab("POST /echo", {
            body: { at: new Point(), n: NaN, cD: 1, c_d: 2 },
          }),
        GrabValidationError,
      );
      assertEquals(error.issues.map((issue) => issue.path), ["/c_d", "/n"]);
    },
  );

  await t.step("control: one of the two is sent and read back", async () => {
    const [data, error] = await grab("POST /echo", {
      body: { user: { firstName: "Ada" } },
    });
    assertStrictEquals(error, null);
    assertEquals(data, { user: { firstName: "Ada" } });
    assertStrictEquals(
      server.requests.at(-1)!.body,
      '{"user":{"first_name":"Ada"}}',
    );
  });

  await t.step(
    "in a response: kind parse, nothing lost in silence",
    async () => {
      const [data, error, meta] = await grab("GET /user");
      assertStrictEquals(data, null);
      assert(isGrabTransportError(error));
      assertStrictEquals(error.kind, "parse");
      assertStrictEquals(
        error.message,
        `Cannot read the response: keys "first_name" and "firstName" of /user both become "firstName" in camelCase: GET ${server.url}/user`,
      );
      assertEquals(meta, { statusCode: 0 });
    },
  );

  await t.step("in a response read with casing none: both kept", async () => {
    const [data, error] = await grab("GET /user", { casing: "none" });
    assertStrictEquals(error, null);
    assertEquals(data, { user: { first_name: "Ada", firstName: "Grace" } });
  });

  await t.step(
    "in an NDJSON line: the lines before served, then parse",
    async () => {
      const [rows] = await grab<{ rowId: number }>("GET /rows", {
        responseType: "ndjson",
      });
      const seen: number[] = [];
      for await (const row of rows!) seen.push(row.rowId);
      assertEquals(seen, [1]);
      assertInstanceOf(rows!.error, GrabTransportError);
      assertStrictEquals(rows!.error.kind, "parse");
      assertStringIncludes(
        rows!.error.message,
        'Cannot read a line: keys "row_id" and "rowId" both become "rowId" in camelCase',
      );
    },
  );
});

Deno.test("casing: JSON:API fields with two names that become one", async (t) => {
  const document = (resource: Record<string, unknown>, included?: unknown) =>
    new Response(
      JSON.stringify({ data: resource, ...included ? { included } : {} }),
      { headers: JSON_API },
    );
  const person = { type: "people", id: "9", attributes: { name: "Ada" } };
  await using server = startServer({
    "/echo": () => document({ type: "a", id: "1" }),
    "/attributes": () =>
      document({
        type: "a",
        id: "1",
        attributes: { first_name: "Ada", firstName: "Grace" },
      }),
    "/field": () =>
      document({
        type: "a",
        id: "1",
        attributes: { author_ref: "x" },
        relationships: { authorRef: { data: { type: "people", id: "9" } } },
      }, [person]),
    "/data-less": () =>
      document({
        type: "a",
        id: "1",
        relationships: {
          author_info: { links: { self: "/a" } },
          authorInfo: { meta: { m: 1 } },
        },
      }),
    "/same-name": () =>
      document({
        type: "a",
        id: "1",
        attributes: { author_ref: "x" },
        relationships: { author_ref: { data: { type: "people", id: "9" } } },
      }, [person]),
    "/nested": () =>
      document({ type: "a", id: "1" }, [{
        type: "people",
        id: "9",
        attributes: { home: { zip_code: "1", zipCode: "2" } },
      }]),
  });
  const api = createGrab(server.url, {
    format: "json-api",
    casing: "camelCase",
  });

  await t.step("writes: a validation error, nothing sent", async () => {
    const bodies = [
      [{ type: "a", firstName: "Ada", first_name: "Grace" }, "/first_name"],
      [
        { data: { type: "a", attributes: { firstName: 1, first_name: 2 } } },
        "/data/attributes/first_name",
      ],
      [
        { type: "a", home: { zipCode: "1", zip_code: "2" } },
        "/home/zip_code",
      ],
      [
        {
          data: {
            type: "a",
            attributes: { authorRef: 1 },
            relationships: { author_ref: { data: null } },
          },
        },
        "/data/relationships/author_ref",
      ],
    ] as const;
    for (const [body, path] of bodies) {
      const error = await assertRejects(
        () => api("POST /echo", { body }),
        GrabValidationError,
      );
      assertEquals(error.issues.map((issue) => issue.path), [path]);
      assertStringIncludes(error.issues[0]!.message, "in snake_case");
    }
    assertStrictEquals(server.requests.length, 0);
  });

  await t.step("reads: kind parse with where the names are", async () => {
    const cases = [
      [
        "/attributes",
        'keys "first_name" and "firstName" of /data/attributes both become "firstName" in camelCase',
      ],
      [
        "/field",
        'keys "author_ref" and "authorRef" of /data both become "authorRef" in camelCase',
      ],
      [
        "/nested",
        'keys "zip_code" and "zipCode" of /included/0/attributes/home both become "zipCode" in camelCase',
      ],
      [
        "/data-less",
        'keys "author_info" and "authorInfo" of /data both become "authorInfo" in camelCase',
      ],
    ] as const;
    for (const [path, why] of cases) {
      await assertClash(api, path, why);
      const [kept, none] = await api(`GET ${path}`, { casing: "none" });
      assertStrictEquals(none, null);
      assert(kept !== null);
    }
  });

  await t.step(
    "an attribute and a relationship of the same name: the relationship, as without casing",
    async () => {
      const [data, error] = await api<Record<string, unknown>>(
        "GET /same-name",
      );
      assertStrictEquals(error, null);
      assertEquals(data!.authorRef, { type: "people", id: "9", name: "Ada" });
    },
  );

  await t.step("writes: no clash for a key without a value", async () => {
    const [, error] = await api("POST /echo", {
      body: { type: "a", firstName: "x", first_name: undefined },
    });
    assertStrictEquals(error, null);
    assertEquals(
      JSON.parse(server.requests.at(-1)!.body).data.attributes,
      { first_name: "x" },
    );
  });
});

Deno.test("casing: JSON:API values with a key that has no value or is not read", async (t) => {
  await t.step(
    "writes: no clash for a nested key without a value, flat or wire",
    async () => {
      await using server = startServer({
        "/echo": () =>
          new Response(JSON.stringify({ data: { type: "a", id: "1" } }), {
            headers: JSON_API,
          }),
      });
      const api = createGrab(server.url, {
        format: "json-api",
        casing: "camelCase",
      });
      const bodies = [
        { type: "a", id: "1", metaData: { aB: 1, a_b: undefined } },
        { type: "a", id: "1", metaData: { a_b: undefined, aB: 1 } },
        { type: "a", id: "1", attributes: { aB: 1, a_b: undefined } },
      ];
      for (const body of bodies) {
        const [, error] = await api("POST /echo", { body });
        assertStrictEquals(error, null);
        const sent = JSON.parse(server.requests.at(-1)!.body).data.attributes;
        assertEquals(
          sent,
          "metaData" in body ? { meta_data: { a_b: 1 } } : {
            a_b: 1,
          },
        );
      }
    },
  );

  await t.step("reads: an attribute that is skipped is not looked into", () => {
    for (const name of ["id", "lid"]) {
      const result = denormalise({
        data: {
          type: "a",
          id: "1",
          attributes: { [name]: { a_b: 1, aB: 2 }, name: "x" },
        },
      }, { casing: "camelCase" });
      assert(result.ok);
      assertEquals(result.data, { type: "a", id: "1", name: "x" });
    }
  });
});

Deno.test("casing: a JSON:API field that the casing names type, id or lid", async (t) => {
  const document = (body: unknown) =>
    new Response(JSON.stringify(body), { headers: JSON_API });
  await using server = startServer({
    "/attribute": () =>
      document({
        data: { type: "a", id: "1", attributes: { Name: "n", Id: "X-9" } },
      }),
    "/relationship": () =>
      document({
        data: { type: "a", id: "1" },
        included: [{
          type: "b",
          id: "2",
          relationships: { Type: { data: { type: "c", id: "3" } } },
        }],
      }),
    "/data-less": () =>
      document({
        data: {
          type: "a",
          id: "1",
          relationships: { Lid: { meta: { m: 1 } } },
        },
      }),
  });
  const api = createGrab(server.url, {
    format: "json-api",
    casing: "camelCase",
    retry: 0,
  });

  await t.step("reads: kind parse, never a value dropped", async () => {
    const cases = [
      ["/attribute", 'keys "id" and "Id" of /data both become "id"'],
      ["/relationship", 'keys "type" and "Type" of /included/0 both become'],
      ["/data-less", 'keys "lid" and "Lid" of /data both become "lid"'],
    ] as const;
    for (const [path, why] of cases) await assertClash(api, path, why);
  });

  await t.step(
    "control: with casing none or PascalCase, each is kept",
    async () => {
      const [none] = await api<Record<string, unknown>>("GET /attribute", {
        casing: "none",
      });
      assertEquals(none, { type: "a", id: "1", Name: "n", Id: "X-9" });
      const [pascal] = await api<Record<string, unknown>>("GET /attribute", {
        casing: "PascalCase",
      });
      assertEquals(pascal, { type: "a", id: "1", Name: "n", Id: "X-9" });
    },
  );
});

Deno.test("casing: a query with two keys that become one is refused, nothing sent", async () => {
  await using server = startServer(() => json({}));
  const api = createGrab(server.url, { casing: "camelCase", retry: 0 });
  const error = await assertRejects(
    () => api("GET /items", { query: { page: { perPage: 10, per_page: 50 } } }),
    GrabValidationError,
  );
  assertStringIncludes(
    error.issues[0]!.message,
    'at "page": keys "perPage" and "per_page" both become "per_page" in snake_case',
  );
  assertStrictEquals(server.requests.length, 0);
  const [, none] = await api("GET /items", {
    query: { page: { perPage: 10, per_page: 50 } },
    casing: "none",
  });
  assertStrictEquals(none, null);
  assertStrictEquals(
    server.requests[0]!.url.search,
    "?page%5BperPage%5D=10&page%5Bper_page%5D=50",
  );
});

Deno.test("casing: a body with 200,000 clashes lists every one, nothing sent", async (t) => {
  await using server = startServer(() => json({}));
  const count = 200_000;
  const list = Array.from({ length: count }, () => ({ aB: 1, a_b: 2 }));
  const bodies = {
    json: { list },
    "json-api": { type: "a", list },
  } as const;
  for (const format of ["json", "json-api"] as const) {
    await t.step(format, async () => {
      const api = createGrab(server.url, { casing: "camelCase", format });
      const error = await assertRejects(
        () => api("POST /items", { body: bodies[format] }),
        GrabValidationError,
      );
      assertStrictEquals(error.issues.length, count);
      assertEquals(error.issues[count - 1], {
        path: `/list/${count - 1}/a_b`,
        message: `Cannot send keys "aB" and "a_b" of /list/${
          count - 1
        }: both become "a_b" in snake_case`,
      });
    });
  }
  assertStrictEquals(server.requests.length, 0);
});

/** Asserts that reading `path` fails as a clash of keys, kind `"parse"`. */
async function assertClash(
  api: ReturnType<typeof createGrab>,
  path: `/${string}`,
  why: string,
): Promise<void> {
  const [data, error] = await api(`GET ${path}`);
  assertStrictEquals(data, null);
  assert(isGrabTransportError(error));
  assertStrictEquals(error.kind, "parse");
  assertStringIncludes(error.message, `Cannot read the response: ${why}`);
}
