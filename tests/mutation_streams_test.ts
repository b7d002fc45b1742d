/**
 * Promises of live bodies that no other test held: each test here fails
 * when the line that keeps its promise is changed.
 *
 * @module
 */

import { assert, assertEquals, assertRejects } from "@std/assert";
import createGrab, { type ServerSentEvent } from "../mod.ts";
import { settles } from "./_bounds.ts";
import { head503, retriedAfter } from "./_keepalive.ts";
import { watchedSource } from "./_streams.ts";
import { head, startFaultServer, untilClosed, write } from "./_faults.ts";

/** A server that answers at once with `body`, never reading the request's. */
function answering(headers: HeadersInit, body: string) {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(body, { headers }),
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test("a streamed upload whose answer is events is let go of once the events end", async () => {
  // A raw server that answers at once, never reads the upload and holds the
  // connection until the client closes it.
  const events = "data: a\n\ndata: b\n\n";
  await using server = startFaultServer(async (conn) => {
    await write(
      conn,
      head("200 OK", {
        "content-type": "text/event-stream",
        "content-length": String(events.length),
      }) + events,
    );
    await untilClosed(conn);
  });
  const grab = createGrab(server.url);
  // A source that never ends.
  const source = watchedSource();
  const [stream, error] = await grab("POST /events", {
    body: source.body,
    responseType: "sse",
  });
  assertEquals(error, null);
  const data: string[] = [];
  for await (const event of stream!) data.push(event.data);
  assertEquals(data, ["a", "b"]);
  assertEquals(stream!.error, null);
  await settles(source.cancelled, "the source's cancel");
  assert(source.isCancelled);
});

Deno.test("an event stream whose Content-Type names no media type is read as events", async () => {
  for (const type of ["", "; charset=utf-8"]) {
    await using server = answering({ "content-type": type }, "data: a\n\n");
    const grab = createGrab(server.url);
    const [events, error] = await grab("GET /events", { responseType: "sse" });
    assertEquals(error, null, `Content-Type "${type}"`);
    const seen: ServerSentEvent[] = [];
    for await (const event of events!) seen.push(event);
    assertEquals(seen.map((event) => event.data), ["a"]);
  }
});

Deno.test("cancelling a body that is an async iterable returns its iterator", async () => {
  await using server = answering({}, "0123456789");
  let returned = false;
  const grab = createGrab(server.url, {
    // A node-fetch-like response behind a real request: its body is an
    // async iterable of bytes, not a ReadableStream.
    fetch: async (input, init) => {
      const real = await fetch(input, init);
      const reader = real.body!.getReader();
      async function* chunks() {
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return;
            yield value;
          }
        } finally {
          returned = true;
          await reader.cancel().catch(() => {});
        }
      }
      return {
        status: real.status,
        headers: real.headers,
        body: chunks(),
      } as unknown as Response;
    },
  });
  const [stream, error] = await grab("GET /bytes", { responseType: "stream" });
  assertEquals(error, null);
  const reader = stream!.getReader();
  const first = await reader.read();
  assertEquals(first.done, false);
  await reader.cancel();
  assert(returned);
});

Deno.test("an item whose schema check outlasts the caller's signal ends the stream with abort", async () => {
  await using server = answering(
    { "content-type": "application/x-ndjson" },
    '{"n":1}\n{"n":2}\n',
  );
  const grab = createGrab(server.url);
  const controller = new AbortController();
  const schema = {
    "~standard": {
      version: 1 as const,
      vendor: "test",
      // The caller gives up while its validator still runs.
      validate: () => {
        controller.abort(new Error("gave up"));
        return new Promise<never>(() => {});
      },
    },
  };
  const [stream, error] = await grab("GET /lines", {
    responseType: "ndjson",
    schema,
    signal: controller.signal,
  });
  assertEquals(error, null);
  const items: unknown[] = [];
  for await (const item of stream!) items.push(item);
  assertEquals(items, []);
  assertEquals(stream!.error?.kind, "abort");
});

Deno.test("a live body read to its end lets go of attemptTimeout's timer", async () => {
  // The end comes in a read of its own, after every line was served.
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => {
      const { readable, writable } = new TransformStream<Uint8Array>();
      const writer = writable.getWriter();
      void (async () => {
        await writer.write(new TextEncoder().encode('{"n":1}\n'));
        await writer.close();
      })().catch(() => {});
      return new Response(readable, {
        headers: { "content-type": "application/x-ndjson" },
      });
    },
  );
  try {
    const grab = createGrab(`http://127.0.0.1:${server.addr.port}`);
    const [stream, error] = await grab("GET /lines", {
      responseType: "ndjson",
      attemptTimeout: 60_000,
    });
    assertEquals(error, null);
    const items: unknown[] = [];
    for await (const item of stream!) items.push(item);
    assertEquals(items, [{ n: 1 }]);
    assertEquals(stream!.error, null);
  } finally {
    await server.shutdown();
  }
  // The op sanitizer fails the test if the 60 s timer is still set.
});

Deno.test("what a progress callback throws reaches the loop of a live body as it is", async () => {
  await using server = answering(
    { "content-type": "application/x-ndjson" },
    '{"n":1}\n',
  );
  const grab = createGrab(server.url);
  const mine = new Error("mine");
  const [stream, error] = await grab("GET /lines", {
    responseType: "ndjson",
    onDownloadProgress: () => {
      throw mine;
    },
  });
  assertEquals(error, null);
  const thrown = await assertRejects(async () => {
    for await (const _ of stream!) { /* read on */ }
  });
  assert(thrown === mine);
  assertEquals(stream!.error, null);
});

/**
 * The connections a grab retried after a 503 of `body` took; the server
 * keeps the first: only the client closes it.
 */
async function connectionsAfter503(
  body: Uint8Array,
  headers = "",
): Promise<number> {
  const { data, error, connections } = await retriedAfter(async (conn) => {
    const head = head503(`${headers}content-length: ${body.byteLength}\r\n`);
    await write(conn, new Uint8Array([...encoder.encode(head), ...body]))
      .catch(() => {});
    return true;
  });
  assertEquals(error, null);
  assertEquals(data, [1]);
  return connections;
}

const encoder = new TextEncoder();

Deno.test("a retried answer of exactly 64 KiB is read to its end and its connection kept", async () => {
  assertEquals(await connectionsAfter503(new Uint8Array(65_536)), 1);
});

Deno.test("a retried answer one byte past 64 KiB is cancelled, not read", async () => {
  assertEquals(await connectionsAfter503(new Uint8Array(65_537)), 2);
});

Deno.test("a retried answer that decodes past 64 KiB is cancelled", async () => {
  const zipped = new Uint8Array(
    await new Response(
      new Blob([new Uint8Array(1024 * 1024)]).stream()
        .pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer(),
  );
  // All of it came in one read, so the connection may serve the retry
  // either way: the resource sanitizer fails the test if the body was left
  // open.
  await connectionsAfter503(zipped, "content-encoding: gzip\r\n");
});
