/**
 * Promises of live bodies that no other test held: each test here fails
 * when the line that keeps its promise is changed.
 *
 * @module
 */

import { assert, assertEquals, assertRejects } from "@std/assert";
import createGrab, { type ServerSentEvent } from "../mod.ts";
import { settles } from "./_bounds.ts";
import { reply, startKeepAliveServer } from "./_keepalive.ts";
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

Deno.test("a retried answer of exactly 64 KiB is read to its end and its connection kept", async () => {
  let calls = 0;
  await using server = startKeepAliveServer((conn, request) =>
    ++calls === 1
      ? reply(conn, request, "503 Service Unavailable", {}, "x".repeat(65_536))
      : reply(conn, request, "200 OK", { "content-type": "text/plain" }, "ok")
  );
  const grab = createGrab(server.url, {
    retry: { limit: 1, backoff: () => 0 },
  });
  const [data, error] = await grab("GET /x", { responseType: "text" });
  assertEquals(error, null);
  assertEquals(data, "ok");
  assertEquals(calls, 2);
  assertEquals(server.connections, 1);
});

Deno.test("a retried answer one byte past 64 KiB is cancelled, not read", async () => {
  let calls = 0;
  await using server = startKeepAliveServer(async (conn, request) => {
    if (++calls > 1) {
      return await reply(conn, request, "200 OK", {}, "ok");
    }
    await reply(
      conn,
      request,
      "503 Service Unavailable",
      {},
      "x".repeat(65_537),
    )
      .catch(() => {});
    // Kept: only the client closes it.
    return true;
  });
  const grab = createGrab(server.url, {
    retry: { limit: 1, backoff: () => 0 },
  });
  const [data, error] = await grab("GET /x", { responseType: "text" });
  assertEquals(error, null);
  assertEquals(data, "ok");
  assertEquals(server.requests.map((seen) => seen.connection), [1, 2]);
});

Deno.test("a retried answer that decodes past 64 KiB is cancelled", async () => {
  const zipped = new Uint8Array(
    await new Response(
      new Blob([new Uint8Array(1024 * 1024)]).stream()
        .pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer(),
  );
  let calls = 0;
  await using server = startKeepAliveServer(async (conn, request) => {
    if (++calls > 1) {
      return await reply(conn, request, "200 OK", {}, "ok");
    }
    const head = "HTTP/1.1 503 Service Unavailable\r\n" +
      `content-encoding: gzip\r\ncontent-length: ${zipped.byteLength}\r\n\r\n`;
    const bytes = new Uint8Array([
      ...new TextEncoder().encode(head),
      ...zipped,
    ]);
    await conn.write(bytes).catch(() => {});
    return true;
  });
  const grab = createGrab(server.url, {
    retry: { limit: 1, backoff: () => 0 },
  });
  const [data, error] = await grab("GET /x", { responseType: "text" });
  assertEquals(error, null);
  assertEquals(data, "ok");
  assertEquals(calls, 2);
  // The resource sanitizer fails the test if the first body was left open.
});
