/**
 * JSON:API mode against a real server on what JSON:API 1.1 allows and
 * forbids: a relationship endpoint's linkage with the resources included, a
 * document of an extension without `data`, a resource whose
 * attribute and relationship share a name, and @-members and extension
 * members in resource identifiers, relationship objects and resources in
 * wire shape.
 *
 * @module
 */

import { assertEquals, assertRejects, assertStringIncludes } from "@std/assert";
import createGrab, {
  GrabValidationError,
  jsonApiOf,
  orThrow,
} from "../../mod.ts";
import { json, startServer } from "../_server.ts";

const ATOMIC = "https://jsonapi.org/ext/atomic";
const MEDIA = `application/vnd.api+json; ext="${ATOMIC}"`;

/** A server that answers with the document it was sent, as its `meta.got`. */
function echoServer() {
  return startServer((_request, seen) =>
    json({ meta: { got: JSON.parse(seen.body) } }, {
      headers: { "content-type": MEDIA },
    })
  );
}

Deno.test("a document of an extension without data is read as sent", async (t) => {
  const results = {
    "atomic:results": [
      { data: { type: "articles", id: "1", attributes: { word_count: 2 } } },
      {},
    ],
  };
  await using server = startServer({
    "/operations": () => json(results, { headers: { "content-type": MEDIA } }),
    "/with-meta": () =>
      json({ ...results, meta: { took: 3 }, links: { self: "/with-meta" } }, {
        headers: { "content-type": MEDIA },
      }),
  });
  const api = createGrab(server.url, {
    format: "json-api",
    casing: "camelCase",
    jsonApi: { ext: [ATOMIC] },
    retry: 0,
  });

  await t.step("Atomic Operations' results: the data, as sent", async () => {
    const [data, error] = await api("POST /operations", {
      body: {
        "atomic:operations": [
          {
            op: "add",
            data: { type: "articles", attributes: { title: "Hi" } },
          },
          { op: "remove", ref: { type: "articles", id: "2" } },
        ],
      },
    });
    assertEquals(error, null);
    assertEquals(data, results);
    const sent = server.requests.at(-1)!;
    assertEquals(sent.headers.get("content-type"), MEDIA);
    assertEquals(sent.headers.get("accept"), MEDIA);
  });

  await t.step("with the document's meta and links", async () => {
    const [data, meta] = await orThrow(api("GET /with-meta"));
    assertEquals((data as typeof results)["atomic:results"].length, 2);
    assertEquals(meta?.meta, { took: 3 });
    assertEquals(meta?.links, { self: "/with-meta" });
  });
});

Deno.test("a resource's attribute and relationship never share a name", async (t) => {
  await using server = startServer(() =>
    json({ meta: {} }, { headers: { "content-type": MEDIA } })
  );
  const api = createGrab(server.url, { format: "json-api", retry: 0 });
  const both = {
    type: "articles",
    attributes: { author: "Ada", title: "Hi" },
    relationships: { author: { type: "people", id: "9" } },
  };

  for (const casing of ["none", "camelCase"] as const) {
    await t.step(`wire shape, casing ${casing}: refused`, async () => {
      const error = await assertRejects(
        () => api("POST /articles", { body: both, casing }),
        GrabValidationError,
      );
      assertEquals(error.issues, [{
        path: "/relationships/author",
        message:
          `Cannot send field "author" as both an attribute and a relationship: a resource's fields share one namespace`,
      }]);
    });
  }

  await t.step("whole document: refused at its path", async () => {
    const error = await assertRejects(
      () => api("POST /articles", { body: { data: both } }),
      GrabValidationError,
    );
    assertEquals(error.issues.map((issue) => issue.path), [
      "/data/relationships/author",
    ]);
  });

  await t.step(
    "an attribute left undefined is not sent: no clash",
    async () => {
      const body = { ...both, attributes: { author: undefined, title: "Hi" } };
      const [, error] = await api("POST /articles", { body });
      assertEquals(error, null);
    },
  );
  assertEquals(server.requests.length, 1);
});

Deno.test("a resource identifier may hold @-members and extension members", async () => {
  await using server = echoServer();
  const api = createGrab(server.url, { format: "json-api", retry: 0 });
  const tag = { type: "tags", id: "2", "@id": "urn:tag:2", "ns:rank": 1 };
  const [, meta] = await orThrow(api("PATCH /articles/1/relationships/tags", {
    body: { data: [tag] },
  }));
  assertEquals(meta?.meta, { got: { data: [tag] } });
  const [, alsoError] = await api("PATCH /articles/1", {
    body: { type: "articles", id: "1", relationships: { tags: [tag] } },
  });
  assertEquals(alsoError, null);
  assertEquals(server.requests.length, 2);
});

Deno.test("a relationship sent in a resource needs data, beside an extension's member", async () => {
  // JSON:API 1.1: a relationship object may hold only an extension's member,
  // but one given when creating or updating a resource must have "data",
  // and no extension may relax that.
  await using server = echoServer();
  const api = createGrab(server.url, {
    format: "json-api",
    jsonApi: { ext: ["https://example.com/ext/version"] },
    retry: 0,
  });
  const linkage = { type: "people", id: "9" };
  const body = {
    type: "articles",
    id: "1",
    relationships: { author: { data: linkage, "version:id": "42" } },
  };
  const [, meta] = await orThrow(api("PATCH /articles/1", { body }));
  assertEquals(meta?.meta, { got: { data: body } });
  const alone = { ...body, relationships: { author: { "version:id": "42" } } };
  const error = await assertRejects(
    () => api("PATCH /articles/1", { body: alone }),
    GrabValidationError,
  );
  assertStringIncludes(error.message, 'relationship "author": it needs "data"');
  assertEquals(server.requests.length, 1);
});

Deno.test("a relationship endpoint's linkage takes the included resources' fields", async () => {
  // JSON:API 1.1, "Inclusion of Related Resources": GET
  // /articles/1/relationships/comments?include=comments.author answers the
  // linkage as primary data and the comments and their authors as included.
  await using server = startServer(() =>
    json({
      links: { self: "/articles/1/relationships/comments" },
      data: [
        { type: "comments", id: "5", meta: { order: 1 } },
        { type: "comments", id: "12" },
        { type: "comments", id: "20" },
      ],
      included: [
        {
          type: "comments",
          id: "5",
          attributes: { body: "First!" },
          relationships: {
            author: {
              data: { type: "people", id: "2" },
              links: { related: "/comments/5/author" },
            },
          },
          links: { self: "/comments/5" },
        },
        {
          type: "comments",
          id: "12",
          attributes: { body: "I like XML better" },
          relationships: { author: { data: { type: "people", id: "9" } } },
        },
        // A second resource object of one type and id is not allowed: the
        // first one's fields stay.
        { type: "comments", id: "12", attributes: { body: "repeat" } },
        { type: "people", id: "9", attributes: { first_name: "Dan" } },
      ],
    }, { headers: { "content-type": MEDIA } })
  );
  const api = createGrab(server.url, {
    format: "json-api",
    casing: "camelCase",
    retry: 0,
  });
  const [comments, meta] = await orThrow(
    api("GET /articles/1/relationships/comments", {
      query: { include: ["comments.author"] },
    }),
  );
  assertEquals(comments, [
    {
      type: "comments",
      id: "5",
      body: "First!",
      author: { type: "people", id: "2" },
    },
    {
      type: "comments",
      id: "12",
      body: "I like XML better",
      author: { type: "people", id: "9", firstName: "Dan" },
    },
    { type: "comments", id: "20" },
  ]);
  assertEquals(meta.links, { self: "/articles/1/relationships/comments" });
  const first = (comments as object[])[0]!;
  assertEquals(jsonApiOf(first), {
    links: { self: "/comments/5" },
    relationships: {
      author: {
        links: { related: "/comments/5/author" },
        data: { type: "people", id: "2" },
      },
    },
  });
  assertEquals(jsonApiOf((comments as object[])[2]!), { relationships: {} });
});

Deno.test("a resource in wire shape may hold @-members and extension members", async () => {
  // JSON:API 1.1: a resource object may hold an extension's members
  // (`version:id`) and @-members beside its attributes and relationships.
  await using server = echoServer();
  const api = createGrab(server.url, {
    format: "json-api",
    casing: "camelCase",
    jsonApi: { ext: ["https://example.com/ext/version"] },
    retry: 0,
  });
  const [, meta] = await orThrow(api("PATCH /articles/1", {
    body: {
      type: "articles",
      id: "1",
      "version:id": "42",
      "@context": "https://schema.org",
      attributes: { wordCount: 2 },
      relationships: { author: null },
    },
  }));
  assertEquals(meta?.meta, {
    got: {
      data: {
        type: "articles",
        id: "1",
        "version:id": "42",
        "@context": "https://schema.org",
        attributes: { word_count: 2 },
        relationships: { author: { data: null } },
      },
    },
  });
  const error = await assertRejects(
    () =>
      api("PATCH /articles/1", {
        body: { type: "articles", id: "1", "v:a+b": 1, attributes: {} },
      }),
    GrabValidationError,
  );
  assertEquals(error.issues.map((issue) => issue.path), ["/v:a+b"]);
  assertEquals(server.requests.length, 1);
});

Deno.test("a request document's included resources are checked and cased as its data", async () => {
  await using server = echoServer();
  const api = createGrab(server.url, {
    format: "json-api",
    casing: "camelCase",
    retry: 0,
  });
  const [, meta] = await orThrow(api("POST /articles", {
    body: {
      data: {
        type: "articles",
        attributes: { wordCount: 2 },
        relationships: { mainAuthor: { data: { type: "people", lid: "a" } } },
      },
      included: [{
        type: "people",
        lid: "a",
        attributes: { firstName: "Ada", homeAddress: { zipCode: "1" } },
        relationships: { bestFriend: { type: "people", id: 9 } },
      }],
    },
  }));
  assertEquals(meta?.meta, {
    got: {
      data: {
        type: "articles",
        attributes: { word_count: 2 },
        relationships: { main_author: { data: { type: "people", lid: "a" } } },
      },
      included: [{
        type: "people",
        lid: "a",
        attributes: { first_name: "Ada", home_address: { zip_code: "1" } },
        relationships: { best_friend: { data: { type: "people", id: "9" } } },
      }],
    },
  });
  const error = await assertRejects(
    () =>
      api("POST /articles", {
        body: {
          data: null,
          included: [{ type: "people", id: "1", firstName: "x" }],
        },
      }),
    GrabValidationError,
  );
  assertEquals(error.issues.map((issue) => issue.path), [
    "/included/0/firstName",
  ]);
  assertEquals(server.requests.length, 1);
});

Deno.test("a linkage member that is undefined is left out, as JSON leaves it", async () => {
  await using server = echoServer();
  const api = createGrab(server.url, { format: "json-api", retry: 0 });
  const tag = { type: "tags", id: "2", attributes: undefined, name: undefined };
  const [, meta] = await orThrow(api("PATCH /articles/1/relationships/tags", {
    body: { data: [tag] },
  }));
  assertEquals(meta?.meta, { got: { data: [{ type: "tags", id: "2" }] } });
  const [, wire] = await orThrow(api("PATCH /articles/1", {
    body: { type: "articles", id: "1", relationships: { tags: [tag] } },
  }));
  assertEquals(wire?.meta, {
    got: {
      data: {
        type: "articles",
        id: "1",
        relationships: { tags: { data: [{ type: "tags", id: "2" }] } },
      },
    },
  });
  assertEquals(server.requests.length, 2);
});
