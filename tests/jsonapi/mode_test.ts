import assert from "node:assert/strict";
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
      assert.equal(readMeta?.meta?.["accept"], MEDIA);
      assert.equal(readMeta?.meta?.["contentType"], null);
      const [, writeMeta] = await orThrow(api("POST /echo", {
        body: { type: "things", name: "x" },
      }));
      assert.equal(writeMeta?.meta?.["accept"], MEDIA);
      assert.equal(writeMeta?.meta?.["contentType"], MEDIA);
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
    assert.equal(meta?.meta?.["accept"], expected);
    assert.equal(meta?.meta?.["contentType"], expected);
  });

  await t.step("caller headers win, and headers: false opts out", async () => {
    const [, own] = await orThrow(api("GET /echo", {
      headers: { Accept: "application/json" },
    }));
    assert.equal(own?.meta?.["accept"], "application/json");
    const [, off] = await orThrow(api("POST /echo", {
      body: { type: "things" },
      jsonApi: { headers: false },
    }));
    assert.equal(off?.meta?.["accept"], "*/*");
    assert.notEqual(off?.meta?.["contentType"], MEDIA);
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
    assert.deepEqual(meta?.meta?.["body"], {
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
      const error = await api("PATCH /echo", {
        body: { title: 1n, links: "x" },
      }).catch((e) => e);
      assert.ok(error instanceof GrabValidationError);
      assert.deepEqual(
        error.issues.map((issue) => issue.path).sort(),
        [
          "/links",
          "/title",
          "/type",
          "",
        ].sort(),
      );
      assert.equal(server.requests.length, before);
    },
  );

  await t.step("an array body is refused", async () => {
    await assert.rejects(
      api("POST /echo", { body: [{ type: "a" }] }),
      GrabValidationError,
    );
  });

  await t.step("a pass-through body skips serialisation", async () => {
    const [, meta] = await orThrow(api("POST /echo", {
      body: '{"data":{"type":"raw"}}',
      headers: { "content-type": MEDIA },
    }));
    assert.deepEqual(meta?.meta?.["body"], { data: { type: "raw" } });
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
    assert.equal(
      meta?.meta?.["query"],
      "?include=author,comments.author&sort=-createdAt,title" +
        "&fields[blogPosts]=title,wordCount&filter[author_name]=dan&page[page_size]=10",
    );
  });

  await t.step("denormalises a compound document", async () => {
    const [article, error, meta] = await api("GET /articles/1");
    assert.equal(error, null);
    assert.deepEqual(article, {
      type: "articles",
      id: "1",
      title: "Rails is Omakase",
      wordCount: 3,
      author: { type: "people", id: "9", firstName: "Dan" },
    });
    assert.deepEqual(meta?.meta, { copyright: "Example" });
    assert.deepEqual(meta?.links, { self: "/articles/1" });
    assert.equal(meta?.statusCode, 200);
    const info = jsonApiOf(article as object);
    assert.deepEqual(info?.links, { self: "/articles/1" });
    assert.deepEqual(info?.relationships["author"]?.links, {
      related: "/articles/1/author",
    });
    assert.deepEqual(info?.relationships["comments"]?.links, {
      related: "/articles/1/comments",
    });
  });

  await t.step(
    "a meta-only document gives null data with the meta",
    async () => {
      const [data, error, meta] = await api("GET /meta-only");
      assert.equal(error, null);
      assert.equal(data, null);
      assert.deepEqual(meta?.meta, { total: 0 });
    },
  );

  await t.step(
    "a 2xx body that is not a document is a parse error",
    async () => {
      const [data, error, meta] = await api("GET /plain-json");
      assert.equal(data, null);
      assert.ok(error instanceof GrabTransportError);
      assert.equal(error.kind, "parse");
      assert.deepEqual(meta, { statusCode: 0 });
    },
  );

  await t.step("204 is a success with null data", async () => {
    const [data, error, meta] = await api("DELETE /no-content");
    assert.equal(data, null);
    assert.equal(error, null);
    assert.equal(meta?.statusCode, 204);
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
        assert.equal(data, null);
        assert.ok(error instanceof GrabError);
        assert.equal(error.statusCode, 422);
        assert.equal(
          error.message,
          "First name must contain at least two characters.; Unknown town",
        );
        assert.deepEqual(error.errors, [
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
        assert.deepEqual(meta, {});
      },
    );
  }
});
