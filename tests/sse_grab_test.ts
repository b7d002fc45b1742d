import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertStringIncludes,
} from "@std/assert";
import createGrab, {
  GrabError,
  GrabTransportError,
  type ServerSentEvent,
} from "../mod.ts";
import { startServer } from "./_server.ts";
import { bytewise, NUMBERS, paced, type Tap, tap, tapped } from "./_streams.ts";

const SSE = { "content-type": "text/event-stream" };

const CHAT = [
  'data: {"choices":[{"delta":{"content":"Hel"}}]}\n\n',
  'data: {"choices":[{"delta":{"content":"lo"}}]}\n\n',
  ": keep-alive\n\n",
  "data: [DONE]\n\n",
];

/** A server whose `/live` body is the next tap the test hands it. */
function liveServer() {
  const taps: Tap[] = [];
  const server = startServer({
    "/live": () => {
      const next = tap();
      taps.push(next);
      return new Response(next.body, { headers: SSE });
    },
    "/chat": () => new Response(paced(CHAT), { headers: SSE }),
    "/bytewise": () =>
      new Response(
        paced(
          bytewise("\ufeffid: 7\r\nevent: note\rdata: é😀\r\n\r\ndata: b\n\n"),
        ),
        { headers: SSE },
      ),
    "/named": () =>
      new Response(
        paced([
          'event: message_start\ndata: {"type":"message_start"}\n\n',
          'event: content_block_delta\ndata: {"type":"content_block_delta","delta":{"text":"Hi"}}\n\n',
          'event: message_stop\ndata: {"type":"message_stop"}\n\n',
        ]),
        { headers: SSE },
      ),
    "/resume": (request) => {
      const last = request.headers.get("last-event-id") ?? "";
      const from = last === "" ? 1 : Number(last) + 1;
      const events = [from, from + 1].map((n) => `id: ${n}\ndata: e${n}\n\n`);
      return new Response(paced(events), { headers: SSE });
    },
    "/crlf-split": () =>
      new Response(paced(["data: a\r", "\n"]), { headers: SSE }),
    "/empty": () => new Response(null, { status: 204 }),
    "/missing": () => Response.json({ message: "no stream" }, { status: 404 }),
  });
  return Object.assign(server, { taps });
}

Deno.test("responseType sse", async (t) => {
  await using server = liveServer();
  const grab = createGrab(server.url);

  await t.step(
    "an OpenAI-style stream is one short loop that ends cleanly",
    async () => {
      const [events, error] = await grab("GET /chat", { responseType: "sse" });
      if (error) throw error;
      assert(events !== null);
      let text = "";
      for await (const { data } of events) {
        if (data === "[DONE]") break;
        text += JSON.parse(data).choices[0].delta.content;
      }
      assertEquals(text, "Hello");
      assertEquals(events.error, null);
    },
  );

  await t.step(
    "named events with a schema: each data parsed and checked",
    async () => {
      const types: string[] = [];
      const schema = {
        "~standard": {
          version: 1 as const,
          vendor: "test",
          validate: (value: unknown) => ({ value: value as { type: string } }),
        },
      };
      const [events] = await grab("GET /named", {
        responseType: "sse",
        schema,
      });
      let text = "";
      for await (const event of events!) {
        types.push(`${event.event}=${event.data.type}`);
        if (event.event === "content_block_delta") {
          text +=
            (event.data as unknown as { delta: { text: string } }).delta.text;
        }
      }
      assertEquals(types, [
        "message_start=message_start",
        "content_block_delta=content_block_delta",
        "message_stop=message_stop",
      ]);
      assertEquals(text, "Hi");
      assertEquals(events!.error, null);
    },
  );

  await t.step(
    "one byte per chunk: BOM, CR, LF and CRLF, multi-byte characters",
    async () => {
      const [events] = await grab("GET /bytewise", { responseType: "sse" });
      const seen: ServerSentEvent[] = [];
      for await (const event of events!) seen.push(event);
      assertEquals(seen.map(({ event, data, id }) => ({ event, data, id })), [
        { event: "note", data: "é😀", id: "7" },
        { event: "message", data: "b", id: "7" },
      ]);
      assertEquals(events!.lastEventId, "7");
      assertEquals(events!.error, null);
    },
  );

  await t.step("lastEventId resumes a stream with Last-Event-ID", async () => {
    const [first] = await grab("GET /resume", { responseType: "sse" });
    const firstData: string[] = [];
    for await (const { data } of first!) firstData.push(data);
    assertEquals(firstData, ["e1", "e2"]);
    const [again] = await grab("GET /resume", {
      responseType: "sse",
      headers: { "last-event-id": first!.lastEventId },
    });
    const next: string[] = [];
    for await (const { data } of again!) next.push(data);
    assertEquals(next, ["e3", "e4"]);
  });

  await t.step(
    "the grab settles at the head; the body is read as it comes",
    async () => {
      const [events, error] = await grab("GET /live", { responseType: "sse" });
      assertEquals(error, null);
      const live = await tapped(server.taps, 1);
      const iterator = events![Symbol.asyncIterator]();
      const pending = iterator.next();
      live.write("data: one\n\n");
      assertEquals((await pending).value?.data, "one");
      live.write("data: tw");
      const second = iterator.next();
      live.write("o\n\n");
      assertEquals((await second).value?.data, "two");
      live.close();
      assertEquals((await iterator.next()).done, true);
      assertEquals(events!.error, null);
    },
  );

  await t.step("breaking out of the loop releases the body", async () => {
    const [events] = await grab("GET /live", { responseType: "sse" });
    const live = await tapped(server.taps, 2);
    live.write("data: a\n\ndata: b\n\n");
    for await (const event of events!) {
      assertEquals(event.data, "a");
      break;
    }
    await live.cancelled;
    assertEquals(events!.error, null);
  });

  await t.step("cancel() releases the body and ends the loop", async () => {
    const [events] = await grab("GET /live", { responseType: "sse" });
    const live = await tapped(server.taps, 3);
    await events!.cancel();
    await live.cancelled;
    const seen = [];
    for await (const event of events!) seen.push(event);
    assertEquals(seen, []);
    assertEquals(events!.error, null);
  });

  await t.step(
    "the caller's signal ends a never-ending stream: kind abort",
    async () => {
      const controller = new AbortController();
      const [events] = await grab("GET /live", {
        responseType: "sse",
        signal: controller.signal,
      });
      const live = await tapped(server.taps, 4);
      live.write("data: first\n\n");
      const seen: string[] = [];
      for await (const { data } of events!) {
        seen.push(data);
        controller.abort();
      }
      assertEquals(seen, ["first"]);
      assertInstanceOf(events!.error, GrabTransportError);
      assertEquals(events!.error.kind, "abort");
      await live.cancelled;
    },
  );

  await t.step(
    "a connection broken off mid-event: the events before, then network",
    async () => {
      const [events] = await grab("GET /live", { responseType: "sse" });
      const live = await tapped(server.taps, 5);
      live.write("id: 1\ndata: whole\n\nid: 2\ndata: half");
      const seen: string[] = [];
      for await (const { data } of events!) {
        seen.push(data);
        live.fail();
      }
      assertEquals(seen, ["whole"]);
      assertEquals(events!.error?.kind, "network");
      // The id of the event cut off never became the last event id.
      assertEquals(events!.lastEventId, "1");
    },
  );

  await t.step(
    "an event over maxBodyBytes: the events before, then too-large",
    async () => {
      const [events] = await grab("GET /live", {
        responseType: "sse",
        maxBodyBytes: 64,
      });
      const live = await tapped(server.taps, 6);
      live.write("data: small\n\n");
      live.write(`data: ${"x".repeat(200)}`);
      const seen: string[] = [];
      for await (const { data } of events!) seen.push(data);
      assertEquals(seen, ["small"]);
      assertEquals(events!.error?.kind, "too-large");
      assertStringIncludes(
        events!.error!.message,
        "Cannot read the response: one event is over maxBodyBytes (64 bytes); raise maxBodyBytes: GET ",
      );
      await live.cancelled;
    },
  );

  await t.step(
    "an event passing maxBodyBytes by the LF of a split CRLF: too-large",
    async () => {
      // "data: a\r\n" is 9 bytes, sent as "data: a\r" then "\n".
      for (const [maxBodyBytes, kind] of [[8, "too-large"], [9, null]]) {
        const [events] = await grab("GET /crlf-split", {
          responseType: "sse",
          maxBodyBytes: maxBodyBytes as number,
        });
        for await (const _ of events!) { /* no event is ended */ }
        assertEquals(events!.error?.kind ?? null, kind, `${maxBodyBytes}`);
      }
    },
  );

  await t.step(
    "data that fails the schema ends the stream: kind schema",
    async () => {
      const [events] = await grab("GET /live", {
        responseType: "sse",
        schema: NUMBERS,
      });
      const live = await tapped(server.taps, 7);
      live.write('data: 1\n\ndata: "two"\n\ndata: 3\n\n');
      const seen: number[] = [];
      for await (const { data } of events!) seen.push(data);
      assertEquals(seen, [1]);
      assertEquals(events!.error?.kind, "schema");
      assertEquals(events!.error?.issues, [{ message: "not a number" }]);
      await live.cancelled;
    },
  );

  await t.step("data that is not JSON, with a schema: kind parse", async () => {
    const schema = {
      "~standard": {
        version: 1 as const,
        vendor: "test",
        validate: (value: unknown) => ({ value }),
      },
    };
    const [events] = await grab("GET /chat", { responseType: "sse", schema });
    const seen: unknown[] = [];
    for await (const { data } of events!) seen.push(data);
    assertEquals(seen.length, 2);
    assertEquals(events!.error?.kind, "parse");
    // The chat stream ends with "[DONE]": the message says what it is.
    assertStringIncludes(
      events!.error!.message,
      `(an event's data, "[DONE]", the end sentinel of an OpenAI-style stream, which no schema takes: read such a stream without one and stop at it)`,
    );
  });

  await t.step(
    "204 gives null; an error status is a GrabError as before",
    async () => {
      const [none, noError] = await grab("GET /empty", { responseType: "sse" });
      assertEquals([none, noError], [null, null]);
      const [data, error] = await grab("GET /missing", { responseType: "sse" });
      assertEquals(data, null);
      assertInstanceOf(error, GrabError);
      assertEquals(error.statusCode, 404);
      assertEquals(error.body, { message: "no stream" });
    },
  );

  await t.step(
    "an abort between the head and the stream settles as abort",
    async () => {
      const controller = new AbortController();
      const [events, error] = await grab("GET /chat", {
        responseType: "sse",
        signal: controller.signal,
        hooks: {
          afterResponse: () => queueMicrotask(() => controller.abort()),
        },
      });
      assertEquals(events, null);
      assertInstanceOf(error, GrabTransportError);
      assertEquals(error.kind, "abort");
    },
  );

  await t.step("download progress counts the stream's bytes", async () => {
    const seen: number[] = [];
    const [events] = await grab("GET /chat", {
      responseType: "sse",
      onDownloadProgress: ({ loaded }) => void seen.push(loaded),
    });
    for await (const _ of events!) { /* read to the end */ }
    assert(seen.length >= 1);
    assertEquals(
      seen.at(-1),
      new TextEncoder().encode(CHAT.join("")).byteLength,
    );
  });
});

Deno.test("lastEventId counts only the events the loop was given", async (t) => {
  const BODY = "id: 1\ndata: 1\n\nid: 2\ndata: 2\n\nid: 3\n\n";
  await using server = startServer(() => new Response(BODY, { headers: SSE }));
  const grab = createGrab(server.url);

  await t.step(
    "the caller's signal ends it after the first event",
    async () => {
      const controller = new AbortController();
      const [events] = await grab("GET /e", {
        responseType: "sse",
        signal: controller.signal,
      });
      const seen: string[] = [];
      for await (const { data } of events!) {
        seen.push(data);
        controller.abort();
      }
      assertEquals(seen, ["1"]);
      assertEquals(events!.error?.kind, "abort");
      // Event 2 was parsed but never given: a resume must ask for it again.
      assertEquals(events!.lastEventId, "1");
    },
  );

  await t.step("a break after the first event", async () => {
    const [events] = await grab("GET /e", { responseType: "sse" });
    for await (const _ of events!) break;
    assertEquals(events!.lastEventId, "1");
  });

  await t.step("the schema refuses the second event", async () => {
    const ONE = {
      "~standard": {
        version: 1 as const,
        vendor: "test",
        validate: (value: unknown) =>
          value === 1 ? { value } : { issues: [{ message: "not 1" }] },
      },
    };
    const [events] = await grab("GET /e", { responseType: "sse", schema: ONE });
    const seen: unknown[] = [];
    for await (const { data } of events!) seen.push(data);
    assertEquals(seen, [1]);
    assertEquals(events!.error?.kind, "schema");
    assertEquals(events!.lastEventId, "1");
  });

  await t.step("read to the end, an id with no data counts", async () => {
    const [events] = await grab("GET /e", { responseType: "sse" });
    const seen: string[] = [];
    for await (const { data } of events!) {
      seen.push(data);
      assertEquals(events!.lastEventId, data);
    }
    assertEquals(seen, ["1", "2"]);
    assertEquals(events!.lastEventId, "3");
  });
});

Deno.test("a 2xx the server labels as other than an event stream fails at the head as kind parse", async () => {
  const completion = '{"choices":[{"message":{"content":"Hello"}}]}';
  const cancelled: Promise<void>[] = [];
  // Each body goes on for a million chunks (tens of megabytes, more than
  // a socket's buffers hold): one let go at its head is cancelled.
  const labelled = (type: string | undefined, text: string) => () => {
    const { promise, resolve } = Promise.withResolvers<void>();
    cancelled.push(promise);
    let chunks = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (++chunks > 1_000_000) return controller.close();
        controller.enqueue(new TextEncoder().encode(text));
      },
      cancel: () => resolve(),
    });
    const response = new Response(body);
    if (type !== undefined) response.headers.set("content-type", type);
    return response;
  };
  await using server = startServer({
    // A chat API that streams only when asked answers one JSON body.
    "/json": labelled("application/json", completion),
    "/login": labelled("text/html; charset=utf-8", "<html>Sign in</html>"),
    // Labelled as the standard writes it, in any case, or not at all.
    "/cased": labelled(" Text/Event-Stream ;charset=utf-8", "data: a\n\n"),
    "/unlabelled": labelled(undefined, "data: b\n\n"),
  });
  const grab = createGrab(server.url, { responseType: "sse", retry: 0 });
  for (
    const [path, type] of [["/json", "application/json"], [
      "/login",
      "text/html; charset=utf-8",
    ]] as const
  ) {
    const [stream, error, meta] = await grab(`GET ${path}`);
    await stream?.cancel();
    assertEquals(stream, null);
    assertEquals(meta, { statusCode: 0 });
    assertInstanceOf(error, GrabTransportError);
    assertEquals(error.kind, "parse");
    assertEquals(
      error.message,
      `Cannot read Server-Sent Events: the 200 response is "${type}", not "text/event-stream" (a server that streams only when asked answers with one body); read it with responseType "text" to see what the server sent: GET ${server.url}${path}`,
    );
  }
  // Each body was let go.
  assertEquals(cancelled.length, 2);
  await Promise.all(cancelled);
  for (
    const [path, data] of [["/cased", "a"], ["/unlabelled", "b"]] as const
  ) {
    const [stream, error] = await grab(`GET ${path}`);
    assertEquals(error, null);
    for await (const event of stream!) {
      assertEquals(event.data, data);
      break;
    }
  }
});
