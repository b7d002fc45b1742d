import { assertEquals } from "@std/assert";
import createGrab from "../mod.ts";
import { startServer } from "./_server.ts";

/** The query one grab sent, decoded, as the server read it. */
async function sentQuery(
  options: Parameters<typeof createGrab>[1],
  query: Record<string, unknown>,
): Promise<[string, string][]> {
  await using server = startServer(() => Response.json({ meta: {} }));
  const grab = createGrab(server.url, options);
  const [, error] = await grab("GET /articles", { query });
  assertEquals(error, null);
  assertEquals(server.requests.length, 1);
  return [...server.requests[0]!.url.searchParams];
}

Deno.test("query modes: type names inside fields[…] are never converted", async (t) => {
  // README: query keys go in `wireCasing` "except the type names inside
  // `fields[…]`"; a PascalCase caller writes the parameter `Fields`, which
  // goes out as `fields`, and its type names must still go as written.
  await t.step("JSON:API, PascalCase caller", async () => {
    assertEquals(
      await sentQuery({ format: "json-api", casing: "PascalCase" }, {
        Fields: { "blog-posts": ["title"], BlogAuthors: ["name"] },
        Include: ["author"],
      }),
      [
        ["fields[blog-posts]", "title"],
        ["fields[BlogAuthors]", "name"],
        ["include", "author"],
      ],
    );
  });

  await t.step("JSON, PascalCase caller", async () => {
    assertEquals(
      await sentQuery({ casing: "PascalCase" }, {
        Fields: { "blog-posts": ["title"] },
        PageSize: 2,
      }),
      [["fields[blog-posts]", "title"], ["page_size", "2"]],
    );
  });

  await t.step("JSON, a PascalCase wire", async () => {
    assertEquals(
      await sentQuery({ casing: "camelCase", wireCasing: "PascalCase" }, {
        fields: { "blog-posts": ["title"], blogAuthors: ["name"] },
        pageSize: 2,
      }),
      [
        ["Fields[blog-posts]", "title"],
        ["Fields[blogAuthors]", "name"],
        ["PageSize", "2"],
      ],
    );
  });

  await t.step("the lower-case spelling, as before", async () => {
    assertEquals(
      await sentQuery({ format: "json-api", casing: "camelCase" }, {
        fields: { blogPosts: ["title", "createdAt"] },
        filter: { firstName: "Ada" },
      }),
      [
        ["fields[blogPosts]", "title,createdAt"],
        ["filter[first_name]", "Ada"],
      ],
    );
  });
});
