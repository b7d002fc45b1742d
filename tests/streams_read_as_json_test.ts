/**
 * A 2xx stream asked for as one JSON body. An endless event stream never
 * ends as a body read to its end must, so the grab fails at the head, the
 * stream let go, rather than waiting out its timeout; other types still read
 * an event stream whole, and other bodies are read as JSON as before. NDJSON
 * of more than one value fails to parse, and says which type reads it.
 */

import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertRejects,
} from "@std/assert";
import createGrab, { GrabError, GrabTransportError, paginate } from "../mod.ts";
import { startServer } from "./_server.ts";
import { type Tap, tap } from "./_streams.ts";

const ASKED =
  `read it with responseType "sse" for its events, or "text" for the text`;

function eventServer() {
  const taps: Tap[] = [];
  const server = startServer({
    // An endless stream: one event, then silence.
    "/events": () => {
      const next = tap();
      taps.push(next);
      next.write("data: hello\n\n");
      return new Response(next.body, {
        headers: { "content-type": "text/event-stream; charset=utf-8" },
      });
    },
    "/cased": () => {
      const next = tap();
      taps.push(next);
      return new Response(next.body, {
        headers: { "content-type": " Text/Event-Stream " },
      });
    },
    // A finite event stream with a length.
    "/finite": () =>
      new Response("data: a\n\ndata: b\n\n", {
        headers: { "content-type": "text/event-stream" },
      }),
    "/missing": () => {
      const next = tap();
      taps.push(next);
      next.write("data: gone\n\n");
      next.close();
      return new Response(next.body, {
        status: 404,
        headers: { "content-type": "text/event-stream" },
      });
    },
    "/empty": () =>
      new Response(null, {
        status: 204,
        headers: { "content-type": "text/event-stream" },
      }),
    // Given twice, by the server and a proxy: the last media type counts.
    // A blank or "*/*" after it is passed over, as fetch passes it over.
    "/twice": (request) => {
      const next = tap();
      taps.push(next);
      const { searchParams } = new URL(request.url);
      const after = searchParams.has("blank")
        ? [["content-type", ""]]
        : searchParams.has("any")
        ? [["content-type", "*/*"]]
        : [];
      return new Response(next.body, {
        headers: [
          ["content-type", "application/json"],
          ["content-type", "text/event-stream"],
          ...after,
        ] as [string, string][],
      });
    },
    // Not an event stream by its label: read as JSON, as before.
    "/joined": () =>
      new Response('{"a":1}', {
        headers: { "content-type": "text/event-stream, application/json" },
      }),
    "/json": () => Response.json({ a: 1 }),
    // Commas alone, without a length: told, and read, at once.
    "/commas": () =>
      new Response(ReadableStream.from([new TextEncoder().encode('{"a":1}')]), {
        headers: { "content-type": ", ,," },
      }),
    "/ndjson": (request) =>
      new Response(
        new URL(request.url).searchParams.has("one")
          ? '{"a":1}\n'
          : '{"a":1}\n{"a":2}\n',
        {
          headers: { "content-type": "application/x-ndjson; charset=utf-8" },
        },
      ),
    "/jsonl": () =>
      new Response('{"a":1}\n{"a":2}', {
        headers: { "content-type": "Application/JSONL" },
      }),
  });
  return Object.assign(server, { taps });
}

Deno.test("a 2xx event stream read as JSON fails at the head as kind parse", async (t) => {
  await using server = eventServer();
  // Bounded by far less than the test's own time: without the check, the
  // grab would wait this long and end with kind "timeout".
  const grab = createGrab(server.url, { timeout: 10_000 });

  for (const format of ["json", "json-api"] as const) {
    await t.step(`format ${format}: an endless stream is let go`, async () => {
      const before = server.taps.length;
      const [data, error, meta] = await grab("GET /events", { format });
      assertEquals(data, null);
      assertEquals(meta, { statusCode: 0 });
      assertInstanceOf(error, GrabTransportError);
      assertEquals(error.kind, "parse");
      assertEquals(
        error.message,
        `Cannot read the response: the 200 response is an event stream (Content-Type "text/event-stream; charset=utf-8"), not one JSON body, and may never end; ${ASKED}: GET ${server.url}/events`,
      );
      // Asked once (not retried), and the stream was let go.
      assertEquals(server.taps.length, before + 1);
      await server.taps.at(-1)!.cancelled;
    });
  }

  await t.step("the media type in any case, with spaces", async () => {
    const [, error] = await grab("GET /cased");
    assertInstanceOf(error, GrabTransportError);
    assertEquals(error.kind, "parse");
    await server.taps.at(-1)!.cancelled;
  });

  await t.step("a Content-Type given twice, by its last", async () => {
    for (const path of ["/twice", "/twice?blank", "/twice?any"] as const) {
      const [, error] = await grab(`GET ${path}`);
      assertInstanceOf(error, GrabTransportError);
      assertEquals(error.kind, "parse", path);
      assert(error.message.includes(ASKED), error.message);
      await server.taps.at(-1)!.cancelled;
    }
  });

  await t.step("one with a length is refused alike", async () => {
    const [, error] = await grab("GET /finite");
    assertInstanceOf(error, GrabTransportError);
    assertEquals(error.kind, "parse");
    assert(error.message.includes(ASKED));
  });

  await t.step("paginate throws it, as it throws every failure", async () => {
    const pages: unknown[] = [];
    const error = await assertRejects(async () => {
      for await (const page of paginate(grab, "GET /events")) pages.push(page);
    }, GrabTransportError);
    assertEquals(pages, []);
    assertEquals(error.kind, "parse");
    await server.taps.at(-1)!.cancelled;
  });
});

Deno.test("an event stream is still read whole where that can end", async (t) => {
  await using server = eventServer();
  const grab = createGrab(server.url, { retry: 0 });

  await t.step("as text, bytes or a blob", async () => {
    const [text] = await grab("GET /finite", { responseType: "text" });
    assertEquals(text, "data: a\n\ndata: b\n\n");
    const [bytes] = await grab("GET /finite", { responseType: "bytes" });
    assertEquals(bytes?.byteLength, 18);
    const [blob] = await grab("GET /finite", { responseType: "blob" });
    assertEquals(blob?.type, "text/event-stream");
  });

  await t.step("as events", async () => {
    const [stream] = await grab("GET /finite", { responseType: "sse" });
    const data = [];
    for await (const event of stream!) data.push(event.data);
    assertEquals(data, ["a", "b"]);
  });

  await t.step("an error status keeps its body", async () => {
    const [, error] = await grab("GET /missing");
    assertInstanceOf(error, GrabError);
    assertEquals(error.statusCode, 404);
    assertEquals(error.body, "data: gone\n\n");
  });

  await t.step("a 204 has no body to read", async () => {
    const [data, error, meta] = await grab("GET /empty");
    assertEquals([data, error, meta.statusCode], [null, null, 204]);
  });

  await t.step(
    "a type not wholly an event stream is read as JSON",
    async () => {
      const [joined, error] = await grab("GET /joined");
      assertEquals(error, null);
      assertEquals(joined, { a: 1 });
      const [plain] = await grab("GET /json");
      assertEquals(plain, { a: 1 });
      const [commas] = await grab("GET /commas");
      assertEquals(commas, { a: 1 });
    },
  );
});

Deno.test("NDJSON read as JSON says to read it as NDJSON", async () => {
  await using server = eventServer();
  const grab = createGrab(server.url, { retry: 0 });
  for (
    const [path, type] of [
      ["/ndjson", "application/x-ndjson; charset=utf-8"],
      ["/jsonl", "Application/JSONL"],
    ] as const
  ) {
    const [data, error] = await grab(`GET ${path}`);
    assertEquals(data, null);
    assertInstanceOf(error, GrabTransportError);
    assertEquals(error.kind, "parse");
    assertInstanceOf(error.cause, SyntaxError);
    assertEquals(
      error.message,
      `Cannot read the response: the body of the 200 response (Content-Type "${type}") is not one JSON value but one a line; read it with responseType "ndjson": GET ${server.url}${path}`,
    );
    const [rows] = await grab(`GET ${path}`, { responseType: "ndjson" });
    const values = [];
    for await (const row of rows!) values.push(row);
    assertEquals(values, [{ a: 1 }, { a: 2 }]);
  }
  // One value is one JSON body, whatever its label.
  const [one, error] = await grab("GET /ndjson?one");
  assertEquals([one, error], [{ a: 1 }, null]);
});
