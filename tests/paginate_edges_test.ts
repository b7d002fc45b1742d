import { assertEquals } from "@std/assert";
import createGrab, { paginate } from "../mod.ts";
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
