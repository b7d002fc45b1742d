import { assert, assertEquals } from "@std/assert";
import createGrab, { paginate } from "../mod.ts";
import { KEPT_LENGTH, PageSet, RECENT_PAGES } from "../src/page_set.ts";
import { json, startServer } from "./_server.ts";

const JSON_API = { "content-type": "application/vnd.api+json" };

/** A JSON:API page of one article, numbered `n`, with `links.next`. */
function articlePage(n: number, next: string | null): Response {
  return json({
    data: [{ type: "articles", id: String(n), attributes: { title: `A${n}` } }],
    links: { next },
  }, { headers: JSON_API });
}

Deno.test("paginate() edges", async (t) => {
  await t.step(
    "stops at a link back to a page read whose query names its parameters in another order",
    async () => {
      // The last page links back to the first, its parameters written in the
      // server's order, not in the order the caller's query sent them.
      await using server = startServer((_request, { url }) => {
        const n = Number(url.searchParams.get("page[number]"));
        return articlePage(
          n,
          n === 2
            ? "/articles?page[number]=1&page[size]=10"
            : "/articles?page[size]=10&page[number]=2",
        );
      });
      const grab = createGrab(server.url, { format: "json-api", retry: 0 });
      const ids: string[] = [];
      for await (
        const [articles] of paginate<{ id: string }[]>(grab, "GET /articles", {
          query: { page: { size: 10, number: 1 } },
          limit: 5,
        })
      ) {
        ids.push(...articles.map((article) => article.id));
      }
      assertEquals(ids, ["1", "2"]);
      assertEquals(server.requests.length, 2);
    },
  );

  await t.step(
    "reads a page whose query lists one name's values in another order",
    async () => {
      // `?tag=b&tag=a` may be another list than `?tag=a&tag=b`.
      await using server = startServer((_request, { url }) => {
        const tags = url.searchParams.getAll("tag").join();
        return articlePage(
          tags === "a,b" ? 1 : 2,
          tags === "a,b" ? "/articles?tag=b&tag=a" : "/articles?tag=a&tag=b",
        );
      });
      const grab = createGrab(server.url, { format: "json-api", retry: 0 });
      const ids: string[] = [];
      for await (
        const [articles] of paginate<{ id: string }[]>(
          grab,
          "GET /articles?tag=a&tag=b",
          { limit: 5 },
        )
      ) {
        ids.push(...articles.map((article) => article.id));
      }
      assertEquals(ids, ["1", "2"]);
      assertEquals(server.requests.length, 2);
    },
  );

  await t.step(
    "stops at a link back to a page whose path it wrote escaped",
    async () => {
      await using server = startServer((_request, { url }) => {
        const n = Number(url.searchParams.get("page") ?? "1");
        return articlePage(
          n,
          n === 2
            ? "/users/a@b.test/articles"
            : "/users/a@b.test/articles?page=2",
        );
      });
      const grab = createGrab(server.url, { format: "json-api", retry: 0 });
      const ids: string[] = [];
      for await (
        const [articles] of paginate<{ id: string }[]>(
          grab,
          "GET /users/:email/articles",
          { params: { email: "a@b.test" }, limit: 5 },
        )
      ) {
        ids.push(...articles.map((article) => article.id));
      }
      assertEquals(ids, ["1", "2"]);
      assertEquals(server.requests.length, 2);
    },
  );

  await t.step(
    "follows the next link the server sent, whatever the loop does to the page's links",
    async () => {
      await using server = startServer((_request, { url }) => {
        const n = Number(url.searchParams.get("page") ?? "1");
        return articlePage(n, n < 3 ? `/articles?page=${n + 1}` : null);
      });
      const grab = createGrab(server.url, { format: "json-api", retry: 0 });
      const ids: string[] = [];
      for await (
        const [articles, meta] of paginate<{ id: string }[]>(
          grab,
          "GET /articles",
          { limit: 5 },
        )
      ) {
        ids.push(...articles.map((article) => article.id));
        // The caller's own use of the links it was given: shown elsewhere,
        // or cleared once read.
        const links = meta.links as Record<string, unknown>;
        links["next"] = null;
      }
      assertEquals(ids, ["1", "2", "3"]);
    },
  );
});

Deno.test("pages read long ago are still told apart from new ones", async (t) => {
  await t.step("a set of pages past the most recent it keeps whole", () => {
    const pages = new PageSet();
    const count = 4 * RECENT_PAGES;
    const page = (n: number) => `http://api.test/events?cursor=${n}&limit=100`;
    for (let n = 0; n < count; n++) pages.add(page(n));
    // A spelling longer than those kept whole is held by its hash at once.
    const long = `http://api.test/events?cursor=${"c".repeat(KEPT_LENGTH)}`;
    pages.add(long).add(long);
    assertEquals(pages.size, count + 1);
    for (let n = 0; n < count; n++) assert(pages.has(page(n)), page(n));
    assert(pages.has(long));
    assert(!pages.has(long.slice(0, -1)));
    // Pages never added, one character away from those that were.
    for (let n = count; n < 2 * count; n++) assert(!pages.has(page(n)));
    for (let n = 0; n < count; n++) {
      assert(!pages.has(`${page(n)}0`), `${page(n)}0`);
    }
    pages.add(page(0)).add(page(count - 1));
    assertEquals(pages.size, count + 1);
  });

  await t.step(
    "a walk whose last page links back to an early one",
    async () => {
      // More pages than are kept whole: page 2's link is only a hash by then.
      const last = RECENT_PAGES + 100;
      await using server = startServer((_request, { url }) => {
        const n = Number(url.searchParams.get("n") ?? 0);
        const next = n === last ? 2 : n + 1;
        return json([n], {
          headers: { link: `</items?n=${next}&size=10>; rel="next"` },
        });
      });
      const grab = createGrab(server.url, { retry: 0 });
      const read: number[] = [];
      for await (
        const [data] of paginate(grab, "GET /items", { limit: Infinity })
      ) {
        read.push((data as number[])[0]!);
      }
      assertEquals(read, Array.from({ length: last + 1 }, (_, n) => n));
    },
  );
});
