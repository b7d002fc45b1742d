import { assert, assertEquals, assertStrictEquals } from "@std/assert";
import type { Casing } from "../../src/casing.ts";
import { serialise, shapeOf } from "../../src/jsonapi/serialise.ts";
import { readFixture } from "./_documents.ts";
import { codecFor } from "../../src/format.ts";

// The JSON:API modules take the core's helpers as the codec loads.
await codecFor("json-api");

const NONE = { casing: "none", wireCasing: "snake_case" } as const;
const ATTRIBUTES = {
  title: "JSON:API paints my bikeshed!",
  views: 0,
  draft: false,
  published: null,
  tags: [],
  blocks: [{ type: "paragraph", id: "p1" }, { type: "image" }],
};

Deno.test("serialise()", async (t) => {
  const pairs: [string, Record<string, unknown>, unknown][] = [
    [
      "a flat resource with attributes only (a mixed array is one)",
      { type: "articles", ...ATTRIBUTES },
      { data: { type: "articles", attributes: ATTRIBUTES } },
    ],
    ["a flat resource with only relationships, lid and a number id", {
      type: "photos",
      id: 12,
      lid: "p1",
      photographer: { type: "people", id: 9 },
      skipped: undefined,
    }, {
      data: {
        type: "photos",
        id: "12",
        lid: "p1",
        relationships: {
          photographer: { data: { type: "people", id: "9" } },
        },
      },
    }],
    ["a flat resource with nothing but a type", { type: "photos" }, {
      data: { type: "photos" },
    }],
    ["a wire resource clearing relationships", {
      type: "articles",
      id: 1,
      relationships: {
        author: null,
        tags: [],
        editor: { type: "people", id: 2, meta: { role: "x" } },
        reviewers: [{ type: "people", id: "3" }],
        series: { data: null, meta: { reason: "ended" } },
        related: { links: { related: "/x" } },
        skipped: undefined,
      },
      links: { self: "/articles/1" },
      meta: { first_seen: 1 },
    }, {
      data: {
        type: "articles",
        id: "1",
        relationships: {
          author: { data: null },
          tags: { data: [] },
          editor: { data: { type: "people", id: "2", meta: { role: "x" } } },
          reviewers: { data: [{ type: "people", id: "3" }] },
          series: { data: null, meta: { reason: "ended" } },
          related: { links: { related: "/x" } },
        },
        links: { self: "/articles/1" },
        meta: { first_seen: 1 },
      },
    }],
    ["a wire resource sending an attribute that looks like linkage", {
      type: "events",
      attributes: { organiser: { type: "club", id: "c1" }, empty: [] },
    }, {
      data: {
        type: "events",
        attributes: { organiser: { type: "club", id: "c1" }, empty: [] },
      },
    }],
    ["a to-many relationship document", {
      data: [{ type: "tags", id: 2 }, {
        type: "tags",
        id: "3",
        meta: { a: 1 },
      }],
    }, {
      data: [{ type: "tags", id: "2" }, {
        type: "tags",
        id: "3",
        meta: { a: 1 },
      }],
    }],
    ["a resource document with top-level meta", {
      data: {
        type: "photos",
        attributes: { title: "Ember Hamster" },
        relationships: { photographer: { type: "people", id: "9" } },
      },
      meta: { request_id: "r1" },
      jsonapi: { version: "1.1" },
    }, {
      data: {
        type: "photos",
        attributes: { title: "Ember Hamster" },
        relationships: {
          photographer: { data: { type: "people", id: "9" } },
        },
      },
      meta: { request_id: "r1" },
      jsonapi: { version: "1.1" },
    }],
  ];
  for (const [name, flat, wire] of pairs) {
    await t.step(`serialises ${name}`, () => {
      assertEquals(serialise(flat, NONE), wire);
    });
  }

  await t.step(
    "serialises flat fixtures to their wire data, relationships reduced to { type, id }",
    async () => {
      // Their related resources carry fields (and lids) that serialise drops.
      for (const name of ["lid", "sparse_fieldsets"]) {
        const flat = await readFixture(`${name}.flat`);
        const wire = await readFixture(`${name}.wire`) as { data: unknown };
        const sent = Array.isArray(flat)
          ? flat.map((item) => serialise(item, NONE).data)
          : serialise(flat, NONE).data;
        assertEquals(sent, wire.data, name);
      }
    },
  );

  await t.step("sends relationship documents as they are", async () => {
    for (
      const name of [
        "relationship_to_one",
        "relationship_to_many",
        "empty_to_one",
        "empty_to_many",
      ]
    ) {
      const document = await readFixture(`${name}.wire`);
      assertEquals(serialise(document, NONE), document, name);
    }
  });

  await t.step(
    "converts camelCase fields to snake_case, never type or meta",
    () => {
      const body = {
        type: "blog-posts",
        id: "7",
        firstName: "Ada",
        coverImage: { altText: "A cat", sizes: [{ pixelWidth: 10 }] },
        mainAuthor: { type: "blog-authors", id: "9" },
      };
      const options = {
        casing: "camelCase",
        wireCasing: "snake_case",
      } as const;
      assertEquals(serialise(body, options), {
        data: {
          type: "blog-posts",
          id: "7",
          attributes: {
            first_name: "Ada",
            cover_image: { alt_text: "A cat", sizes: [{ pixel_width: 10 }] },
          },
          relationships: {
            main_author: { data: { type: "blog-authors", id: "9" } },
          },
        },
      });
      const wire = {
        type: "blog-posts",
        attributes: { firstName: "Ada" },
        relationships: { mainAuthor: { data: null, meta: { setBy: "x" } } },
        meta: { requestId: 1 },
      };
      assertEquals(serialise(wire, options), {
        data: {
          type: "blog-posts",
          attributes: { first_name: "Ada" },
          relationships: { main_author: { data: null, meta: { setBy: "x" } } },
          meta: { requestId: 1 },
        },
      });
    },
  );

  await t.step("converts snake_case fields to kebab-case", () => {
    const options = { casing: "snake_case", wireCasing: "kebab-case" } as const;
    assertEquals(
      serialise({
        data: {
          type: "line_items",
          attributes: { unit_price: { minor_units: 5 } },
          relationships: { parent_order: { type: "orders", id: "1" } },
        },
      }, options),
      {
        data: {
          type: "line_items",
          attributes: { "unit-price": { "minor-units": 5 } },
          relationships: {
            "parent-order": { data: { type: "orders", id: "1" } },
          },
        },
      },
    );
  });

  await t.step('converts nothing when casing is "none"', () => {
    const body = { type: "a", firstName: "x", nested: { someKey: 1 } };
    assertEquals(
      serialise(body, { casing: "none", wireCasing: "kebab-case" }),
      {
        data: {
          type: "a",
          attributes: { firstName: "x", nested: { someKey: 1 } },
        },
      },
    );
  });

  await t.step("never mutates the input", () => {
    const casings: Casing[] = ["none", "camelCase"];
    const bodies = [
      {
        type: "a",
        id: 1,
        title: "x",
        nested: { fooBar: [1] },
        b: { type: "b", id: 2, extra: 1 },
      },
      {
        type: "a",
        id: 1,
        attributes: { fooBar: 1 },
        relationships: { b: null, c: { data: [{ type: "c", id: 3 }] } },
      },
      { data: [{ type: "t", id: 1 }], meta: { x: 1 } },
    ];
    for (const body of bodies) {
      const before = structuredClone(body);
      for (const casing of casings) {
        serialise(body, { casing, wireCasing: "snake_case" });
      }
      assertEquals(body, before);
    }
  });

  await t.step("keeps a __proto__ key as an own property", () => {
    const body = JSON.parse(
      '{"type":"a","__proto__":{"x":1},"nested":{"__proto__":2}}',
    );
    const { data } = serialise(body, {
      casing: "camelCase",
      wireCasing: "snake_case",
    }) as { data: { attributes: Record<string, unknown> } };
    assert(Object.hasOwn(data.attributes, "__proto__"));
    const value = Object.getOwnPropertyDescriptor(
      data.attributes,
      "__proto__",
    )?.value;
    assertEquals(value, { x: 1 });
    // assertEquals does not tell Object.prototype from a null prototype.
    assertStrictEquals(Object.getPrototypeOf(value), Object.prototype);
    assertStrictEquals(
      Object.getPrototypeOf(data.attributes),
      Object.prototype,
    );
    const nested = data.attributes.nested as Record<string, unknown>;
    assert(Object.hasOwn(nested, "__proto__"));
    const wire = JSON.parse(
      '{"type":"a","attributes":{"__proto__":1},"relationships":{"__proto__":null}}',
    );
    const out = serialise(wire, {
      casing: "camelCase",
      wireCasing: "snake_case",
    }) as {
      data: { attributes: object; relationships: object };
    };
    assert(Object.hasOwn(out.data.attributes, "__proto__"));
    assert(Object.hasOwn(out.data.relationships, "__proto__"));
    assertStrictEquals(
      Object.getPrototypeOf(out.data.relationships),
      Object.prototype,
    );
  });
});

Deno.test("shapeOf()", async (t) => {
  const cases: [Record<string, unknown>, string][] = [
    [{ type: "a", title: "x" }, "flat"],
    [{ type: "a", id: "1" }, "flat"],
    [{ type: "a", meta: {}, links: {} }, "flat"],
    [{ type: "a", attributes: { t: 1 } }, "wire"],
    [
      { type: "a", id: "1", lid: "l", relationships: {}, meta: {}, links: {} },
      "wire",
    ],
    [{ type: "a", attributes: { t: 1 }, title: "x" }, "flat"],
    [{ type: "a", "version:id": "2", "@context": "x", attributes: {} }, "wire"],
    [{ type: "a", "version:id": "2", relationships: {} }, "wire"],
    [{ type: "a", "version:id": "2", title: "x" }, "flat"],
    [{ type: "a", attributes: "x" }, "flat"],
    [{ data: null }, "document"],
    [{ type: "a", data: 1 }, "flat"],
  ];
  for (const [body, shape] of cases) {
    await t.step(`takes ${JSON.stringify(body)} for ${shape}`, () => {
      assertStrictEquals(shapeOf(body), shape);
    });
  }
});
