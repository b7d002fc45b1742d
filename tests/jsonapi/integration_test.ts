/**
 * grab's JSON:API mode against a real JSON:API server that nobody here wrote:
 * Fortune.js (`fortune`, in-memory adapter) behind its HTTP listener
 * (`fortune-http`) with the JSON:API serializer (`fortune-json-api`), on
 * `node:http`, 127.0.0.1 and an ephemeral port, in a child `deno run` of
 * `_server/fortune.ts` that this test starts and stops.
 *
 * What fortune-json-api does on the wire, and what the assertions rely on:
 * - types are pluralised (`post` → `posts`) and member names dasherised
 *   (`wordCount` → `word-count`), so the wire casing is kebab-case;
 * - every resource has `links.self` and every relationship `links.self` and
 *   `links.related`, all relative (`/posts/1`);
 * - a collection has `meta.count` and `links.self`, plus `first`, `last`,
 *   `next` and `prev` (relative, `page[offset]`/`page[limit]`) when there is
 *   more than one page;
 * - POST answers 201 with the resource and a `Location`; PATCH and DELETE
 *   answer 204 with no body;
 * - error objects carry `title` (the error class name) and `detail` (the
 *   message), never `status`; any other enumerable property of the thrown
 *   error is copied in, which is how the input hook in `_server/fortune.ts` adds
 *   `source.pointer`.
 *
 * @module
 */

import {
  assert,
  assertEquals,
  assertMatch,
  assertStrictEquals,
} from "@std/assert";
import createGrab, { GrabError, jsonApiOf, paginate } from "../../mod.ts";

interface Person {
  type: "people";
  id: string;
  name: string;
  posts: Post[];
}

interface Tag {
  type: "tags";
  id: string;
  label: string;
}

interface Post {
  type: "posts";
  id: string;
  title: string | null;
  wordCount: number | null;
  publishedAt: string | null;
  author: Person | null;
  tags: Tag[];
}

interface RunningServer extends AsyncDisposable {
  url: string;
}

const SERVER = new URL("./_server/fortune.ts", import.meta.url);

/**
 * Starts the Fortune.js server as a child `deno run` (see its module doc for
 * why) and waits for the address it prints.
 */
async function startFortune(): Promise<RunningServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--allow-net=127.0.0.1",
      "--allow-read",
      "--allow-env",
      SERVER.href,
    ],
    // The project root, so the child uses deno.json and deno.lock.
    cwd: new URL("../..", import.meta.url),
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const kill = () => {
    try {
      child.kill();
    } catch {
      // Already exited.
    }
  };
  // The server exits when its stdin closes; it is killed if it does not.
  const stop = async () => {
    const stuck = setTimeout(kill, 5_000);
    try {
      await child.stdin.close().catch(() => {});
      await lines.cancel();
      return await child.status;
    } finally {
      clearTimeout(stuck);
    }
  };
  let output = "";
  // The first run may download the npm packages.
  const slow = setTimeout(kill, 60_000);
  try {
    while (!output.includes("\n")) {
      const { value, done } = await lines.read();
      if (done) throw new Error(`the Fortune.js server exited: ${output}`);
      output += value;
    }
  } catch (error) {
    await stop();
    throw error;
  } finally {
    clearTimeout(slow);
  }
  const url = output.slice(0, output.indexOf("\n"));
  assertMatch(url, /^http:\/\/127\.0\.0\.1:\d+$/);
  return {
    url,
    async [Symbol.asyncDispose]() {
      assertEquals((await stop()).code, 0);
    },
  };
}

Deno.test("json-api mode against Fortune.js (fortune-json-api)", async (t) => {
  await using server = await startFortune();
  const api = createGrab(server.url, {
    format: "json-api",
    casing: "camelCase",
    wireCasing: "kebab-case",
    retry: 0,
  });

  let postId = "";

  await t.step("create the related resources with client ids", async () => {
    const [ada, error, meta] = await api<Person>("POST /people", {
      body: { type: "people", id: "ada", name: "Ada Lovelace" },
    });
    assertStrictEquals(error, null);
    assertEquals(meta.statusCode, 201);
    assertEquals(ada, {
      type: "people",
      id: "ada",
      name: "Ada Lovelace",
      posts: [],
    });
    for (const [id, label] of [["maths", "Maths"], ["engines", "Engines"]]) {
      const [tag, tagError] = await api<Tag>("POST /tags", {
        body: { type: "tags", id, label },
      });
      assertStrictEquals(tagError, null);
      assertEquals(tag, { type: "tags", id, label });
    }
  });

  await t.step(
    "create with a to-one and a to-many relationship gives 201 and the denormalised resource",
    async () => {
      const sent: Request[] = [];
      const [post, error, meta] = await api<Post>("POST /posts", {
        body: {
          type: "posts",
          title: "Notes on the Engine",
          wordCount: 1200,
          author: { type: "people", id: "ada" },
          tags: [
            { type: "tags", id: "maths" },
            { type: "tags", id: "engines" },
          ],
        },
        hooks: {
          beforeRequest(request) {
            sent.push(request.clone());
          },
        },
      });
      assertStrictEquals(error, null);
      assertEquals(meta.statusCode, 201);
      assert(post);
      assertMatch(post.id, /^[\w-]+$/);
      postId = post.id;
      assertEquals(meta.headers.get("location"), `/posts/${postId}`);
      assertEquals(
        meta.headers.get("content-type"),
        "application/vnd.api+json",
      );
      // Related resources the response did not include are bare identifiers.
      assertEquals<unknown>(post, {
        type: "posts",
        id: postId,
        title: "Notes on the Engine",
        wordCount: 1200,
        publishedAt: null,
        author: { type: "people", id: "ada" },
        tags: [{ type: "tags", id: "maths" }, { type: "tags", id: "engines" }],
      });

      // What went over the wire: kebab-case members, relationships split out.
      assertEquals(sent.length, 1);
      const request = sent[0]!;
      assertEquals(
        request.headers.get("content-type"),
        "application/vnd.api+json",
      );
      assertEquals(JSON.parse(await request.text()), {
        data: {
          type: "posts",
          attributes: { "title": "Notes on the Engine", "word-count": 1200 },
          relationships: {
            author: { data: { type: "people", id: "ada" } },
            tags: {
              data: [
                { type: "tags", id: "maths" },
                { type: "tags", id: "engines" },
              ],
            },
          },
        },
      });

      // Resource and relationship links stay off the object.
      assertEquals(jsonApiOf(post), {
        links: { self: `/posts/${postId}` },
        relationships: {
          author: {
            links: {
              self: `/posts/${postId}/relationships/author`,
              related: `/posts/${postId}/author`,
            },
            data: { type: "people", id: "ada" },
          },
          tags: {
            links: {
              self: `/posts/${postId}/relationships/tags`,
              related: `/posts/${postId}/tags`,
            },
            data: [{ type: "tags", id: "maths" }, {
              type: "tags",
              id: "engines",
            }],
          },
        },
      });
    },
  );

  await t.step(
    "read with include resolves related resources and shares identity",
    async () => {
      const [post, error, meta] = await api<Post>("GET /posts/:id", {
        params: { id: postId },
        query: { include: ["author", "author.posts", "tags"] },
      });
      assertStrictEquals(error, null);
      assertEquals(meta.statusCode, 200);
      assertEquals(meta.links, { self: `/posts/${postId}` });
      assertStrictEquals(meta.meta, undefined);
      assert(post);
      assertEquals(post.title, "Notes on the Engine");
      assertEquals(post.wordCount, 1200);

      // The author comes from `included`, attributes and all.
      const author = post.author;
      assert(author);
      assertEquals(author.name, "Ada Lovelace");
      // author.posts points back at the primary resource: the same object.
      assertEquals(author.posts.length, 1);
      assertStrictEquals(author.posts[0], post);
      assertStrictEquals(author.posts[0]!.author, author);

      assertEquals(post.tags, [
        { type: "tags", id: "maths", label: "Maths" },
        { type: "tags", id: "engines", label: "Engines" },
      ]);

      assertEquals(jsonApiOf(author)?.links, { self: "/people/ada" });
      assertEquals(jsonApiOf(author)?.relationships, {
        posts: {
          links: {
            self: "/people/ada/relationships/posts",
            related: "/people/ada/posts",
          },
          data: [{ type: "posts", id: post.id }],
        },
      });
      assertEquals(jsonApiOf(post.tags[0]!), {
        links: { self: "/tags/maths" },
        relationships: {},
      });
    },
  );

  await t.step("update with a flat body, then read the change", async () => {
    const [data, error, meta] = await api("PATCH /posts/:id", {
      params: { id: postId },
      body: {
        type: "posts",
        id: postId,
        title: "Sketch of the Analytical Engine",
        wordCount: 1500,
        publishedAt: "1843-10-01T00:00:00.000Z",
      },
    });
    assertStrictEquals(error, null);
    assertStrictEquals(data, null);
    assertEquals(meta.statusCode, 204);

    const [post] = await api<Post>("GET /posts/:id", {
      params: { id: postId },
    });
    assert(post);
    assertEquals(post.title, "Sketch of the Analytical Engine");
    assertEquals(post.wordCount, 1500);
    assertEquals(post.publishedAt, "1843-10-01T00:00:00.000Z");
    assertEquals<unknown>(post.author, { type: "people", id: "ada" });
  });

  await t.step(
    "update with a wire-shape body clears relationships",
    async () => {
      const [, error, meta] = await api("PATCH /posts/:id", {
        params: { id: postId },
        body: {
          type: "posts",
          id: postId,
          relationships: { author: null, tags: [] },
        },
      });
      assertStrictEquals(error, null);
      assertEquals(meta.statusCode, 204);

      const [post] = await api<Post>("GET /posts/:id", {
        params: { id: postId },
      });
      assert(post);
      assertStrictEquals(post.author, null);
      assertEquals(post.tags, []);
      assertEquals(post.title, "Sketch of the Analytical Engine");

      // Fortune keeps the inverse side in step.
      const [ada] = await api<Person>("GET /people/ada");
      assert(ada);
      assertEquals(ada.posts, []);
    },
  );

  await t.step("delete, then reading is a 404 GrabError", async () => {
    const [data, error, meta] = await api("DELETE /posts/:id", {
      params: { id: postId },
    });
    assertStrictEquals(error, null);
    assertStrictEquals(data, null);
    assertEquals(meta.statusCode, 204);

    const [gone, notFound, notFoundMeta] = await api("GET /posts/:id", {
      params: { id: postId },
    });
    assertStrictEquals(gone, null);
    assertEquals(notFoundMeta, {});
    assert(notFound instanceof GrabError);
    assertEquals(notFound.statusCode, 404);
    assertEquals(notFound.method, "GET");
    assertEquals(notFound.url, `${server.url}/posts/${postId}`);
    assertEquals(notFound.errors, [
      { title: "NotFoundError", detail: "No records match the request." },
    ]);
    assertEquals(notFound.message, "No records match the request.");
  });

  const titles = ["Alpha", "Bravo", "Charlie", "Delta", "Echo"];

  await t.step("list with sort and page[offset]/page[limit]", async () => {
    for (const [index, title] of titles.entries()) {
      const [, error] = await api("POST /posts", {
        body: {
          type: "posts",
          title,
          wordCount: (titles.length - index) * 100,
          author: { type: "people", id: "ada" },
        },
      });
      assertStrictEquals(error, null);
    }

    const [posts, error, meta] = await api<Post[]>("GET /posts", {
      query: {
        sort: ["word-count"],
        page: { offset: 1, limit: 2 },
        include: ["author"],
      },
    });
    assertStrictEquals(error, null);
    assert(posts);
    assertEquals(posts.map((post) => post.title), ["Delta", "Charlie"]);
    assertEquals(posts.map((post) => post.wordCount), [200, 300]);
    assertEquals(meta.meta, { count: 5 });
    assertEquals(meta.links, {
      self:
        "/posts?sort=word-count&page%5Boffset%5D=1&page%5Blimit%5D=2&include=author",
      first:
        "/posts?sort=word-count&include=author&page%5Boffset%5D=0&page%5Blimit%5D=2",
      last:
        "/posts?sort=word-count&include=author&page%5Boffset%5D=4&page%5Blimit%5D=2",
      next:
        "/posts?sort=word-count&include=author&page%5Boffset%5D=2&page%5Blimit%5D=2",
    });
    // One author in `included`, one object on both posts.
    assertEquals(posts[0]!.author!.name, "Ada Lovelace");
    assertStrictEquals(posts[0]!.author, posts[1]!.author);
  });

  await t.step("paginate follows links.next to the last page", async () => {
    const pages: string[][] = [];
    const urls: string[] = [];
    for await (
      const [posts, meta] of paginate<Post[]>(api, "GET /posts", {
        query: { sort: ["-title"], page: { limit: 2 } },
        hooks: {
          beforeRequest(request) {
            urls.push(request.url);
          },
        },
      })
    ) {
      pages.push(posts.map((post) => post.title ?? ""));
      assertEquals(meta.meta, { count: 5 });
    }
    assertEquals(pages, [["Echo", "Delta"], ["Charlie", "Bravo"], [
      "Alpha",
    ]]);
    assertEquals(urls, [
      `${server.url}/posts?sort=-title&page%5Blimit%5D=2`,
      `${server.url}/posts?sort=-title&page%5Boffset%5D=2&page%5Blimit%5D=2`,
      `${server.url}/posts?sort=-title&page%5Boffset%5D=4&page%5Blimit%5D=2`,
    ]);
  });

  await t.step(
    "a server-side type error arrives as GrabError.errors",
    async () => {
      const [data, error, meta] = await api("POST /posts", {
        body: { type: "posts", title: "Undated", publishedAt: "someday" },
      });
      assertStrictEquals(data, null);
      assertEquals(meta, {});
      assert(error instanceof GrabError);
      assertEquals(error.statusCode, 400);
      assertEquals(error.errors, [{
        title: "BadRequestError",
        detail: "Date string must be an ISO 8601 formatted string.",
      }]);
      assertEquals(
        error.message,
        "Date string must be an ISO 8601 formatted string.",
      );
    },
  );

  await t.step(
    "a validation error with source.pointer gives field in the caller's casing",
    async () => {
      const [data, error] = await api("POST /posts", {
        body: { type: "posts", title: "Backwards", wordCount: -1 },
      });
      assertStrictEquals(data, null);
      assert(error instanceof GrabError);
      assertEquals(error.statusCode, 400);
      assertEquals(error.errors, [{
        title: "BadRequestError",
        detail: "A word count cannot be negative.",
        source: { pointer: "/data/attributes/word-count" },
        field: "wordCount",
      }]);
      // fortune-json-api never sends `status`; deepEqual shows it absent.
      assertEquals(error.message, "A word count cannot be negative.");

      // Nothing was stored.
      const [posts, listError, meta] = await api<Post[]>("GET /posts");
      assertStrictEquals(listError, null);
      assertEquals(meta.meta, { count: 5 });
      assertEquals(meta.links, { self: "/posts" });
      assertEquals(posts?.length, 5);
    },
  );
});
