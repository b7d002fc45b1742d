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
import {
  convertKey,
  convertKeys,
  KeyClash,
  keyClashCheck,
} from "../src/casing.ts";
import { json, startServer } from "./_server.ts";

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

  await t.step("a very long key is shortened in the message", () => {
    const long = "a_b".repeat(1000);
    const value = { [long]: 1, [convertKey(long, "camelCase")]: 2 };
    const clash = assertThrows(() => convertKeys(value, "camelCase"), KeyClash);
    assert(clash.message.length < 300, clash.message);
    assertEquals(clash.keys[0], long);
  });
});

Deno.test("keyClashCheck() finds a key that one met before in the same object makes", () => {
  const check = keyClashCheck("snake_case");
  assertStrictEquals(check("first_name", "/user/first_name"), undefined);
  assertStrictEquals(check("firstName", "/other/firstName"), undefined);
  assertStrictEquals(
    check("firstName", "/user/firstName"),
    'Cannot send keys "first_name" and "firstName" of /user: both become "first_name" in snake_case',
  );
});

Deno.test("casing: a JSON body with two keys that become one", async (t) => {
  await using server = startServer({
    "/echo": (_request, seen) => json(JSON.parse(seen.body)),
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
    ] as const;
    for (const [path, why] of cases) {
      const [data, error] = await api(`GET ${path}`);
      assertStrictEquals(data, null);
      assert(isGrabTransportError(error));
      assertStrictEquals(error.kind, "parse");
      assertStringIncludes(error.message, `Cannot read the response: ${why}`);
      const [kept, none] = await api(`GET ${path}`, { casing: "none" });
      assertStrictEquals(none, null);
      assert(kept !== null);
    }
  });
});
