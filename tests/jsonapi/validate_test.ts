import {
  assert,
  assertEquals,
  assertRejects,
  assertStrictEquals,
} from "@std/assert";
import createGrab, { GrabValidationError } from "../../mod.ts";
import { startServer } from "../_server.ts";
import { fc } from "../_npm.ts";
import { type Casing, convertKey } from "../../src/casing.ts";
import type { HttpMethod } from "../../src/endpoint.ts";
import { validateWrite } from "../../src/jsonapi/validate.ts";
import { serialise } from "../../src/jsonapi/serialise.ts";
import { codecFor } from "../../src/format.ts";

// The JSON:API modules take the core's helpers as the codec loads.
await codecFor("json-api");

const POST = {
  method: "POST",
  casing: "none",
  wireCasing: "snake_case",
} as const;
const PATCH = { ...POST, method: "PATCH" } as const;
const CAMEL = {
  method: "POST",
  casing: "camelCase",
  wireCasing: "snake_case",
} as const;

const LINKAGE =
  "must be { type, id }, { type, lid }, an array of those or null";
const type = (what: string, value: string) =>
  `Cannot send the ${what} as "type" must be a non-empty string: value is ${value}`;
const id = (what: string, value: string) =>
  `Cannot send the ${what} as "id" must be a string: value is ${value}`;
const reserved = (name: string) =>
  `Cannot send field ${name}: the name is reserved by JSON:API`;
const invalidName = (name: string) =>
  `Cannot send field ${name}: the name is not a valid JSON:API member name`;
const nonJson = (path: string, what: string) =>
  `Cannot serialise "${path}" as JSON: value is ${what}`;
const noId = 'Cannot send the resource with PATCH: "id" and "lid" are missing';

type Options = {
  method: HttpMethod;
  casing: Casing;
  wireCasing: Casing;
};
type Case = [
  name: string,
  body: unknown,
  options: Options,
  issues: [path: string, message: string][],
];

Deno.test("validateWrite()", async (t) => {
  const circular: Record<string, unknown> = { type: "nodes" };
  circular.self = circular;
  const circularWire: Record<string, unknown> = { type: "nodes" };
  circularWire.attributes = { self: circularWire };

  const cases: Case[] = [
    ["an array body", [{ type: "a" }], POST, [[
      "",
      "Cannot send the body as JSON:API: value is an array",
    ]]],
    ["a number body", 5, POST, [[
      "",
      "Cannot send the body as JSON:API: value is 5",
    ]]],
    ["a boolean body", true, POST, [[
      "",
      "Cannot send the body as JSON:API: value is true",
    ]]],
    ["a string body", "x", POST, [[
      "",
      'Cannot send the body as JSON:API: value is "x"',
    ]]],
    ["a missing type", { title: "x" }, POST, [[
      "/type",
      type("resource", "missing"),
    ]]],
    ["an empty type", { type: "" }, POST, [[
      "/type",
      type("resource", "an empty string"),
    ]]],
    ["a number type", { type: 3 }, POST, [["/type", type("resource", "3")]]],
    ["a NaN id", { type: "a", id: NaN }, POST, [[
      "/id",
      id("resource", "NaN"),
    ]]],
    ["an object id", { type: "a", id: {} }, POST, [[
      "/id",
      id("resource", "an object"),
    ]]],
    ["a number lid", { type: "a", lid: 1 }, POST, [[
      "/lid",
      'Cannot send the resource as "lid" must be a string: value is 1',
    ]]],
    ["PATCH without id or lid", { type: "a", title: "x" }, PATCH, [["", noId]]],
    [
      "PATCH of a wire resource without id",
      {
        type: "a",
        attributes: {},
      },
      PATCH,
      [["", noId]],
    ],
    [
      "PATCH of a document resource without id",
      {
        data: { type: "a", attributes: { t: 1 } },
      },
      PATCH,
      [["/data", noId]],
    ],
    ["a flat field named links", { type: "a", links: { self: "/a/1" } }, POST, [
      [
        "/links",
        reserved('"links"'),
      ],
    ]],
    [
      "a flat field named relationships",
      {
        type: "a",
        relationships: { b: null },
        x: 1,
      },
      POST,
      [["/relationships", reserved('"relationships"')]],
    ],
    [
      "wire attributes mixed with flat fields",
      {
        type: "a",
        attributes: { t: 1 },
        title: "x",
      },
      POST,
      [["/attributes", reserved('"attributes"')]],
    ],
    ["a field that cases to a reserved name", { type: "a", Links: "x" }, {
      ...CAMEL,
      wireCasing: "snake_case",
    }, [["/Links", reserved('"Links" (sent as "links")')]]],
    [
      "attributes named type, id and lid",
      {
        type: "a",
        attributes: { type: "x", id: "1", lid: "l" },
      },
      POST,
      [
        ["/attributes/type", reserved('"type"')],
        ["/attributes/id", reserved('"id"')],
        ["/attributes/lid", reserved('"lid"')],
      ],
    ],
    [
      "relationships named links and relationships",
      {
        type: "a",
        relationships: { links: null, relationships: [] },
      },
      POST,
      [
        ["/relationships/links", reserved('"links"')],
        ["/relationships/relationships", reserved('"relationships"')],
      ],
    ],
    [
      "attribute values (flat meta included) containing links or relationships",
      {
        type: "a",
        meta: { links: 1 },
        address: { links: { self: "x" }, parts: [{ relationships: {} }] },
      },
      POST,
      [
        ["/meta/links", reserved('"links"')],
        ["/address/links", reserved('"links"')],
        ["/address/parts/0/relationships", reserved('"relationships"')],
      ],
    ],
    [
      "invalid member names",
      {
        type: "a",
        "-lead": 1,
        "trail_": 2,
        "a.b": 3,
        "": 4,
        nested: { "sp ace": 1, "bad!": 2 },
      },
      POST,
      [
        ["/-lead", invalidName('"-lead"')],
        ["/trail_", invalidName('"trail_"')],
        ["/a.b", invalidName('"a.b"')],
        ["/", invalidName('""')],
        ["/nested/bad!", invalidName('"bad!"')],
      ],
    ],
    [
      "invalid wire attribute names",
      {
        type: "a",
        attributes: { "x y ": 1, ok: { "#": 1 } },
      },
      POST,
      [
        ["/attributes/x y ", invalidName('"x y "')],
        ["/attributes/ok/#", invalidName('"#"')],
      ],
    ],
    [
      "bad flat linkage",
      {
        type: "a",
        author: { type: "", id: 1n },
        tags: [{ type: "t", id: "1" }, { type: "t", lid: 2 }],
      },
      POST,
      [
        ["/author/type", type("linkage", "an empty string")],
        ["/author/id", id("linkage", "a BigInt")],
        [
          "/tags/1/lid",
          'Cannot send the linkage as "lid" must be a string: value is 2',
        ],
      ],
    ],
    [
      "bad wire linkage",
      {
        type: "a",
        relationships: {
          author: { type: "people" },
          editor: { data: 5 },
          tags: [{ type: "t", id: "1", name: "x" }, "t2"],
          owner: true,
        },
      },
      POST,
      [
        [
          "/relationships/author",
          'Cannot send the linkage: "id" and "lid" are missing',
        ],
        [
          "/relationships/editor/data",
          `Cannot send the linkage as it ${LINKAGE}: value is 5`,
        ],
        [
          "/relationships/tags/0/name",
          'Cannot send linkage member "name": only type, id, lid, meta, @-members and extension members are allowed',
        ],
        [
          "/relationships/tags/1",
          `Cannot send the linkage as it ${LINKAGE}: value is "t2"`,
        ],
        [
          "/relationships/owner",
          `Cannot send the linkage as it ${LINKAGE}: value is true`,
        ],
      ],
    ],
    [
      "wire attributes and relationships that are not objects",
      {
        type: "a",
        attributes: { t: 1 },
        relationships: [],
      },
      POST,
      [[
        "/relationships",
        'Cannot send the resource as "relationships" must be an object: value is an array',
      ]],
    ],
    ["bad document data", { data: 5 }, POST, [[
      "/data",
      'Cannot send the document as "data" must be a resource, linkage or null: value is 5',
    ]]],
    [
      "bad document linkage",
      {
        data: [{ type: "tags" }, { id: "1" }, null],
      },
      POST,
      [
        ["/data/0", 'Cannot send the linkage: "id" and "lid" are missing'],
        ["/data/1/type", type("linkage", "missing")],
        ["/data/2", `Cannot send the linkage as it ${LINKAGE}: value is null`],
      ],
    ],
    [
      "a flat resource inside a document",
      {
        data: { type: "a", title: "x" },
      },
      POST,
      [[
        "/data/title",
        'Cannot send resource member "title": put fields under "attributes" or "relationships"',
      ]],
    ],
    [
      "non-JSON values in each shape",
      {
        data: {
          type: "a",
          id: "1",
          attributes: { n: NaN },
          relationships: { b: { data: null, meta: { f: Symbol() } } },
          meta: { big: 1n },
        },
        meta: { i: -Infinity },
      },
      POST,
      [
        ["/data/attributes/n", nonJson("/data/attributes/n", "NaN")],
        [
          "/data/relationships/b/meta/f",
          nonJson("/data/relationships/b/meta/f", "a symbol"),
        ],
        ["/data/meta/big", nonJson("/data/meta/big", "a BigInt")],
        ["/meta/i", nonJson("/meta/i", "-Infinity")],
      ],
    ],
    ["a flat circular reference", circular, POST, [[
      "/self",
      nonJson("/self", "a circular reference"),
    ]]],
    ["a wire circular reference", circularWire, POST, [[
      "/attributes/self",
      nonJson("/attributes/self", "a circular reference"),
    ]]],
    [
      "a relationship object with nothing but undefined members",
      {
        data: {
          type: "a",
          relationships: { author: { data: undefined, meta: undefined } },
        },
      },
      POST,
      [[
        "/data/relationships/author",
        `Cannot send relationship "author": it needs "data", the linkage it sets ("links" or "meta" alone set nothing)`,
      ]],
    ],
    [
      "relationship objects without data: links, meta, an extension's member",
      {
        type: "a",
        id: "1",
        relationships: {
          reviewers: { links: { related: "/x" } },
          editor: { meta: { role: "x" } },
          series: { "ns:rank": 1, data: undefined },
        },
      },
      PATCH,
      ["reviewers", "editor", "series"].map((name) => [
        `/relationships/${name}`,
        `Cannot send relationship "${name}": it needs "data", the linkage it sets ("links" or "meta" alone set nothing)`,
      ]),
    ],
    [
      "a relationship object member JSON:API does not define",
      {
        type: "a",
        relationships: {
          author: {
            data: { type: "p", id: "1" },
            count: 3,
            "@note": 1,
            "ns:rank": 2,
            unsent: undefined,
          },
        },
      },
      POST,
      [[
        "/relationships/author/count",
        'Cannot send relationship member "count": only data, links, meta, @-members and extension members are allowed',
      ]],
    ],
    [
      "a document member JSON:API does not define",
      {
        data: { type: "a", attributes: { t: 1 } },
        title: "x",
        meta: { m: 1 },
        jsonapi: { version: "1.1" },
        links: { self: "/a" },
        "@context": "c",
        "ns:x": 1,
        unsent: undefined,
      },
      POST,
      [[
        "/title",
        'Cannot send document member "title": only data, meta, jsonapi, links, included, @-members and extension members are allowed',
      ]],
    ],
    [
      "included resources, checked as data's are",
      {
        data: { type: "a", attributes: { t: 1 } },
        included: [
          { type: "b", id: "1", attributes: { n: 1 } },
          { type: "b", title: "x", attributes: { links: 1 } },
          3,
        ],
      },
      POST,
      [
        [
          "/included/1/title",
          'Cannot send resource member "title": put fields under "attributes" or "relationships"',
        ],
        ["/included/1/attributes/links", reserved('"links"')],
        [
          "/included/1",
          'Cannot send the included resource: "id" and "lid" are missing; give one, which a relationship\'s linkage names it by',
        ],
        [
          "/included/2",
          "Cannot send the included resource: it must be a resource object, { type, id, attributes?, relationships? }: value is 3",
        ],
      ],
    ],
    [
      "included that is not an array",
      { data: null, included: { type: "b", id: "1" } },
      POST,
      [[
        "/included",
        'Cannot send the document as "included" must be an array of resources: value is an object',
      ]],
    ],
    [
      "a JSON pointer with ~ and /",
      { type: "a", "a/b": { "c~d": () => 1 } },
      POST,
      [
        ["/a~1b", invalidName('"a/b"')],
        ["/a~1b/c~0d", invalidName('"c~d"')],
        ["/a~1b/c~0d", nonJson("/a~1b/c~0d", "a function")],
      ],
    ],
  ];

  for (const [name, body, options, issues] of cases) {
    await t.step(`reports ${name}`, () => {
      assertEquals(
        validateWrite(body, options),
        issues.map(([path, message]) => ({ path, message })),
      );
    });
  }

  await t.step("lists every violation of one body", () => {
    const body = {
      id: 7n,
      links: {},
      "first name!": "Ada",
      total: 2n,
      author: { type: "people", id: NaN },
      profile: { links: [], "x-": 1 },
    };
    assertEquals(validateWrite(body, PATCH), [
      { path: "/type", message: type("resource", "missing") },
      { path: "/id", message: id("resource", "a BigInt") },
      { path: "/links", message: reserved('"links"') },
      { path: "/first name!", message: invalidName('"first name!"') },
      { path: "/total", message: nonJson("/total", "a BigInt") },
      { path: "/author/id", message: id("linkage", "NaN") },
      { path: "/profile/links", message: reserved('"links"') },
      { path: "/profile/x-", message: invalidName('"x-"') },
    ]);
  });

  await t.step("checks names after casing to wireCasing", () => {
    const body = { type: "a", firstName: "Ada", address: { postCode: "x" } };
    assertEquals(validateWrite(body, CAMEL), []);
    assertEquals(
      validateWrite({ type: "a", Type: 1 }, {
        method: "POST",
        casing: "PascalCase",
        wireCasing: "kebab-case",
      }),
      [{ path: "/Type", message: reserved('"Type" (sent as "type")') }],
    );
    assertEquals(validateWrite({ type: "a", Type: 1 }, POST), []);
  });

  const valid: [string, unknown, Options][] = [
    ["a flat resource", {
      type: "blog-posts",
      id: 1,
      lid: "l1",
      title: "Hi",
      "@ext:x": 1,
      "ns:member": 2,
      "ünï cödé": 3,
      views: 0,
      published: null,
      tags: [],
      meta: { any: "thing" },
      at: new Date(0),
      body: { blocks: [{ type: "p", text: "x", "@id": "n" }] },
      author: { type: "people", id: "9", name: "Ada" },
      comments: [{ type: "comments", id: "1" }, { type: "comments", lid: "c" }],
    }, PATCH],
    ["a wire resource", {
      type: "articles",
      id: "1",
      attributes: { title: "Hi", data: [1], address: { street: "x" } },
      relationships: {
        author: null,
        tags: [],
        editor: { type: "people", id: "2", meta: { role: "x" } },
        comments: [{ type: "comments", lid: "c1" }],
        series: { data: { type: "series", id: 3 }, meta: { n: 1 } },
        reviewers: { data: [], links: { related: "/x" } },
      },
      links: { self: "/articles/1" },
      meta: { v: 1 },
    }, PATCH],
    ["a to-many relationship document", {
      data: [{ type: "tags", id: "2" }, { type: "tags", id: 3, meta: {} }],
    }, { ...POST, method: "DELETE" }],
    ["a to-one relationship document", {
      data: { type: "people", id: "9" },
    }, PATCH],
    ["a null document", { data: null }, PATCH],
    ["a resource document", {
      data: { type: "photos", attributes: { title: "x" } },
      meta: { request: 1 },
      jsonapi: { version: "1.1" },
    }, POST],
  ];
  for (const [name, body, options] of valid) {
    await t.step(`accepts ${name}`, () => {
      assertEquals(validateWrite(body, options), []);
    });
  }

  await t.step(
    "checks an @-member or extension member of a flat resource as the resource's, not as an attribute",
    () => {
      // Sent on the resource as written, as in the wire shape: JSON-LD
      // terms such as "links" or an IRI are no attribute's members.
      const context = {
        "@vocab": "https://schema.org/",
        links: "schema:url",
        "https://schema.org/name": { "@type": "@id" },
        fooBar: 1,
      };
      const flat = {
        type: "a",
        "@context": context,
        "ns:ref": { type: "", id: 1 },
      };
      const wire = { data: flat };
      for (const body of [flat, wire]) {
        assertEquals(validateWrite(body, CAMEL), []);
      }
      const { data } = serialise(flat, CAMEL) as {
        data: Record<string, unknown>;
      };
      assertStrictEquals(data["@context"], context);
      assertEquals(validateWrite({ type: "a", "@": 1, "ns:x": 1n }, CAMEL), [
        {
          path: "/@",
          message:
            'Cannot send member "@": the name is not a valid JSON:API member name',
        },
        { path: "/ns:x", message: nonJson("/ns:x", "a BigInt") },
      ]);
    },
  );

  await t.step("accepts generated valid flat resources", () => {
    fc.assert(
      fc.property(flatResource, casing, ([body, kinds], casing) => {
        const options = {
          method: "PATCH",
          casing,
          wireCasing: "kebab-case",
        } as const;
        assertEquals(validateWrite(body, options), []);
        const { data } = serialise(body, options) as { data: Wire };
        assertStrictEquals(data.type, body.type);
        assertStrictEquals(data.id, String(body.id));
        const to = casing === "none" ? "none" : "kebab-case";
        for (const [key, kind] of kinds) {
          const wire = convertKey(key, to);
          const value = body[key] as Record<string, unknown>;
          if (kind === "attribute") {
            assert(Object.hasOwn(data.attributes ?? {}, wire));
            assertStrictEquals(data.relationships?.[wire], undefined);
          } else {
            const reduce = (item: Record<string, unknown>) => ({
              type: item.type,
              id: String(item.id),
            });
            assertEquals(data.relationships?.[wire], {
              data: Array.isArray(value) ? value.map(reduce) : reduce(value),
            });
            assertStrictEquals(data.attributes?.[wire], undefined);
          }
        }
        assertStrictEquals(
          Object.keys(data.attributes ?? {}).length +
            Object.keys(data.relationships ?? {}).length,
          kinds.length,
        );
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  await t.step("reports generated bodies with an injected violation", () => {
    fc.assert(
      fc.property(flatResource, violation, ([body], [key, value, patch]) => {
        const broken: Record<string, unknown> = { ...body };
        if (key === "-id") delete broken.id;
        else broken[key] = value;
        const issues = validateWrite(broken, patch ? PATCH : POST);
        assert(issues.length > 0);
      }),
      { seed: 42, numRuns: 300 },
    );
  });
});

type Wire = {
  type: string;
  id?: string;
  attributes?: Record<string, unknown>;
  relationships?: Record<
    string,
    { data: { type: string; id: string } | { type: string; id: string }[] }
  >;
};

// Lower-case words joined by "_" or "-": valid names in every casing.
const name = fc.stringMatching(/^[a-z][a-z0-9]{0,6}(?:_[a-z][a-z0-9]{0,4})?$/)
  .filter((key) =>
    !["type", "id", "lid", "links", "relationships", "attributes"].includes(key)
  );
const casing = fc.constantFrom<Casing>("none", "camelCase", "snake_case");
const primitive = fc.oneof(
  fc.string(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);
// Objects keyed by valid names (never "type"), so never identifier-like.
const json = fc.oneof(
  primitive,
  fc.object({ key: name, values: [primitive], maxDepth: 2, maxKeys: 4 }),
  fc.array(fc.object({ key: name, values: [primitive], maxDepth: 1 }), {
    maxLength: 3,
  }),
);
const identifier = fc.record({
  type: fc.constantFrom("people", "blog-posts"),
  id: fc.oneof(fc.string({ minLength: 1 }), fc.integer()),
});
const field = fc.oneof(
  json.map((value) => ["attribute", value] as const),
  identifier.map((value) => ["relationship", value] as const),
  fc.array(identifier, { minLength: 1, maxLength: 3 })
    .map((value) => ["relationship", value] as const),
);
// A valid flat resource, and whether each field is an attribute or a relationship.
const flatResource = fc.record({
  type: fc.constantFrom("articles", "blog-posts", "ünïcode"),
  id: fc.oneof(fc.uuid(), fc.integer({ min: 0 })),
  fields: fc.dictionary(name, field, { maxKeys: 6 }),
}).map(({ type, id, fields }) => {
  const body: Record<string, unknown> = { type, id };
  const kinds: [string, "attribute" | "relationship"][] = [];
  for (const [key, [kind, value]] of Object.entries(fields)) {
    body[key] = value;
    kinds.push([key, kind]);
  }
  return [body, kinds] as const;
});
const violation = fc.oneof(
  fc.tuple(fc.constant("type"), fc.constantFrom("", 1, null, undefined, [])),
  fc.tuple(fc.constant("-id"), fc.constant(undefined), fc.constant(true)),
  fc.tuple(fc.constant("id"), fc.constantFrom(NaN, Infinity, {}, [], true)),
  fc.tuple(
    fc.constantFrom("links", "relationships", "bad name!", "_x"),
    fc.jsonValue(),
  ),
  fc.tuple(
    name,
    fc.constantFrom(1n, NaN, () => 1, Symbol("s"), { links: 1 }, { "x!": 1 }),
  ),
  fc.tuple(
    name,
    fc.record({
      type: fc.constant("people"),
      id: fc.constantFrom(NaN, 1n, {}),
    }),
  ),
).map((tuple) =>
  [tuple[0], tuple[1], tuple[2] === true] as [string, unknown, boolean]
);

Deno.test("a meta, links or jsonapi member that is not an object is refused where it is", async () => {
  await using server = startServer(() => new Response(null, { status: 204 }));
  const grab = createGrab(server.url, { format: "json-api", retry: 0 });
  const resource = { type: "articles", id: "1", attributes: { title: "x" } };
  const bodies: [Record<string, unknown>, string, string][] = [
    [{ data: resource, meta: 5 }, "/meta", "value is 5"],
    [{ data: resource, links: "x" }, "/links", 'value is "x"'],
    [{ data: resource, jsonapi: "1.1" }, "/jsonapi", 'value is "1.1"'],
    [{ ...resource, meta: [1] }, "/meta", "value is an array"],
    [{ ...resource, links: null }, "/links", "value is null"],
    [
      { ...resource, relationships: { author: { data: null, meta: true } } },
      "/relationships/author/meta",
      "value is true",
    ],
    [
      { ...resource, relationships: { author: { data: null, links: "x" } } },
      "/relationships/author/links",
      'value is "x"',
    ],
    [
      { data: [{ type: "tags", id: "1", meta: "new" }] },
      "/data/0/meta",
      'value is "new"',
    ],
  ];
  for (const [body, path, value] of bodies) {
    const error = await assertRejects(
      () => grab("PATCH /articles/1", { body }),
      GrabValidationError,
    );
    const member = path.slice(path.lastIndexOf("/") + 1);
    assertEquals(error.issues, [{
      path,
      message: `Cannot send "${member}" as it must be an object: ${value}`,
    }]);
  }
  assertEquals(server.requests.length, 0, "the server saw no request");
  // Objects go as they are, and an extension's member may be any value.
  const [, error] = await grab("PATCH /articles/1", {
    body: {
      ...resource,
      meta: { by: "x" },
      links: { self: "/articles/1" },
      relationships: { author: { data: null, "version:id": 3 } },
    },
  });
  assertEquals(error, null);
  assertEquals(JSON.parse(server.requests[0]!.body).data.meta, { by: "x" });
  // A `meta` left undefined is no member: JSON leaves it out, in linkage too.
  const author = { type: "people", id: "2", meta: undefined };
  const [, unset] = await grab("PATCH /articles/1", {
    body: {
      ...resource,
      meta: undefined,
      relationships: { author: { data: author, meta: undefined } },
    },
  });
  assertEquals(unset, null);
  const [, listed] = await grab("POST /articles/1/relationships/tags", {
    body: { data: [{ type: "tags", id: "1", meta: undefined }] },
  });
  assertEquals(listed, null);
  const sent = server.requests.slice(1).map(({ body }) => JSON.parse(body));
  assertEquals(sent[0].data.relationships.author, {
    data: { type: "people", id: "2" },
  });
  assertEquals(sent[1], { data: [{ type: "tags", id: "1" }] });
});
