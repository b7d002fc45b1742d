import { assert, assertEquals } from "@std/assert";
import createGrab, { type ServerSentEvent } from "../mod.ts";
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

// Not fixed: the parsers count the decoded text, and U+FFFD counts as its
// three UTF-8 bytes whatever number of bytes (one to three) it replaced, so
// an event of such bytes is refused under the cap (never let past it).
Deno.test({
  name:
    "an event of bytes that are not UTF-8 is bounded by its bytes, not by its replacement characters",
  ignore: true,
}, async () => {
  // 0x80 alone is no character: each decodes to U+FFFD, three bytes in UTF-8.
  const event = new Uint8Array([
    ...new TextEncoder().encode("data: é"),
    ...new Array(60).fill(0x80),
    10,
    10,
  ]);
  await using server = startServer({
    "/latin": () => new Response(event, { headers: SSE }),
  });
  const { seen, events } = await eventsOf(server.url, "/latin", {
    maxBodyBytes: event.byteLength,
  });
  assertEquals(events.error, null);
  assertEquals(seen.map(({ data }) => data), ["é" + "\ufffd".repeat(60)]);
});
