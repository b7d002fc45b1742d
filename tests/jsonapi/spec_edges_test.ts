/**
 * JSON:API mode against a real server at the edges of JSON:API 1.1, both
 * ways: writes to relationship endpoints and resources with `lid`, `meta`
 * and client ids; reads of repeated, unreachable and meta-only resources,
 * link objects and `null` links; media type parameters; and error
 * documents, valid and not. Each expectation is the specification's or the
 * contract's.
 *
 * @module
 */

import { assert, assertEquals, assertStrictEquals } from "@std/assert";
import createGrab, {
  type Endpoint,
  GrabError,
  GrabTransportError,
  GrabValidationError,
  jsonApiOf,
} from "../../mod.ts";
import { json, startServer } from "../_server.ts";

const MEDIA = "application/vnd.api+json";

/** A server that answers 204 and keeps what it was sent. */
function sink() {
  return startServer(() => new Response(null, { status: 204 }));
}

/** A server that answers every request with `status`, `body` and `type`. */
function answering(
  status: number,
  body: unknown,
  type = MEDIA,
) {
  return startServer(() =>
    body === null
      ? new Response(null, { status })
      : json(body, { status, headers: { "content-type": type } })
  );
}

Deno.test("writes to relationship endpoints send the document as written", async (t) => {
  await using server = sink();
  const api = createGrab(server.url, { format: "json-api", retry: 0 });
  const sent = () => JSON.parse(server.requests.at(-1)!.body);
  const cases: [Endpoint, Record<string, unknown>][] = [
    ["PATCH /articles/1/relationships/author", { data: null }],
    ["PATCH /articles/1/relationships/author", {
      data: { type: "people", id: "9", meta: { role: "lead" } },
    }],
    ["PATCH /articles/1/relationships/tags", { data: [] }],
    ["POST /articles/1/relationships/tags", {
      data: [{ type: "tags", id: "2" }, { type: "tags", lid: "t1" }],
    }],
    ["DELETE /articles/1/relationships/tags", {
      data: [{ type: "tags", id: "3", meta: { why: "old" } }],
      meta: { by: "editor" },
    }],
  ];
  for (const [endpoint, body] of cases) {
    await t.step(`${endpoint} ${JSON.stringify(body)}`, async () => {
      const [data, error, meta] = await api(endpoint, { body });
      assertStrictEquals(error, null);
      assertStrictEquals(data, null);
      assertEquals(meta.statusCode, 204);
      assertEquals(sent(), body);
      const headers = server.requests.at(-1)!.headers;
      assertEquals(headers.get("content-type"), MEDIA);
    });
  }

  await t.step("a number id in linkage is sent as a string", async () => {
    await api("PATCH /articles/1/relationships/tags", {
      body: { data: [{ type: "tags", id: 2 }] },
    });
    assertEquals(sent(), { data: [{ type: "tags", id: "2" }] });
  });
});

Deno.test("resource writes with lid, meta and client ids", async (t) => {
  await using server = sink();
  const api = createGrab(server.url, { format: "json-api", retry: 0 });
  const sent = () => JSON.parse(server.requests.at(-1)!.body);

  await t.step("a client-generated id and a lid are kept", async () => {
    await api("POST /articles", {
      body: { type: "articles", id: "uuid-1", title: "Hi" },
    });
    assertEquals(sent(), {
      data: { type: "articles", id: "uuid-1", attributes: { title: "Hi" } },
    });
    await api("POST /articles", {
      body: { type: "articles", lid: "a1", title: "Hi" },
    });
    assertEquals(sent(), {
      data: { type: "articles", lid: "a1", attributes: { title: "Hi" } },
    });
  });

  await t.step("a resource with only relationships", async () => {
    const body = {
      type: "articles",
      relationships: { author: { data: { type: "people", id: "9" } } },
    };
    await api("POST /articles", { body });
    assertEquals(sent(), { data: body });
  });

  await t.step("resource and document meta, jsonapi, as sent", async () => {
    const body = {
      data: {
        type: "articles",
        lid: "a1",
        attributes: { title: "Hi" },
        meta: { draft: true },
      },
      meta: { request: "r-1" },
      jsonapi: { version: "1.1" },
    };
    await api("POST /articles", { body });
    assertEquals(sent(), body);
  });

  await t.step("a relationship of links or meta alone is refused", async () => {
    for (const only of [{ links: { self: "/x" } }, { meta: { a: 1 } }]) {
      const before = server.requests.length;
      const [, error] = await api("POST /articles", {
        body: { type: "articles", relationships: { author: only } },
      }).catch((thrown) => [null, thrown]);
      assert(error instanceof GrabValidationError);
      assertEquals(error.issues.map((issue) => issue.path), [
        "/relationships/author",
      ]);
      assertEquals(server.requests.length, before);
    }
  });
});

Deno.test("reads at the edges of a success document", async (t) => {
  await t.step("a lid echoed by the server stays on the resource", async () => {
    await using server = answering(201, {
      data: { type: "articles", id: "5", lid: "a1", attributes: { t: 1 } },
    });
    const api = createGrab(server.url, { format: "json-api", retry: 0 });
    const [data] = await api("POST /articles", {
      body: { type: "articles", lid: "a1", t: 1 },
    });
    assertEquals(data, { type: "articles", id: "5", lid: "a1", t: 1 });
  });

  await t.step("primary data repeated in included: data's fields", async () => {
    await using server = answering(200, {
      data: { type: "a", id: "1", attributes: { t: 1 } },
      included: [{ type: "a", id: "1", attributes: { t: 2, u: 3 } }],
    });
    const api = createGrab(server.url, { format: "json-api", retry: 0 });
    const [data] = await api("GET /a/1");
    assertEquals(data, { type: "a", id: "1", t: 1 });
  });

  await t.step("relationship objects: links, meta, data", async () => {
    await using server = answering(200, {
      data: {
        type: "a",
        id: "1",
        relationships: {
          linked: { links: { related: "/a/1/linked" } },
          counted: { meta: { count: 3 } },
          all: {
            data: { type: "b", id: "2", meta: { role: "x" } },
            links: { self: "/a/1/relationships/all" },
            meta: { since: 1 },
          },
        },
      },
    });
    const api = createGrab(server.url, { format: "json-api", retry: 0 });
    const [data] = await api("GET /a/1");
    const article = data as Record<string, unknown>;
    assertEquals(article, { type: "a", id: "1", all: { type: "b", id: "2" } });
    assertEquals(jsonApiOf(article)?.relationships, {
      linked: { links: { related: "/a/1/linked" } },
      counted: { meta: { count: 3 } },
      all: {
        links: { self: "/a/1/relationships/all" },
        meta: { since: 1 },
        data: { type: "b", id: "2", meta: { role: "x" } },
      },
    });
    assertEquals(jsonApiOf(article.all as object)?.meta, { role: "x" });
  });

  await t.step("null links and link objects, as sent", async () => {
    const links = {
      self: "/a?page[number]=1",
      prev: null,
      next: {
        href: "/a?page[number]=2",
        rel: "next",
        describedby: "/schema",
        title: "Next",
        type: MEDIA,
        hreflang: ["en", "fr"],
      },
      first: { href: "/a?page[number]=1", hreflang: "en" },
    };
    await using server = answering(200, { data: [], links });
    const api = createGrab(server.url, { format: "json-api", retry: 0 });
    const [data, , meta] = await api("GET /a");
    assertEquals(data, []);
    assertEquals("links" in meta ? meta.links : undefined, links);
  });

  await t.step("the jsonapi member, as sent, on the success meta", async () => {
    const jsonapi = {
      version: "1.1",
      ext: ["https://jsonapi.org/ext/atomic"],
      profile: ["https://example.com/profiles/cursor"],
      meta: { build: "2026.11" },
    };
    const documents = [
      { data: { type: "a", id: "1" }, jsonapi },
      { meta: { total: 0 }, jsonapi },
      // An extension's document is the data as sent; its members too.
      { "atomic:results": [], jsonapi },
    ];
    for (const document of documents) {
      await using server = answering(200, document);
      const api = createGrab(server.url, { format: "json-api", retry: 0 });
      const [, error, meta] = await api("GET /a/1");
      assertStrictEquals(error, null);
      assertEquals("jsonapi" in meta ? meta.jsonapi : undefined, jsonapi);
    }
    // Informational: one that is not an object is left out, not refused.
    await using server = answering(200, { data: null, jsonapi: "1.1" });
    const api = createGrab(server.url, { format: "json-api", retry: 0 });
    const [data, error, meta] = await api("GET /a/1");
    assertStrictEquals(error, null);
    assertStrictEquals(data, null);
    assert(!("jsonapi" in meta));
  });

  await t.step("204 and a meta-only 200 to a write", async () => {
    for (const [status, body] of [[204, null], [200, { meta: { ok: 1 } }]]) {
      await using server = answering(status as number, body);
      const api = createGrab(server.url, { format: "json-api", retry: 0 });
      const [data, error, meta] = await api("PATCH /a/1", {
        body: { type: "a", id: "1", t: 2 },
      });
      assertStrictEquals(error, null);
      assertStrictEquals(data, null);
      assertEquals(meta.statusCode, status);
      assertEquals(
        "meta" in meta ? meta.meta : undefined,
        body === null ? undefined : { ok: 1 },
      );
    }
  });

  await t.step("errors with a 2xx status is kind parse", async () => {
    for (
      const body of [{ errors: [{ detail: "x" }] }, {
        data: null,
        errors: [{ detail: "x" }],
      }]
    ) {
      await using server = answering(200, body);
      const api = createGrab(server.url, { format: "json-api", retry: 0 });
      const [data, error] = await api("GET /a");
      assertStrictEquals(data, null);
      assert(error instanceof GrabTransportError);
      assertEquals(error.kind, "parse");
    }
  });
});

Deno.test("response media type parameters are ignored", async () => {
  for (
    const type of [
      `${MEDIA}; ext="https://jsonapi.org/ext/atomic"`,
      `${MEDIA}; profile="https://example.com/p"`,
      `${MEDIA}; foo=bar`,
      "Application/VND.API+JSON",
      `${MEDIA}; charset=utf-8`,
    ]
  ) {
    await using server = answering(200, { data: { type: "a", id: "1" } }, type);
    const api = createGrab(server.url, { format: "json-api", retry: 0 });
    const [data, error] = await api("GET /a/1");
    assertStrictEquals(error, null);
    assertEquals(data, { type: "a", id: "1" });
  }
});

Deno.test("error documents are HTTP errors with the status kept", async (t) => {
  const api = (url: string) =>
    createGrab(url, { format: "json-api", retry: 0 });

  await t.step("415 and 406 with error documents", async () => {
    for (const status of [415, 406]) {
      await using server = answering(status, {
        errors: [{ status: String(status), title: "Media", detail: "ext" }],
      }, "Application/VND.API+JSON; charset=utf-8");
      const [, error] = await api(server.url)("GET /a");
      assert(error instanceof GrabError);
      assertEquals(error.statusCode, status);
      assertEquals(error.message, "ext");
      assertEquals(error.errors?.length, 1);
    }
  });

  await t.step("source, links and a status unlike the response's", async () => {
    const wire = {
      status: "400",
      detail: "d",
      source: { pointer: "/data/attributes/t", parameter: "p", header: "h" },
      links: { about: "/about", type: { href: "/type", title: "T" } },
    };
    await using server = answering(422, { errors: [wire] });
    const [, error] = await api(server.url)("POST /a", {
      body: { type: "a", t: 1 },
    });
    assert(error instanceof GrabError);
    assertEquals(error.statusCode, 422);
    assertEquals(error.errors, [{ ...wire, field: "t" }]);
  });

  await t.step("1,000 errors: all kept, the message bounded", async () => {
    const errors = Array.from({ length: 1000 }, (_, i) => ({
      status: "422",
      detail: `error ${i}`,
    }));
    await using server = answering(422, { errors });
    const [, error] = await api(server.url)("GET /a");
    assert(error instanceof GrabError);
    assertEquals(error.errors?.length, 1000);
    assert(error.message.length < 3000);
    assert(error.message.startsWith("error 0; error 1; "));
  });

  await t.step("no error document: status kept, body as sent", async () => {
    for (
      const body of [
        { errors: [] },
        { errors: { detail: "x" } },
        { errors: ["a", "b"] },
        { errors: [{ detail: "a" }, null] },
      ]
    ) {
      await using server = answering(400, body);
      const [, error] = await api(server.url)("GET /a");
      assert(error instanceof GrabError);
      assertEquals(error.statusCode, 400);
      assertStrictEquals(error.errors, undefined);
      assertEquals(error.body, body);
      assert(error.message.startsWith("400 Bad Request: GET "));
    }
  });
});
