/**
 * JSON:API mode against a real server where write validation and read
 * identity were found to disagree with the contract: a hole in a to-many
 * linkage array, and two resources that share a `lid` but not an `id`.
 *
 * @module
 */

import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
} from "@std/assert";
import createGrab, { GrabValidationError } from "../mod.ts";
import { json, startServer } from "./_server.ts";

const JSON_API = { "content-type": "application/vnd.api+json" };

Deno.test("a hole in a linkage array is never sent as a null identifier", async (t) => {
  await using server = startServer((_request, seen) =>
    json({ meta: { got: JSON.parse(seen.body) } }, { headers: JSON_API })
  );
  const grab = createGrab(server.url, { format: "json-api", retry: 0 });
  const tag = { type: "tags", id: "1" };

  await t.step("wire shape: refused, with the hole's path", async () => {
    // deno-lint-ignore no-sparse-arrays
    const body = { type: "posts", relationships: { tags: [, tag] } };
    const error = await assertRejects(
      () => grab("POST /posts", { body }),
      GrabValidationError,
    );
    assertEquals(error.issues.map((issue) => issue.path), [
      "/relationships/tags/0",
    ]);
  });

  await t.step(
    "relationship object: refused, with the hole's path",
    async () => {
      // deno-lint-ignore no-sparse-arrays
      const tags = { data: [tag, , tag] };
      const body = { type: "posts", relationships: { tags } };
      const error = await assertRejects(
        () => grab("POST /posts", { body }),
        GrabValidationError,
      );
      assertEquals(error.issues.map((issue) => issue.path), [
        "/relationships/tags/data/1",
      ]);
    },
  );

  await t.step("whole document: refused, with the hole's path", async () => {
    // deno-lint-ignore no-sparse-arrays
    const body = { data: [, tag] };
    const error = await assertRejects(
      () => grab("PATCH /posts/1/relationships/tags", { body }),
      GrabValidationError,
    );
    assertEquals(error.issues.map((issue) => issue.path), ["/data/0"]);
  });

  await t.step("flat shape: an attribute, as [undefined, tag] is", async () => {
    // deno-lint-ignore no-sparse-arrays
    const body = { type: "posts", tags: [, tag] };
    const [sent, error] = await grab("POST /posts", { body });
    assertEquals(error, null);
    assertEquals(sent, null);
    const got = JSON.parse(server.requests.at(-1)!.body);
    assertEquals(got, {
      data: { type: "posts", attributes: { tags: [null, tag] } },
    });
  });

  assertEquals(server.requests.length, 1);
});

Deno.test("two resources that share a lid but not an id stay two", async () => {
  const document = {
    data: [
      { type: "posts", id: "1", lid: "new", attributes: { title: "one" } },
      { type: "posts", id: "2", lid: "new", attributes: { title: "two" } },
    ],
    included: [{
      type: "notes",
      id: "9",
      relationships: {
        post: { data: { type: "posts", id: "2", lid: "new" } },
      },
    }],
  };
  await using server = startServer(() => json(document, { headers: JSON_API }));
  const grab = createGrab(server.url, { format: "json-api", retry: 0 });
  const [posts, error] = await grab<Record<string, unknown>[]>("GET /posts");
  assertEquals(error, null);
  assert(posts !== null);
  assertEquals(posts.map((post) => [post.id, post.title]), [
    ["1", "one"],
    ["2", "two"],
  ]);
});

Deno.test("a 2xx body that is JSON but no JSON:API document says so, not that it is not JSON", async () => {
  const bodies = [{ links: {} }, [1, 2], { errors: [{ status: "500" }] }];
  let at = 0;
  await using server = startServer(() =>
    json(bodies[at++], { headers: JSON_API })
  );
  const grab = createGrab(server.url, { format: "json-api", retry: 0 });
  for (const body of bodies) {
    const [data, error] = await grab("GET /posts");
    assertEquals(data, null);
    assertEquals(error?.name, "GrabTransportError", JSON.stringify(body));
    assert(error?.name === "GrabTransportError");
    assertEquals(error.kind, "parse");
    assertStringIncludes(error.message, "not a valid JSON:API document (");
    assert(!error.message.includes("not valid JSON"), error.message);
  }
});

Deno.test("a resource named first by its lid, then by its id too, is one object with its id", async (t) => {
  const post = {
    type: "posts",
    lid: "new",
    attributes: { title: "Hi" },
    relationships: { notes: { data: [{ type: "notes", id: "9" }] } },
  };
  const note = {
    type: "notes",
    id: "9",
    relationships: { post: { data: { type: "posts", id: "7" } } },
  };
  const cases = {
    // The one with the id comes second, or first.
    "lid, then id and lid": {
      data: post,
      included: [{ type: "posts", id: "7", lid: "new" }, note],
    },
    "id and lid, then lid": {
      data: { type: "posts", id: "7", lid: "new" },
      included: [note, post],
    },
  };
  for (const [name, document] of Object.entries(cases)) {
    await t.step(name, async () => {
      await using server = startServer(() =>
        json(document, { headers: JSON_API })
      );
      const grab = createGrab(server.url, { format: "json-api", retry: 0 });
      const [data, error] = await grab<Record<string, unknown>>("GET /posts");
      assertEquals(error, null);
      assert(data !== null);
      assertEquals(data.id, "7");
      assertEquals(data.title, "Hi");
      // The note names the post by its id alone: the same object.
      const [first] = data.notes as Record<string, unknown>[];
      assert(first?.post === data, "the post is two objects");
    });
  }
});
