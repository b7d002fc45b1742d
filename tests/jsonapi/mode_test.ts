import {
  assert,
  assertEquals,
  assertMatch,
  assertNotStrictEquals,
  assertRejects,
  assertStrictEquals,
} from "@std/assert";
import createGrab, {
  GrabError,
  GrabTransportError,
  GrabValidationError,
  jsonApiOf,
  orThrow,
} from "../../mod.ts";
import { json, startServer } from "../_server.ts";

const MEDIA = "application/vnd.api+json";

function document(body: unknown, status = 200): Response {
  return json(body, { status, headers: { "content-type": MEDIA } });
}

Deno.test("createGrab() in json-api format", async (t) => {
  await using server = startServer({
    "/echo": (_request, seen) =>
      document({
        data: null,
        meta: {
          accept: seen.headers.get("accept"),
          contentType: seen.headers.get("content-type"),
          body: seen.body === "" ? null : JSON.parse(seen.body),
          query: decodeURIComponent(seen.url.search),
        },
      }),
    "/articles/1": () =>
      document({
        data: {
          type: "articles",
          id: "1",
          attributes: { title: "Rails is Omakase", word_count: 3 },
          relationships: {
            author: {
              data: { type: "people", id: "9" },
              links: { related: "/articles/1/author" },
            },
            comments: { links: { related: "/articles/1/comments" } },
          },
          links: { self: "/articles/1" },
        },
        included: [{
          type: "people",
          id: "9",
          attributes: { first_name: "Dan" },
        }],
        meta: { copyright: "Example" },
        links: { self: "/articles/1" },
      }),
    "/meta-only": () => document({ meta: { total: 0 } }),
    "/plain-json": () => json({ id: 1, title: "not a document" }),
    "/no-content": () => new Response(null, { status: 204 }),
    "/invalid": () =>
      document({
        errors: [
          {
            status: "422",
            source: { pointer: "/data/attributes/first_name" },
            title: "Invalid Attribute",
            detail: "First name must contain at least two characters.",
          },
          {
            status: "422",
            source: { pointer: "/data/relationships/home_town" },
            title: "Unknown town",
          },
        ],
      }, 422),
  });
  const api = createGrab(server.url, {
    format: "json-api",
    casing: "camelCase",
    retry: 0,
  });

  await t.step(
    "sends the JSON:API media type on reads and writes",
    async () => {
      const [, readMeta] = await orThrow(api("GET /echo"));
      assertStrictEquals(readMeta?.meta?.["accept"], MEDIA);
      assertStrictEquals(readMeta?.meta?.["contentType"], null);
      const [, writeMeta] = await orThrow(api("POST /echo", {
        body: { type: "things", name: "x" },
      }));
      assertStrictEquals(writeMeta?.meta?.["accept"], MEDIA);
      assertStrictEquals(writeMeta?.meta?.["contentType"], MEDIA);
    },
  );

  await t.step("adds ext and profile parameters", async () => {
    const [, meta] = await orThrow(api("POST /echo", {
      body: { type: "things" },
      jsonApi: {
        ext: ["https://jsonapi.org/ext/atomic"],
        profile: ["https://example.com/p1", "https://example.com/p2"],
      },
    }));
    const expected =
      `${MEDIA}; ext="https://jsonapi.org/ext/atomic"; profile="https://example.com/p1 https://example.com/p2"`;
    assertStrictEquals(meta?.meta?.["accept"], expected);
    assertStrictEquals(meta?.meta?.["contentType"], expected);
  });

  await t.step(
    "sends an extension's document (Atomic Operations) as it is",
    async () => {
      const operations = [{
        op: "add",
        data: { type: "articles", lid: "a1", attributes: { title: "x" } },
      }];
      const [, meta] = await orThrow(api("POST /echo", {
        body: { "atomic:operations": operations },
        jsonApi: { ext: ["https://jsonapi.org/ext/atomic"] },
      }));
      assertEquals(meta?.meta?.["body"], { "atomic:operations": operations });
      assertStrictEquals(
        meta?.meta?.["contentType"],
        `${MEDIA}; ext="https://jsonapi.org/ext/atomic"`,
      );
    },
  );

  await t.step(
    "a typeless body with a namespaced key among its fields is still refused",
    async () => {
      for (
        const body of [{ title: "x", "ns:x": 1 }, { attributes: {}, "ns:x": 1 }]
      ) {
        const error = await assertRejects(
          () => api("POST /echo", { body }),
          GrabValidationError,
        );
        assert(error.issues.some((issue) => issue.path === "/type"));
      }
    },
  );

  await t.step("caller headers win, and headers: false opts out", async () => {
    const [, own] = await orThrow(api("GET /echo", {
      headers: { Accept: "application/json" },
    }));
    assertEquals(own?.meta?.["accept"], "application/json");
    const [, off] = await orThrow(api("POST /echo", {
      body: { type: "things" },
      jsonApi: { headers: false },
    }));
    assertEquals(off?.meta?.["accept"], "*/*");
    assertNotStrictEquals(off?.meta?.["contentType"], MEDIA);
  });

  await t.step("serialises a flat body with wireCasing", async () => {
    const [, meta] = await orThrow(api("POST /echo", {
      body: {
        type: "blog-posts",
        lid: "tmp-1",
        wordCount: 3,
        authorName: { firstName: "A" },
        author: { type: "people", id: "9" },
        tags: [{ type: "tags", id: "1" }, { type: "tags", id: "2" }],
      },
    }));
    assertEquals(meta?.meta?.["body"], {
      data: {
        type: "blog-posts",
        lid: "tmp-1",
        attributes: { word_count: 3, author_name: { first_name: "A" } },
        relationships: {
          author: { data: { type: "people", id: "9" } },
          tags: {
            data: [{ type: "tags", id: "1" }, { type: "tags", id: "2" }],
          },
        },
      },
    });
  });

  await t.step(
    "an invalid body rejects with every issue and sends nothing",
    async () => {
      const before = server.requests.length;
      const error = await assertRejects(
        () => api("PATCH /echo", { body: { title: 1n, links: "x" } }),
        GrabValidationError,
      );
      assertEquals(
        error.issues.map((issue) => issue.path).sort(),
        [
          "/links",
          "/title",
          "/type",
          "",
        ].sort(),
      );
      assertStrictEquals(server.requests.length, before);
    },
  );

  await t.step("an array body is refused", async () => {
    await assertRejects(
      () => api("POST /echo", { body: [{ type: "a" }] }),
      GrabValidationError,
    );
  });

  await t.step("a pass-through body skips serialisation", async () => {
    const [, meta] = await orThrow(api("POST /echo", {
      body: '{"data":{"type":"raw"}}',
      headers: { "content-type": MEDIA },
    }));
    assertEquals(meta?.meta?.["body"], { data: { type: "raw" } });
  });

  await t.step("JSON:API query conventions", async () => {
    const [, meta] = await orThrow(api("GET /echo", {
      query: {
        include: ["author", "comments.author"],
        sort: ["-createdAt", "title"],
        fields: { blogPosts: ["title", "wordCount"] },
        filter: { authorName: "dan" },
        page: { pageSize: 10 },
      },
    }));
    assertStrictEquals(
      meta?.meta?.["query"],
      "?include=author,comments.author&sort=-createdAt,title" +
        "&fields[blogPosts]=title,wordCount&filter[author_name]=dan&page[page_size]=10",
    );
  });

  await t.step("denormalises a compound document", async () => {
    const [article, error, meta] = await api("GET /articles/1");
    assertStrictEquals(error, null);
    assertEquals(article, {
      type: "articles",
      id: "1",
      title: "Rails is Omakase",
      wordCount: 3,
      author: { type: "people", id: "9", firstName: "Dan" },
    });
    assertEquals(meta?.meta, { copyright: "Example" });
    assertEquals(meta?.links, { self: "/articles/1" });
    assertEquals(meta?.statusCode, 200);
    const info = jsonApiOf(article as object);
    assertEquals(info?.links, { self: "/articles/1" });
    assertEquals(info?.relationships["author"]?.links, {
      related: "/articles/1/author",
    });
    assertEquals(info?.relationships["comments"]?.links, {
      related: "/articles/1/comments",
    });
  });

  await t.step(
    "a meta-only document gives null data with the meta",
    async () => {
      const [data, error, meta] = await api("GET /meta-only");
      assertStrictEquals(error, null);
      assertStrictEquals(data, null);
      assertEquals(meta?.meta, { total: 0 });
    },
  );

  await t.step(
    "a 2xx body that is not a document is a parse error",
    async () => {
      const [data, error, meta] = await api("GET /plain-json");
      assertStrictEquals(data, null);
      assert(error instanceof GrabTransportError);
      assertEquals(error.kind, "parse");
      assertEquals(meta, { statusCode: 0 });
    },
  );

  await t.step("204 is a success with null data", async () => {
    const [data, error, meta] = await api("DELETE /no-content");
    assertStrictEquals(data, null);
    assertStrictEquals(error, null);
    assertEquals(meta?.statusCode, 204);
  });

  for (const format of ["json-api", "json"] as const) {
    await t.step(
      `an error document fills GrabError.errors (${format})`,
      async () => {
        const grab = createGrab(server.url, {
          format,
          casing: "camelCase",
          retry: 0,
        });
        const [data, error, meta] = await grab("POST /invalid", {
          body: format === "json" ? { a: 1 } : { type: "people" },
        });
        assertStrictEquals(data, null);
        assert(error instanceof GrabError);
        assertEquals(error.statusCode, 422);
        assertEquals(
          error.message,
          "First name must contain at least two characters.; Unknown town",
        );
        assertEquals(error.errors, [
          {
            status: "422",
            source: { pointer: "/data/attributes/first_name" },
            title: "Invalid Attribute",
            detail: "First name must contain at least two characters.",
            field: "firstName",
          },
          {
            status: "422",
            source: { pointer: "/data/relationships/home_town" },
            title: "Unknown town",
            field: "homeTown",
          },
        ]);
        assertEquals(meta, {});
      },
    );
  }
});

Deno.test("a flat write keeps @-members and extension members on the resource", async () => {
  await using server = startServer(() => document({ data: null }));
  const api = createGrab(server.url, {
    format: "json-api",
    casing: "camelCase",
    wireCasing: "snake_case",
  });
  const [, error] = await api("PATCH /articles/1", {
    body: {
      type: "articles",
      id: "1",
      "@context": "https://schema.org",
      "version:id": "v7",
      readTime: 4,
    },
  });
  assertEquals(error, null);
  // JSON:API 1.1: neither is an attribute; the server reads an extension's
  // member where the extension puts it, on the resource.
  assertEquals(JSON.parse(server.requests[0]!.body), {
    data: {
      type: "articles",
      id: "1",
      "@context": "https://schema.org",
      "version:id": "v7",
      attributes: { read_time: 4 },
    },
  });
});

// JSON:API 1.1: an @-member may stand anywhere, and a field's name has no
// colon, so `version:id` is an extension's member. In an attributes or
// relationships object neither is a field to convert or check.
for (
  const [kind, attribute, relationship] of [
    ["@-members", "@context", "@context"],
    ["an extension's members", "version:at", "version:id"],
  ] as const
) {
  Deno.test(`a wire write keeps ${kind} in attributes and relationships as written`, async () => {
    await using server = startServer(() => document({ data: null }));
    const api = createGrab(server.url, {
      format: "json-api",
      retry: 0,
      casing: "camelCase",
      wireCasing: "snake_case",
    });
    // Keys inside its value stay as written too.
    const value = { "@vocab": "https://schema.org/", headLine: "name" };
    const [, error] = await api("PATCH /articles/1", {
      body: {
        type: "articles",
        id: "1",
        attributes: { [attribute]: value, readTime: 4 },
        relationships: { [relationship]: "7", leadAuthor: { data: null } },
      },
    });
    assertEquals(error, null);
    assertEquals(JSON.parse(server.requests[0]!.body), {
      data: {
        type: "articles",
        id: "1",
        attributes: { [attribute]: value, read_time: 4 },
        relationships: { [relationship]: "7", lead_author: { data: null } },
      },
    });
  });
}

// unjs/ofetch#37 and neet/masto.js#758: a client's JSON media type took the
// place of a form's own. In JSON:API mode a form and search parameters keep
// the type they carry, as the README says.
Deno.test("in JSON:API mode a form or search parameters keep their own Content-Type", async () => {
  await using server = startServer((request) =>
    new Response(
      JSON.stringify({ meta: { type: request.headers.get("content-type") } }),
      { headers: { "content-type": "application/vnd.api+json" } },
    )
  );
  const api = createGrab(server.url, { format: "json-api", retry: 0 });
  const form = new FormData();
  form.append("file", new Blob(["x"], { type: "text/plain" }), "x.txt");
  const bodies: [BodyInit, RegExp][] = [
    [form, /^multipart\/form-data; ?boundary=/],
    [new URLSearchParams({ a: "1" }), /^application\/x-www-form-urlencoded/],
    [new Blob(["x"], { type: "image/png" }), /^image\/png$/],
  ];
  for (const [body, type] of bodies) {
    const [, error, meta] = await api("POST /uploads", { body });
    assertEquals(error, null);
    const sent = (meta as { meta?: { type?: string } }).meta?.type ?? "";
    assertMatch(sent, type);
  }
});
