import {
  assert,
  assertEquals,
  assertFalse,
  assertInstanceOf,
  assertStrictEquals,
} from "@std/assert";
import { assertSpyCalls, spy } from "@std/testing/mock";
import type { Casing } from "../src/casing.ts";
import { GrabError, GrabTransportError } from "../src/errors.ts";
import { transportError } from "../src/transport_error.ts";
import {
  type Codec,
  codecFor,
  decodeOutcome,
  isPassThrough,
  JSON_CODEC,
  NO_BODY,
} from "../src/format.ts";
import { toJson } from "../src/json_text.ts";
import {
  type CallOptions,
  NO_FACTORY,
  type Resolved,
  resolveOptions,
} from "../src/resolve.ts";
import {
  HTTP_ERROR_META,
  type SendOutcome,
  TRANSPORT_META,
} from "../src/result.ts";
import type { StandardSchema } from "../src/schema.ts";

/** The options of one call, resolved with no factory. */
function resolved(options: CallOptions = {}): Resolved {
  const result = resolveOptions(NO_FACTORY, options, true);
  if (Array.isArray(result)) {
    throw new Error(`Unexpected issues: ${JSON.stringify(result)}`);
  }
  return result;
}

/** A read response as `Call.send` gives it. */
function response(
  status: number,
  body: unknown,
  extra: {
    statusText?: string;
    empty?: boolean;
    url?: string;
    method?: string;
  } = {},
): SendOutcome {
  return {
    ok: true,
    method: extra.method ?? "GET",
    status,
    statusText: extra.statusText ?? "",
    url: extra.url ?? "https://api.test/v1/items?token=secret",
    headers: new Headers({ "content-type": "application/json" }),
    body,
    empty: extra.empty ?? body === null,
  };
}

/** A Standard Schema that accepts `{ count: number }` and adds a field. */
function countSchema(): StandardSchema<{ count: number; checked: true }> {
  return {
    "~standard": {
      version: 1,
      vendor: "hand",
      validate: (value) => {
        const count = (value as { count?: unknown } | null)?.count;
        return typeof count === "number"
          ? { value: { count, checked: true as const } }
          : { issues: [{ message: "count must be a number" }] };
      },
    },
  };
}

Deno.test("toJson() writes JSON text", async (t) => {
  await t.step("with casing none: JSON.stringify's text", () => {
    const value = { userId: 1, list: [1, "two", null], nested: { aB: true } };
    assertEquals(toJson(value, "none"), JSON.stringify(value));
  });

  await t.step("renames keys of plain objects at every depth", () => {
    const value = {
      userId: 1,
      homeAddress: { streetName: "Main", geoPoint: { latValue: 1.5 } },
      tagList: [{ tagId: 7 }, [{ innerKey: "x" }]],
    };
    assertEquals(
      toJson(value, "snake_case"),
      '{"user_id":1,"home_address":{"street_name":"Main","geo_point":{"lat_value":1.5}},"tag_list":[{"tag_id":7},[{"inner_key":"x"}]]}',
    );
    const casings: [Casing, string][] = [
      ["camelCase", '{"firstName":{"lastName":1}}'],
      ["kebab-case", '{"first-name":{"last-name":1}}'],
      ["PascalCase", '{"FirstName":{"LastName":1}}'],
    ];
    for (const [casing, expected] of casings) {
      assertEquals(toJson({ first_name: { last_name: 1 } }, casing), expected);
    }
  });

  await t.step("never renames values, in arrays or elsewhere", () => {
    assertEquals(
      toJson(
        { sortBy: "createdAt", names: ["firstName", "last_name"] },
        "snake_case",
      ),
      '{"sort_by":"createdAt","names":["firstName","last_name"]}',
    );
  });

  await t.step("keeps the caller's value unchanged", () => {
    const value = { userId: 1, inner: { aB: 2 } };
    toJson(value, "snake_case");
    assertEquals(value, { userId: 1, inner: { aB: 2 } });
  });

  for (const casing of ["none", "snake_case"] as const) {
    await t.step(
      `keeps __proto__ as an own key, never a prototype (${casing})`,
      () => {
        const value = JSON.parse(
          '{"__proto__":{"polluted":1},"aB":{"__proto__":{"deep":2}}}',
        );
        const text = toJson(value, casing);
        assertEquals(typeof text, "string");
        const key = casing === "none" ? "aB" : "a_b";
        assertEquals(
          text,
          `{"__proto__":{"polluted":1},"${key}":{"__proto__":{"deep":2}}}`,
        );
        const back = JSON.parse(text as string);
        assert(Object.hasOwn(back, "__proto__"));
        assertStrictEquals(Object.getPrototypeOf(back), Object.prototype);
        assertStrictEquals(
          ({} as Record<string, unknown>)["polluted"],
          undefined,
        );
        assertStrictEquals(({} as Record<string, unknown>)["deep"], undefined);
      },
    );
  }

  for (const casing of ["none", "snake_case"] as const) {
    await t.step(
      `calls toJSON exactly once and writes its result (${casing})`,
      () => {
        const toJSON = spy(() => ({ innerKey: [1, 2] }));
        const text = toJson({ outerKey: { toJSON } }, casing);
        assertSpyCalls(toJSON, 1);
        assertEquals(
          text,
          casing === "none"
            ? '{"outerKey":{"innerKey":[1,2]}}'
            : '{"outer_key":{"inner_key":[1,2]}}',
        );
      },
    );

    await t.step(`reads a getter exactly once (${casing})`, () => {
      // Each kind of value: a number, a string, null, an object.
      for (const given of [5, "five", null, { n: 5 }]) {
        const read = spy(() => given);
        const value = {
          get someValue() {
            return read();
          },
        };
        const text = toJson(value, casing);
        assertSpyCalls(read, 1);
        assertEquals(
          text,
          JSON.stringify({
            [casing === "none" ? "someValue" : "some_value"]: given,
          }),
        );
      }
    });
  }

  await t.step("a Date is written through its toJSON", () => {
    const at = new Date(Date.UTC(2024, 4, 1));
    assertEquals(
      toJson({ createdAt: at }, "snake_case"),
      '{"created_at":"2024-05-01T00:00:00.000Z"}',
    );
  });
});

Deno.test("toJson() gives an issue for each value JSON cannot carry", async (t) => {
  const circular: Record<string, unknown> = { name: "loop" };
  circular["self"] = { back: circular };
  const cases: [string, unknown, string, string][] = [
    ["NaN", { n: NaN }, "/n", "NaN"],
    ["Infinity", { deep: { list: [1, Infinity] } }, "/deep/list/1", "Infinity"],
    ["-Infinity", { m: -Infinity }, "/m", "-Infinity"],
    ["a function", { fn: () => 1 }, "/fn", "a function"],
    ["a symbol", { list: [Symbol("s")] }, "/list/0", "a symbol"],
    ["a BigInt", { big: { n: 1n } }, "/big/n", "a BigInt"],
    ["a circular value", circular, "/self/back", "a circular reference"],
    [
      "a toJSON that throws",
      {
        at: {
          toJSON() {
            throw new Error("no form");
          },
        },
      },
      "/at",
      "an object whose toJSON threw (no form)",
    ],
    [
      "a getter that throws",
      {
        inner: {
          get secret(): string {
            throw new Error("locked");
          },
        },
      },
      "/inner/secret",
      "a getter that threw (locked)",
    ],
    [
      "a toJSON that returns NaN",
      { at: { toJSON: () => NaN } },
      "/at",
      "NaN",
    ],
    ["a key with / and ~", { "a/b~c": NaN }, "/a~1b~0c", "NaN"],
  ];
  for (const casing of ["none", "snake_case"] as const) {
    for (const [name, value, path, what] of cases) {
      await t.step(`${name} (${casing})`, () => {
        assertEquals(toJson(value, casing), [{
          path,
          message: `Cannot serialise "${path}" as JSON: value is ${what}`,
        }]);
      });
    }
  }

  await t.step("a value that is a function itself: the path is empty", () => {
    assertEquals(toJson(() => 1, "none"), [{
      path: "",
      message: "Cannot serialise the body as JSON: value is a function",
    }]);
  });

  await t.step("undefined has no JSON form", () => {
    assertEquals(toJson(undefined, "none"), [{
      path: "",
      message: "Cannot serialise the body as JSON: it has no JSON form",
    }]);
  });

  await t.step("several values give several issues, in order", () => {
    assertEquals(
      (toJson({ a: NaN, b: { c: 1n } }, "camelCase") as { path: string }[])
        .map((issue) => issue.path),
      ["/a", "/b/c"],
    );
  });

  await t.step("a value nested too deep for the stack says so", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { a_b: deep };
    for (const casing of ["none", "snake_case"] as const) {
      assertEquals(toJson(deep, casing), [{
        path: "",
        message:
          "Cannot serialise the body as JSON: it is nested deeper, or holds more, than JSON can write",
      }]);
    }
  });
});

Deno.test("isPassThrough()", async (t) => {
  const sent: [string, unknown][] = [
    ["a string", "text"],
    ["an empty string", ""],
    ["FormData", new FormData()],
    ["URLSearchParams", new URLSearchParams("a=1")],
    ["a Blob", new Blob(["x"])],
    ["a File", new File(["x"], "x.txt")],
    ["an ArrayBuffer", new ArrayBuffer(2)],
    ["a Uint8Array", new Uint8Array(2)],
    ["a DataView", new DataView(new ArrayBuffer(2))],
    ["a ReadableStream", new ReadableStream()],
  ];
  for (const [name, body] of sent) {
    await t.step(`${name} is sent as it is`, () => {
      assert(isPassThrough(body));
    });
  }
  const serialised: [string, unknown][] = [
    ["a plain object", { a: 1 }],
    ["an array", [1]],
    ["a number", 1],
    ["a boolean", true],
    ["null", null],
    ["undefined", undefined],
    ["a Date", new Date(0)],
  ];
  for (const [name, body] of serialised) {
    await t.step(`${name} is not`, () => {
      assertFalse(isPassThrough(body));
    });
  }
});

Deno.test("JSON_CODEC", async (t) => {
  await t.step("mediaType() is application/json", () => {
    assertEquals(JSON_CODEC.mediaType(resolved()), "application/json");
  });

  await t.step("no body for undefined and null", () => {
    assertStrictEquals(
      JSON_CODEC.encodeBody(undefined, "GET", resolved()),
      NO_BODY,
    );
    assertStrictEquals(
      JSON_CODEC.encodeBody(null, "POST", resolved()),
      NO_BODY,
    );
  });

  await t.step("a pass-through body is sent as it is, not encoded", () => {
    const body = new URLSearchParams("a=1");
    assertEquals(JSON_CODEC.encodeBody(body, "POST", resolved()), {
      body,
      encoded: false,
    });
  });

  await t.step("casing none: keys as written, even with a wireCasing", () => {
    assertEquals(
      JSON_CODEC.encodeBody(
        { userId: 1 },
        "POST",
        resolved({ wireCasing: "kebab-case" }),
      ),
      { body: '{"userId":1}', encoded: true },
    );
  });

  await t.step("a casing: keys written in the wireCasing", () => {
    assertEquals(
      JSON_CODEC.encodeBody(
        { userId: 1 },
        "POST",
        resolved({ casing: "camelCase" }),
      ),
      { body: '{"user_id":1}', encoded: true },
    );
    assertEquals(
      JSON_CODEC.encodeBody(
        { userId: 1 },
        "POST",
        resolved({ casing: "camelCase", wireCasing: "kebab-case" }),
      ),
      { body: '{"user-id":1}', encoded: true },
    );
  });

  await t.step("a value JSON cannot carry gives the issues", () => {
    assertEquals(JSON_CODEC.encodeBody({ n: NaN }, "POST", resolved()), [{
      path: "/n",
      message: 'Cannot serialise "/n" as JSON: value is NaN',
    }]);
  });

  await t.step("decode() with casing none gives the body itself", () => {
    const body = { "user_id": 1 };
    const decoded = JSON_CODEC.decode(body, resolved());
    assert(decoded.ok);
    assertStrictEquals(decoded.data, body);
  });

  await t.step("decode() with a casing renames keys at every depth", () => {
    const body = {
      "user_id": 1,
      "tag_list": [{ "tag_id": 2, label: "first_one" }],
    };
    assertEquals(JSON_CODEC.decode(body, resolved({ casing: "camelCase" })), {
      ok: true,
      data: { userId: 1, tagList: [{ tagId: 2, label: "first_one" }] },
    });
    assertEquals(body, {
      user_id: 1,
      tag_list: [{ tag_id: 2, label: "first_one" }],
    });
  });
});

Deno.test("codecFor()", async (t) => {
  await t.step("json: the JSON codec, synchronously", () => {
    const codec = codecFor("json");
    assertFalse(codec instanceof Promise);
    assertStrictEquals(codec, JSON_CODEC);
  });

  await t.step(
    "json-api: a promise of the JSON:API codec, then the codec once loaded",
    async () => {
      const first = codecFor("json-api");
      assertInstanceOf(first, Promise);
      const codec = await first;
      assertEquals(
        codec.mediaType(resolved({ format: "json-api" })),
        "application/vnd.api+json",
      );
      assertStrictEquals(codecFor("json-api"), codec);
    },
  );
});

Deno.test("decodeOutcome()", async (t) => {
  await t.step("a transport failure: the error as it is", async () => {
    const error = transportError("network", "GET", "https://api.test/a");
    const [data, got, meta] = await decodeOutcome(
      { ok: false, error },
      resolved(),
      JSON_CODEC,
    );
    assertStrictEquals(data, null);
    assertStrictEquals(got, error);
    assertStrictEquals(meta, TRANSPORT_META);
  });

  await t.step("a non-2xx with a JSON:API error document", async () => {
    const body = {
      errors: [
        {
          status: 422,
          title: "Invalid Attribute",
          detail: "Name is taken",
          source: { pointer: "/data/attributes/first_name" },
        },
        { title: "Forbidden" },
        { code: "silent" },
      ],
    };
    const [data, error, meta] = await decodeOutcome(
      response(422, body, {
        statusText: "Unprocessable Content",
        method: "POST",
      }),
      resolved({ casing: "camelCase" }),
      JSON_CODEC,
    );
    assertStrictEquals(data, null);
    assertInstanceOf(error, GrabError);
    assertEquals(error.message, "Name is taken; Forbidden");
    assertEquals(error.statusCode, 422);
    assertEquals(error.method, "POST");
    assertEquals(error.url, "https://api.test/v1/items");
    assertStrictEquals(error.body, body);
    assertEquals(error.errors, [
      {
        status: "422",
        title: "Invalid Attribute",
        detail: "Name is taken",
        source: { pointer: "/data/attributes/first_name" },
        field: "firstName",
      },
      { title: "Forbidden" },
      { code: "silent" },
    ]);
    assertStrictEquals(meta, HTTP_ERROR_META);
  });

  await t.step(
    "an error document without any text: the status message",
    async () => {
      const [, error] = await decodeOutcome(
        response(409, { errors: [{ code: "conflict" }] }, {
          statusText: "Conflict",
          method: "PUT",
        }),
        resolved(),
        JSON_CODEC,
      );
      assertInstanceOf(error, GrabError);
      assertEquals(
        error.message,
        "409 Conflict: PUT https://api.test/v1/items",
      );
      assertEquals(error.errors, [{ code: "conflict" }]);
    },
  );

  await t.step(
    "a non-2xx with a plain body: no errors, the status message",
    async () => {
      const [data, error, meta] = await decodeOutcome(
        response(500, "upstream broke", {
          statusText: "Internal Server Error",
        }),
        resolved(),
        JSON_CODEC,
      );
      assertStrictEquals(data, null);
      assertInstanceOf(error, GrabError);
      assertEquals(
        error.message,
        "500 Internal Server Error: GET https://api.test/v1/items",
      );
      assertEquals(error.body, "upstream broke");
      assertStrictEquals(error.errors, undefined);
      assertFalse("errors" in error);
      assertStrictEquals(meta, HTTP_ERROR_META);
    },
  );

  await t.step("a non-2xx with an empty body and no status text", async () => {
    const [, error] = await decodeOutcome(
      response(503, null),
      resolved(),
      JSON_CODEC,
    );
    assertInstanceOf(error, GrabError);
    assertEquals(error.message, "503: GET https://api.test/v1/items");
    assertStrictEquals(error.body, null);
  });

  await t.step("a 2xx empty body: data null, never decoded", async () => {
    const decode = spy(JSON_CODEC, "decode");
    try {
      const outcome = response(204, null, { empty: true });
      const [data, error, meta] = await decodeOutcome(
        outcome,
        resolved(),
        JSON_CODEC,
      );
      assertStrictEquals(data, null);
      assertStrictEquals(error, null);
      assert(outcome.ok);
      assertEquals(meta, { statusCode: 204, headers: outcome.headers });
      assertSpyCalls(decode, 0);
    } finally {
      decode.restore();
    }
  });

  await t.step(
    "a 2xx body: the codec's data, in the caller's casing",
    async () => {
      const outcome = response(200, { user_id: 7 });
      const [data, error, meta] = await decodeOutcome(
        outcome,
        resolved({ casing: "camelCase" }),
        JSON_CODEC,
      );
      assertEquals(data, { userId: 7 });
      assertStrictEquals(error, null);
      assert(outcome.ok);
      assertStrictEquals(meta.statusCode, 200);
      assertStrictEquals(
        (meta as { headers: Headers }).headers,
        outcome.headers,
      );
      assertFalse("meta" in meta);
      assertFalse("links" in meta);
    },
  );

  await t.step("the codec's meta and links go to the meta", async () => {
    const codec: Codec = {
      mediaType: () => undefined,
      encodeBody: () => NO_BODY,
      decode: (body) => ({
        ok: true,
        data: body,
        meta: { total: 3 },
        links: { next: "/page/2" },
      }),
    };
    const [data, , meta] = await decodeOutcome(
      response(200, [1]),
      resolved(),
      codec,
    );
    assertEquals(data, [1]);
    assertEquals((meta as { meta?: unknown }).meta, { total: 3 });
    assertEquals((meta as { links?: unknown }).links, { next: "/page/2" });
  });

  await t.step(
    "a body the codec refuses: kind parse, with the reason",
    async () => {
      const codec: Codec = {
        mediaType: () => undefined,
        encodeBody: () => NO_BODY,
        decode: () => ({ ok: false, reason: "not a document" }),
      };
      const [data, error, meta] = await decodeOutcome(
        response(200, { x: 1 }),
        resolved(),
        codec,
      );
      assertStrictEquals(data, null);
      assertInstanceOf(error, GrabTransportError);
      assertEquals(error.kind, "parse");
      assertEquals(
        error.message,
        'Cannot read the response: the body of the 200 response (Content-Type "application/json") is not a valid JSON:API document (not a document); ' +
          'read it with format "json" to see what the server sent: GET https://api.test/v1/items',
      );
      assertStrictEquals(meta, TRANSPORT_META);
    },
  );

  await t.step("a schema that passes: its output", async () => {
    const [data, error, meta] = await decodeOutcome(
      response(200, { count: 2 }),
      resolved({ schema: countSchema() }),
      JSON_CODEC,
    );
    assertEquals(data, { count: 2, checked: true });
    assertStrictEquals(error, null);
    assertEquals(meta.statusCode, 200);
  });

  await t.step(
    "a schema that fails: kind schema, with its issues",
    async () => {
      const [data, error, meta] = await decodeOutcome(
        response(200, { count: "two" }),
        resolved({ schema: countSchema() }),
        JSON_CODEC,
      );
      assertStrictEquals(data, null);
      assertInstanceOf(error, GrabTransportError);
      assertEquals(error.kind, "schema");
      assertEquals(error.issues, [{ message: "count must be a number" }]);
      assertEquals(error.url, "https://api.test/v1/items");
      assertStrictEquals(meta, TRANSPORT_META);
    },
  );

  await t.step("a schema never sees a non-2xx body", async () => {
    const schema = countSchema();
    const validate = spy(schema["~standard"], "validate");
    try {
      const [, error] = await decodeOutcome(
        response(404, { count: 1 }),
        resolved({ schema }),
        JSON_CODEC,
      );
      assertInstanceOf(error, GrabError);
      assertSpyCalls(validate, 0);
    } finally {
      validate.restore();
    }
  });
});
