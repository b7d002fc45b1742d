import {
  assert,
  assertEquals,
  assertNotStrictEquals,
  assertStrictEquals,
} from "@std/assert";
import { denormalise } from "../../src/jsonapi/denormalise.ts";
import { jsonApiOf } from "../../src/jsonapi/source.ts";
import { dataOf, type Flat, flat, PAIRS, readFixture } from "./_documents.ts";
import { codecFor } from "../../src/format.ts";

// The JSON:API modules take the core's helpers as the codec loads.
await codecFor("json-api");

Deno.test("denormalise()", async (t) => {
  await t.step("replays every wire fixture to its flat fixture", async () => {
    for (const name of PAIRS) {
      const wire = await readFixture(`${name}.wire`);
      const expected = await readFixture(`${name}.flat`);
      assertEquals(dataOf(wire), expected, name);
    }
  });

  await t.step("returns the document's meta and links as sent", async () => {
    const wire = await readFixture("compound.wire") as Flat;
    const result = denormalise(wire);
    assert(result.ok);
    assertStrictEquals(result.links, wire.links);
    assertEquals("meta" in result, false);

    const metaOnly = await readFixture("meta_only.wire") as Flat;
    const second = denormalise(metaOnly);
    assert(second.ok);
    assertStrictEquals(second.data, null);
    assertStrictEquals(second.meta, metaOnly.meta);
    assertEquals("links" in second, false);
  });

  await t.step(
    "gives one object per type and id, shared everywhere",
    async () => {
      const articles = dataOf(await readFixture("compound.wire")) as Flat[];
      const article = flat(articles[0]);
      const comments = article.comments as Flat[];
      assertStrictEquals(flat(comments[1]).author, article.author);
      assertNotStrictEquals(flat(comments[0]).author, article.author);

      const sparse = dataOf(
        await readFixture("sparse_fieldsets.wire"),
      ) as Flat[];
      assertStrictEquals(flat(sparse[0]).author, flat(sparse[1]).author);
    },
  );

  await t.step("ends a cycle and shares identity around it", async () => {
    const article = flat(dataOf(await readFixture("cycle.wire")));
    const author = flat(article.author);
    assertEquals(author.name, "Dan Gebhardt");
    assertStrictEquals(author["favourite-article"], article);
    assertStrictEquals(flat(author["favourite-article"]).author, author);
  });

  await t.step("keeps the first occurrence and the length of data", () => {
    const data = dataOf({
      data: [
        { type: "people", id: "9", attributes: { name: "Dan" } },
        { type: "people", id: "9", attributes: { name: "Daniel", age: 40 } },
      ],
      included: [
        { type: "people", id: "9", attributes: { name: "D." } },
        { type: "people", id: "7", attributes: { name: "Ada" } },
        { type: "people", id: "7", attributes: { name: "Augusta" } },
      ],
    }) as Flat[];
    assertEquals(data.length, 2);
    assertStrictEquals(data[0], data[1]);
    assertEquals(data[0], { type: "people", id: "9", name: "Dan" });

    const article = flat(dataOf({
      data: {
        type: "articles",
        id: "1",
        relationships: { author: { data: { type: "people", id: "7" } } },
      },
      included: [
        { type: "people", id: "7", attributes: { name: "Ada" } },
        { type: "people", id: "7", attributes: { name: "Augusta" } },
      ],
    }));
    assertEquals(article.author, { type: "people", id: "7", name: "Ada" });
  });

  await t.step(
    "gives an identifier-only object for a resource not included",
    () => {
      const article = flat(dataOf({
        data: {
          type: "articles",
          id: "1",
          attributes: { title: "Hi" },
          relationships: {
            author: { data: { type: "people", id: "2" } },
            editor: { data: { type: "people", id: "2" } },
            draft: { data: { type: "drafts", lid: "d-1" } },
          },
        },
      }));
      assertEquals(article.author, { type: "people", id: "2" });
      assertStrictEquals(article.editor, article.author);
      assertEquals(article.draft, { type: "drafts", lid: "d-1" });
    },
  );

  await t.step("resolves a relationship from primary data", () => {
    const data = dataOf({
      data: [
        {
          type: "people",
          id: "1",
          attributes: { name: "Ada" },
          relationships: { friend: { data: { type: "people", id: "2" } } },
        },
        {
          type: "people",
          id: "2",
          attributes: { name: "Charles" },
          relationships: { friends: { data: [{ type: "people", id: "1" }] } },
        },
      ],
    }) as Flat[];
    const [ada, charles] = [flat(data[0]), flat(data[1])];
    assertStrictEquals(ada.friend, charles);
    assertEquals(charles.friends, [ada]);
    assertStrictEquals((charles.friends as unknown[])[0], ada);
    assertEquals(charles.name, "Charles");
  });

  await t.step("converts names and nested keys to the caller casing", () => {
    const nested = { "page_links": [{ "next_page": "/2" }] };
    const document = {
      links: { self_link: "/blog-posts/1" },
      meta: { total_count: 1 },
      data: {
        type: "blog-posts",
        id: "1",
        attributes: {
          first_line: "Hi",
          reading_stats: { word_count: 2, per_page: [{ page_no: 1 }] },
          nested,
        },
        relationships: {
          main_author: { data: { type: "blog-authors", id: "user_9" } },
        },
        meta: { edit_count: 3 },
      },
      included: [{
        type: "blog-authors",
        id: "user_9",
        attributes: { display_name: "Dan" },
      }],
    };
    const result = denormalise(document, { casing: "camelCase" });
    assert(result.ok);
    assertEquals(result.data, {
      type: "blog-posts",
      id: "1",
      firstLine: "Hi",
      readingStats: { wordCount: 2, perPage: [{ pageNo: 1 }] },
      nested: { pageLinks: [{ nextPage: "/2" }] },
      mainAuthor: { type: "blog-authors", id: "user_9", displayName: "Dan" },
    });
    assertStrictEquals(result.meta, document.meta);
    assertEquals(result.meta, { total_count: 1 });
    assertEquals(result.links, { self_link: "/blog-posts/1" });
    assertEquals(jsonApiOf(flat(result.data))?.meta, { edit_count: 3 });
    // The document itself is left as it was.
    assertEquals(nested, { page_links: [{ next_page: "/2" }] });
  });

  await t.step("keeps names as sent without casing", () => {
    const data = flat(dataOf({
      data: {
        type: "articles",
        id: "1",
        attributes: { first_name: "Ada", "last-name": "Lovelace" },
      },
    }));
    assertEquals(Object.keys(data), [
      "type",
      "id",
      "first_name",
      "last-name",
    ]);
  });

  await t.step("keeps __proto__ as an own data property", () => {
    const document = JSON.parse(`{
      "data": {
        "type": "articles",
        "id": "1",
        "attributes": {
          "__proto__": { "polluted": true },
          "nested": { "__proto__": { "polluted": true } }
        },
        "relationships": {
          "__proto__": { "data": { "type": "people", "id": "1" } }
        }
      }
    }`);
    const check = (casing: "camelCase" | undefined) => {
      const data = flat(dataOf(document, casing));
      assertStrictEquals(Object.getPrototypeOf(data), Object.prototype);
      // assertEquals does not tell Object.prototype from a null prototype:
      // each own __proto__ value is checked to be a plain object as well.
      const related = Object.getOwnPropertyDescriptor(data, "__proto__")?.value;
      assertEquals(related, { type: "people", id: "1" });
      assertStrictEquals(Object.getPrototypeOf(related), Object.prototype);
      assertStrictEquals((data as { polluted?: unknown }).polluted, undefined);
      const nested = flat(data.nested);
      assertStrictEquals(Object.getPrototypeOf(nested), Object.prototype);
      const inner = Object.getOwnPropertyDescriptor(nested, "__proto__")?.value;
      assertEquals(inner, { polluted: true });
      assertStrictEquals(Object.getPrototypeOf(inner), Object.prototype);
      assertStrictEquals(
        (nested as { polluted?: unknown }).polluted,
        undefined,
      );
      const attributeOnly = flat(dataOf(
        JSON.parse(
          `{ "data": { "type": "a", "id": "1", "attributes": { "__proto__": { "polluted": true } } } }`,
        ),
        casing,
      ));
      assertStrictEquals(
        Object.getPrototypeOf(attributeOnly),
        Object.prototype,
      );
      const attribute = Object.getOwnPropertyDescriptor(
        attributeOnly,
        "__proto__",
      )?.value;
      assertEquals(attribute, { polluted: true });
      assertStrictEquals(Object.getPrototypeOf(attribute), Object.prototype);
      assertStrictEquals(
        (attributeOnly as { polluted?: unknown }).polluted,
        undefined,
      );
      assertStrictEquals(({} as { polluted?: unknown }).polluted, undefined);
    };
    check(undefined);
    check("camelCase");
    // Deno's Object.prototype.__proto__ setter never changes a prototype;
    // the standard one (Node, Bun, browsers) does. Check under that one too.
    const original = Object.getOwnPropertyDescriptor(
      Object.prototype,
      "__proto__",
    );
    Object.defineProperty(Object.prototype, "__proto__", {
      configurable: true,
      get(this: object) {
        return Object.getPrototypeOf(this);
      },
      set(this: object, value: unknown) {
        if (typeof value === "object") Object.setPrototypeOf(this, value);
      },
    });
    try {
      const probe: Record<string, unknown> = {};
      probe["__proto__"] = { polluted: true };
      assertEquals(probe.polluted, true, "the standard setter is in place");
      check(undefined);
      check("camelCase");
    } finally {
      if (original === undefined) {
        delete (Object.prototype as { __proto__?: unknown }).__proto__;
      } else Object.defineProperty(Object.prototype, "__proto__", original);
    }
  });

  await t.step(
    "copies only own members when Object.prototype is polluted",
    () => {
      Object.defineProperty(Object.prototype, "injected", {
        configurable: true,
        enumerable: true,
        writable: true,
        value: { data: { type: "people", id: "1" } },
      });
      try {
        const data = flat(dataOf({
          data: {
            type: "articles",
            id: "1",
            attributes: { title: "Hi" },
            relationships: { author: { data: null } },
          },
        }));
        assertEquals(Object.keys(data), ["type", "id", "title", "author"]);
      } finally {
        delete (Object.prototype as { injected?: unknown }).injected;
      }
    },
  );

  await t.step(
    "skips fields named type, id or lid; refuses one that casing names so",
    () => {
      const data = dataOf({
        data: {
          type: "articles",
          id: "1",
          attributes: { type: "x", id: "2", lid: "3", title: "Hi" },
          relationships: { id: { data: { type: "people", id: "9" } } },
        },
      });
      assertEquals(data, { type: "articles", id: "1", title: "Hi" });
      const pascal = dataOf(
        {
          data: {
            type: "articles",
            id: "1",
            attributes: { type: "x", id: "2", lid: "3", title: "Hi" },
          },
        },
        "PascalCase",
      );
      assertEquals(pascal, { type: "articles", id: "1", Title: "Hi" });
      // Kept, its value would be lost: two keys that the casing makes one.
      const fields = [
        [{ attributes: { Type: "x", title: "Hi" } }, "type", "Type"],
        [{ attributes: { title: "Hi", Id: "2" } }, "id", "Id"],
        [{ relationships: { Lid: { data: null } } }, "lid", "Lid"],
      ] as const;
      for (const [members, key, name] of fields) {
        const camel = denormalise(
          { data: { type: "articles", id: "1", ...members } },
          { casing: "camelCase" },
        );
        assertEquals(camel, {
          ok: false,
          clash: true,
          reason:
            `keys "${key}" and "${name}" of /data both become "${key}" in camelCase`,
        });
      }
    },
  );

  await t.step("adds no keys to a resource beyond its fields", async () => {
    const articles = dataOf(await readFixture("compound.wire")) as Flat[];
    const article = flat(articles[0]);
    assertEquals(Reflect.ownKeys(article), [
      "type",
      "id",
      "title",
      "author",
      "comments",
    ]);
    assertEquals(Object.getOwnPropertySymbols(flat(article.author)), []);
    assertStrictEquals(Object.getPrototypeOf(article), Object.prototype);
    assertEquals(
      JSON.stringify(article.author),
      `{"type":"people","id":"9","firstName":"Dan","lastName":"Gebhardt","twitter":"dgeb"}`,
    );
    const withLid = flat(dataOf({
      data: { type: "a", id: "1", lid: "l", attributes: { x: 1 } },
    }));
    assertEquals(Reflect.ownKeys(withLid), ["type", "id", "lid", "x"]);
  });

  const invalid: [string, unknown][] = [
    ["undefined", undefined],
    ["null", null],
    ["a string", "data"],
    ["a number", 1],
    ["an array", [{ type: "a", id: "1" }]],
    ["a Date", new Date(0)],
    ["an object with neither data nor meta", { links: { self: "/" } }],
    ["an errors document", { errors: [{ status: "404" }] }],
    ["errors beside data", { data: null, errors: [] }],
    ["data that is a string", { data: "1" }],
    ["data that is a number", { data: 1 }],
    ["data that is true", { data: true }],
    ["meta that is not an object", { meta: "x" }],
    ["meta that is an array", { data: null, meta: [] }],
    ["links that is not an object", { data: null, links: "x" }],
    ["included that is not an array", { data: null, included: {} }],
    ["a resource without type", { data: { id: "1" } }],
    ["a resource with an empty type", { data: { type: "", id: "1" } }],
    ["a resource with a numeric type", { data: { type: 1, id: "1" } }],
    ["a resource with a numeric id", { data: { type: "a", id: 1 } }],
    ["a resource with a null id", { data: { type: "a", id: null } }],
    ["a resource with a numeric lid", { data: { type: "a", lid: 1 } }],
    ["a data entry that is not an object", {
      data: [{ type: "a", id: "1" }, 2],
    }],
    ["a data entry that is null", { data: [null] }],
    ["a data entry that is an array", { data: [[]] }],
    ["an included entry that is a string", { data: null, included: ["x"] }],
    ["an included resource without type", {
      data: [],
      included: [{ id: "1" }],
    }],
    ["attributes that is an array", {
      data: { type: "a", id: "1", attributes: [] },
    }],
    ["attributes that is a string", {
      data: { type: "a", id: "1", attributes: "x" },
    }],
    ["relationships that is an array", {
      data: { type: "a", id: "1", relationships: [] },
    }],
    ["a relationship that is not an object", {
      data: { type: "a", id: "1", relationships: { b: "x" } },
    }],
    ["a relationship that is null", {
      data: { type: "a", id: "1", relationships: { b: null } },
    }],
    ["linkage that is a string", {
      data: { type: "a", id: "1", relationships: { b: { data: "x" } } },
    }],
    ["linkage without type", {
      data: { type: "a", id: "1", relationships: { b: { data: { id: "2" } } } },
    }],
    ["linkage without id or lid", {
      data: {
        type: "a",
        id: "1",
        relationships: { b: { data: { type: "b" } } },
      },
    }],
    ["linkage with a numeric id", {
      data: {
        type: "a",
        id: "1",
        relationships: { b: { data: { type: "b", id: 2 } } },
      },
    }],
    ["linkage with a string id and a numeric lid", {
      data: {
        type: "a",
        id: "1",
        relationships: { b: { data: { type: "b", id: "2", lid: 3 } } },
      },
    }],
    ["to-many linkage with a bad entry", {
      data: {
        type: "a",
        id: "1",
        relationships: { b: { data: [{ type: "b", id: "2" }, null] } },
      },
    }],
    ["a bad relationship on a repeated resource", {
      data: [
        { type: "a", id: "1" },
        { type: "a", id: "1", relationships: { b: { data: 5 } } },
      ],
    }],
    ["a bad relationship in included", {
      data: null,
      included: [{ type: "a", id: "1", relationships: { b: { data: 5 } } }],
    }],
  ];
  for (const [name, input] of invalid) {
    await t.step(`refuses ${name}`, () => {
      const result = denormalise(input);
      assertEquals(result.ok, false, name);
      assert(!result.ok && typeof result.reason === "string");
      assert(!result.ok && result.reason.length > 0);
      assertEquals(Object.keys(result).length, 2);
    });
  }

  await t.step("refuses a document whose getters throw", () => {
    const hostile = {
      get data(): unknown {
        throw new Error("boom");
      },
    };
    const proxy = new Proxy({}, {
      getPrototypeOf() {
        throw new Error("boom");
      },
    });
    for (
      const input of [hostile, proxy, {
        data: {
          type: "a",
          get id() {
            throw new Error("boom");
          },
        },
      }]
    ) {
      assertEquals(denormalise(input), {
        ok: false,
        reason: "the document could not be read",
      });
    }
  });

  await t.step("says where the document is wrong", () => {
    const cases: [unknown, string][] = [
      [[], "the document is not an object"],
      [{ errors: [] }, "the document has an errors member"],
      [{ links: {} }, "the document has no data, meta or extension member"],
      [{ data: 1 }, "/data is not a resource object, an array or null"],
      [{ data: null, included: 1 }, "/included is not an array"],
      [
        { data: [{ type: "a" }, { type: "" }] },
        "/data/1/type is not a non-empty string",
      ],
      [
        { data: { type: "a", id: 1 } },
        "/data/id is not a string",
      ],
      [
        { data: [], included: [{ type: "a", id: "1", attributes: [] }] },
        "/included/0/attributes is not an object",
      ],
      [
        { data: { type: "a", relationships: { "x/y~": { data: 1 } } } },
        "/data/relationships/x~1y~0/data is not a resource identifier, an array or null",
      ],
      [
        {
          data: { type: "a", relationships: { b: { data: [{ type: "b" }] } } },
        },
        "/data/relationships/b/data/0 is not a resource identifier",
      ],
    ];
    for (const [input, reason] of cases) {
      assertEquals(denormalise(input), { ok: false, reason });
    }
  });

  await t.step(
    "accepts data null, data [] and primary resources without id",
    () => {
      assertEquals(denormalise({ data: null }), { ok: true, data: null });
      assertEquals(denormalise({ data: [] }), { ok: true, data: [] });
      assertEquals(denormalise({ data: { type: "drafts" } }), {
        ok: true,
        data: { type: "drafts" },
      });
      assertEquals(
        denormalise({ data: null, meta: { total: 0 }, links: { self: "/" } }),
        { ok: true, data: null, meta: { total: 0 }, links: { self: "/" } },
      );
      const two = dataOf({
        data: [{ type: "drafts" }, { type: "drafts" }],
      }) as [
        Flat,
        Flat,
      ];
      assertNotStrictEquals(two[0], two[1]);
    },
  );

  await t.step("finishes a 1,000-deep relationship chain", () => {
    const depth = 1_000;
    const included = [];
    for (let i = 1; i <= depth; i++) {
      included.push({
        type: "nodes",
        id: String(i),
        relationships: {
          next: {
            data: i < depth ? { type: "nodes", id: String(i + 1) } : null,
          },
        },
      });
    }
    const document = {
      data: {
        type: "nodes",
        id: "0",
        relationships: { next: { data: { type: "nodes", id: "1" } } },
      },
      included,
    };
    let node: Flat | null = flat(dataOf(document, "camelCase"));
    let count = 0;
    while (node !== null) {
      count++;
      node = node.next as Flat | null;
    }
    assertStrictEquals(count, depth + 1);
  });

  await t.step("finishes deeply nested attribute values", () => {
    let value: Record<string, unknown> = { "leaf_value": true };
    for (let i = 0; i < 10_000; i++) value = { inner_value: value };
    const data = flat(dataOf(
      { data: { type: "a", id: "1", attributes: { deep_value: value } } },
      "camelCase",
    ));
    let node = flat(data.deepValue);
    let depth = 0;
    while (node.innerValue !== undefined) {
      node = flat(node.innerValue);
      depth++;
    }
    assertEquals(depth, 10_000);
    assertEquals(node.leafValue, true);
  });

  await t.step("finishes 100,000 included resources", () => {
    const count = 100_000;
    const identifiers = [];
    const included = [];
    for (let i = 0; i < count; i++) {
      identifiers.push({ type: "items", id: String(i) });
      included.push({ type: "items", id: String(i), attributes: { n: i } });
    }
    const list = dataOf({
      data: {
        type: "lists",
        id: "1",
        relationships: { items: { data: identifiers } },
      },
      included,
    }) as Flat;
    const items = list.items as Flat[];
    assertStrictEquals(items.length, count);
    assertEquals(items[count - 1], {
      type: "items",
      id: String(count - 1),
      n: count - 1,
    });
  });

  await t.step("never changes the document", async () => {
    const wire = await readFixture("compound.wire");
    const copy = structuredClone(wire);
    denormalise(wire, { casing: "camelCase" });
    denormalise(wire);
    assertEquals(wire, copy);
  });
});
