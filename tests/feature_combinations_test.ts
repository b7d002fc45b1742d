import { assertEquals } from "@std/assert";
import createGrab, { paginate } from "../mod.ts";
import { startServer } from "./_server.ts";

/**
 * A JSON:API collection of three pages, each linking to the next only in
 * its document's `links.next`, as JSON:API servers do (no `Link` header).
 */
function documentPages() {
  return startServer((_request, { url }) => {
    const n = Number(url.searchParams.get("page") ?? "1");
    return new Response(
      JSON.stringify({
        data: [{
          type: "people",
          id: String(n),
          attributes: { name: `P${n}` },
        }],
        links: { next: n < 3 ? `/people?page=${n + 1}` : null },
      }),
      { headers: { "content-type": "application/vnd.api+json" } },
    );
  });
}

Deno.test("paginate() in JSON:API mode follows links.next whatever responseType holds the document", async (t) => {
  await using server = documentPages();
  const grab = createGrab(server.url, { format: "json-api" });
  const read = {
    text: (data: unknown) => JSON.parse(data as string),
    bytes: (data: unknown) =>
      JSON.parse(new TextDecoder().decode(data as Uint8Array)),
    blob: async (data: unknown) => JSON.parse(await (data as Blob).text()),
  };
  for (const [type, parse] of Object.entries(read)) {
    await t.step(`responseType "${type}": every page, none lost`, async () => {
      const ids: string[] = [];
      for await (
        const [data] of paginate(grab, "GET /people", {
          responseType: type as keyof typeof read,
        })
      ) {
        ids.push((await parse(data)).data[0].id);
      }
      assertEquals(ids, ["1", "2", "3"]);
    });
  }
});
