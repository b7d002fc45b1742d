import { assert, assertEquals } from "@std/assert";
import createGrab, { isGrabHttpError, type ServerSentEvent } from "../mod.ts";
import { startServer } from "./_server.ts";
import { paced } from "./_streams.ts";

const SSE = { "content-type": "text/event-stream" };

/** Every event of an `"sse"` grab of `path`, and how its stream ended. */
async function eventsOf(
  url: string,
  path: `/${string}`,
  options: { maxBodyBytes?: number } = {},
) {
  const grab = createGrab(url);
  const [events, error] = await grab(`GET ${path}`, {
    responseType: "sse",
    ...options,
  });
  if (error) throw error;
  assert(events !== null);
  const seen: ServerSentEvent[] = [];
  for await (const event of events) seen.push(event);
  return { seen, events };
}

Deno.test("a retry: of more digits than a number holds is ignored, not Infinity", async () => {
  await using server = startServer({
    "/huge": () =>
      new Response(
        paced([
          "retry: 1000\ndata: a\n\n",
          `retry: ${"9".repeat(400)}\ndata: b\n\n`,
          "retry: 25\n\ndata: c\n\n",
        ]),
        { headers: SSE },
      ),
  });
  const { seen, events } = await eventsOf(server.url, "/huge");
  assertEquals(events.error, null);
  assertEquals(seen.map(({ data, retry }) => [data, retry]), [
    ["a", 1000],
    ["b", 1000],
    ["c", 25],
  ]);
});

Deno.test("an id ended by a blank line before an event over the cap counts, in the same chunk as in its own", async () => {
  const before = "data: a\n\nid: 7\n\n";
  const over = `data: ${"x".repeat(200)}\n\n`;
  await using server = startServer({
    "/one": () => new Response(before + over, { headers: SSE }),
    "/two": () => new Response(paced([before, over]), { headers: SSE }),
  });
  for (const path of ["/two", "/one"] as const) {
    const { seen, events } = await eventsOf(server.url, path, {
      maxBodyBytes: 100,
    });
    assertEquals(seen.map(({ data }) => data), ["a"], path);
    assertEquals(events.error?.kind, "too-large", path);
    assertEquals(events.lastEventId, "7", path);
  }
});

// nodejs/undici#3892 and jwagenleitner/groovy-wslite#74: JSON whose
// Content-Type carries a charset was not read as JSON; an error body with a
// leading BOM does not parse with JSON.parse alone.
Deno.test("an error body with a charset and a leading BOM is parsed JSON", async () => {
  await using server = startServer(() =>
    new Response('\uFEFF{"message":"name is missing"}', {
      status: 422,
      headers: { "content-type": "application/json; charset=utf-8" },
    })
  );
  const grab = createGrab(server.url, { retry: 0 });
  const [data, error] = await grab("POST /users", { body: {} });
  assertEquals(data, null);
  assert(isGrabHttpError(error), String(error));
  assertEquals(error.body, { message: "name is missing" });
});
