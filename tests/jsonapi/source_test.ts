import { assert, assertEquals, assertStrictEquals } from "@std/assert";
import { denormalise } from "../../src/jsonapi/denormalise.ts";
import { jsonApiOf } from "../../src/jsonapi/source.ts";
import { dataOf, type Flat, flat, readFixture } from "./_documents.ts";
import * as grab from "../../mod.ts";
import { anotherCopy } from "../_another_copy.ts";
import { json, startServer } from "../_server.ts";
import { codecFor } from "../../src/format.ts";

// The JSON:API modules take the core's helpers as the codec loads.
await codecFor("json-api");

Deno.test("jsonApiOf()", async (t) => {
  await t.step("gives a resource's links and meta as sent", async () => {
    const wire = await readFixture("single_resource.wire") as {
      data: { links?: unknown; meta: unknown };
    };
    const article = flat(dataOf(wire));
    const info = jsonApiOf(article);
    assert(info !== undefined);
    assertStrictEquals(info.meta, wire.data.meta);
    assertEquals(info.meta, { revision: 3 });
    assertEquals("links" in info, false);
    assertEquals(Object.keys(info.relationships), ["author"]);
    assertEquals(info.relationships.author, {
      data: { type: "people", id: "42" },
    });
  });

  await t.step(
    "gives each relationship's links and meta, data-less ones included",
    async () => {
      const article = flat(
        dataOf(await readFixture("relationships_without_data.wire")),
      );
      assertEquals(jsonApiOf(article), {
        links: { self: "http://example.com/articles/1" },
        relationships: {
          author: {
            links: {
              self: "http://example.com/articles/1/relationships/author",
              related: "http://example.com/articles/1/author",
            },
          },
          comments: {
            links: { related: "http://example.com/articles/1/comments" },
            meta: { count: 12 },
          },
        },
      });
      assertEquals("comments" in article, false);
    },
  );

  await t.step("gives included resources their own links", async () => {
    const articles = dataOf(await readFixture("compound.wire")) as Flat[];
    const article = flat(articles[0]);
    assertEquals(jsonApiOf(flat(article.author))?.links, {
      self: "http://example.com/people/9",
    });
    const comments = article.comments as Flat[];
    assertEquals(jsonApiOf(flat(comments[0]))?.links, {
      self: "http://example.com/comments/5",
    });
    assertEquals(
      jsonApiOf(article)?.relationships.comments?.links?.related,
      "http://example.com/articles/1/comments",
    );
  });

  await t.step("names relationships in the caller casing", () => {
    const document = {
      data: {
        type: "blog-posts",
        id: "1",
        relationships: {
          main_author: {
            links: { related_link: "/blog-posts/1/main_author" },
            meta: { is_primary: true },
          },
        },
      },
    };
    const info = jsonApiOf(flat(dataOf(document, "camelCase")));
    assertEquals(info?.relationships, {
      mainAuthor: {
        links: { related_link: "/blog-posts/1/main_author" },
        meta: { is_primary: true },
      },
    });
  });

  await t.step(
    "gives the first occurrence's links for a repeated resource",
    () => {
      const data = dataOf({
        data: [{ type: "a", id: "1", links: { self: "/first" } }],
        included: [{ type: "a", id: "1", links: { self: "/second" } }],
      }) as Flat[];
      assertEquals(jsonApiOf(flat(data[0]))?.links, { self: "/first" });
    },
  );

  await t.step("gives an identifier's meta for a resource not included", () => {
    const article = flat(dataOf({
      data: {
        type: "articles",
        id: "1",
        relationships: {
          author: { data: { type: "people", id: "2", meta: { role: "lead" } } },
          editor: { data: { type: "people", id: "3" } },
        },
      },
    }));
    assertEquals(article.author, { type: "people", id: "2" });
    assertEquals(jsonApiOf(flat(article.author)), {
      meta: { role: "lead" },
      relationships: {},
    });
    assertStrictEquals(jsonApiOf(flat(article.editor)), undefined);
  });

  await t.step(
    "gives each identifier's meta on its relationship's data, included or not",
    () => {
      // Drupal's image fields: the alt text is on the link, the file
      // included once for every image that shows it.
      const image = (alt: string) => ({
        data: { type: "file--file", id: "f1", meta: { alt, width: 640 } },
      });
      const identifiers = [
        { type: "user--user", id: "u1", meta: { drupal_role: "owner" } },
        { type: "user--user", id: "u1", meta: { drupal_role: "editor" } },
        { type: "user--user", id: "u2" },
      ];
      const [teaser, page] = dataOf({
        data: [
          {
            type: "node--article",
            id: "1",
            relationships: {
              field_image: image("A lighthouse"),
              field_people: { data: identifiers },
            },
          },
          {
            type: "node--page",
            id: "2",
            relationships: {
              field_image: image("The same lighthouse, at dusk"),
            },
          },
        ],
        included: [{
          type: "file--file",
          id: "f1",
          attributes: { uri: "public://lighthouse.jpg" },
        }],
      }, "camelCase") as Flat[];
      // One file object, with its attributes, for both links to it.
      assertStrictEquals(teaser!.fieldImage, page!.fieldImage);
      assertEquals(flat(teaser!.fieldImage).uri, "public://lighthouse.jpg");
      const teaserInfo = jsonApiOf(teaser!)?.relationships;
      assertEquals(teaserInfo?.fieldImage?.data, {
        type: "file--file",
        id: "f1",
        meta: { alt: "A lighthouse", width: 640 },
      });
      assertEquals(
        jsonApiOf(page!)?.relationships.fieldImage?.data,
        image("The same lighthouse, at dusk").data,
      );
      // A list keeps each identifier, repeated ones too, with its own meta,
      // not re-cased.
      assertEquals(teaserInfo?.fieldPeople?.data, identifiers);
    },
  );

  await t.step("gives the same info object every time", async () => {
    const article = flat(dataOf(await readFixture("single_resource.wire")));
    const first = jsonApiOf(article);
    assert(first !== undefined);
    assertStrictEquals(jsonApiOf(article), first);
  });

  await t.step(
    "gives an entry to every resource, even one without links or meta",
    () => {
      const resource = flat(dataOf({ data: { type: "a", id: "1" } }));
      assertEquals(jsonApiOf(resource), { relationships: {} });
    },
  );

  await t.step("returns undefined for an object it did not denormalise", () => {
    assertStrictEquals(jsonApiOf({}), undefined);
    assertStrictEquals(jsonApiOf({ type: "articles", id: "1" }), undefined);
    assertStrictEquals(jsonApiOf([]), undefined);
    const wire = { data: { type: "a", id: "1", links: { self: "/a/1" } } };
    denormalise(wire);
    assertStrictEquals(jsonApiOf(wire.data), undefined);
    assertStrictEquals(
      jsonApiOf(structuredClone(dataOf(wire) as object)),
      undefined,
    );
  });
});

Deno.test("jsonApiOf() of what is not a resource, and of @-members", () => {
  for (const value of [null, undefined, 1, "a", {}]) {
    assertStrictEquals(jsonApiOf(value as object), undefined);
  }
  const resource = flat(dataOf({
    data: {
      type: "articles",
      id: "1",
      relationships: {
        author: { data: null },
        "@rel": { meta: { note: "an @-member, not a relationship" } },
      },
    },
  }));
  assertEquals(Object.keys(jsonApiOf(resource)!.relationships), ["author"]);
});

Deno.test("jsonApiOf() reads the resources another copy of the module denormalised", async () => {
  const copy = await anotherCopy();
  assert(copy.jsonApiOf !== grab.jsonApiOf);
  const links = { self: "/articles/1" };
  const meta = { revision: 3 };
  const related = { related: "/articles/1/author" };
  await using server = startServer(() =>
    json({
      data: {
        type: "articles",
        id: "1",
        attributes: { title: "Hi" },
        links,
        meta,
        relationships: {
          author: { data: { type: "people", id: "9" }, links: related },
        },
      },
    }, { headers: { "content-type": "application/vnd.api+json" } })
  );
  const options = { format: "json-api", casing: "camelCase" } as const;
  const expected = {
    links,
    meta,
    relationships: {
      author: { links: related, data: { type: "people", id: "9" } },
    },
  };
  // Each copy denormalises one, and reads both: the same info object as the
  // copy that made it gives, in the caller's casing.
  const pairs = [[grab, copy], [copy, grab]] as const;
  for (const [maker, reader] of pairs) {
    const [article, error] = await maker.createGrab(server.url, options)(
      "GET /articles/1",
    );
    assertStrictEquals(error, null);
    const resource = flat(article);
    const info = reader.jsonApiOf(resource);
    assertEquals(info, expected);
    assertStrictEquals(info, maker.jsonApiOf(resource));
    assertStrictEquals(reader.jsonApiOf(flat(resource.author)), undefined);
    assertStrictEquals(reader.jsonApiOf({ ...resource }), undefined);
  }
});
