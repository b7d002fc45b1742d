/**
 * Promises of the request path that no other test held: each test here
 * fails when one line of the code that keeps the promise is changed (a
 * comparison flipped, a `!` dropped, an index moved).
 *
 * @module
 */

import {
  assertEquals,
  assertInstanceOf,
  assertStringIncludes,
} from "@std/assert";
import createGrab, { GrabTransportError } from "../mod.ts";
import { startServer } from "./_server.ts";
import { assertOk, assertTransport, settles } from "./_bounds.ts";

Deno.test("a JSON grab tells an event stream by the last media type of a Content-Type given twice", async (t) => {
  await using server = startServer((request) => {
    const headers = new Headers();
    for (const type of new URL(request.url).searchParams.getAll("type")) {
      headers.append("content-type", type);
    }
    // No declared length: only such a body may never end.
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("data: hi\n\n"));
        controller.close();
      },
    });
    return new Response(body, { headers });
  });
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  const messageOf = async (types: string[]) => {
    const query = new URLSearchParams(types.map((type) => ["type", type]));
    const [data, error] = await settles(grab(`GET /events?${query}`));
    assertEquals(data, null);
    assertInstanceOf(error, GrabTransportError);
    assertEquals(error.kind, "parse");
    return error.message;
  };
  const cases: [string[], string][] = [
    [["text/html", "text/event-stream"], "is an event stream"],
    [["text/event-stream", "*/*"], "is an event stream"],
    [["text/event-stream", "text/html"], "is not valid JSON"],
  ];
  for (const [types, says] of cases) {
    await t.step(`${types.join(", ")}: "${says}"`, async () => {
      assertStringIncludes(await messageOf(types), says);
    });
  }
});

Deno.test("bytes sent after a header function is waited for are the bytes the grab was given", async () => {
  await using server = startServer((_request, seen) => new Response(seen.body));
  const bytes = new TextEncoder().encode("before");
  const grab = createGrab(server.url, {
    retry: 0,
    timeout: 10_000,
    responseType: "text",
    headers: () => {
      // The caller reuses its buffer once the grab has begun.
      bytes.set(new TextEncoder().encode("after!"));
      return Promise.resolve({ "x-from": "function" });
    },
  });
  const sent = assertOk(await settles(grab("POST /echo", { body: bytes })));
  assertEquals(sent, "before");
  assertEquals(server.requests[0]!.headers.get("x-from"), "function");
});

Deno.test("bytes sent again by the one retry allowed are the bytes the grab was given", async () => {
  const bytes = new TextEncoder().encode("before");
  await using server = startServer((_request, seen) => {
    if (server.requests.length > 1) return new Response(seen.body);
    // The caller reuses its buffer once the first attempt is answered.
    bytes.set(new TextEncoder().encode("after!"));
    return new Response("busy", { status: 503 });
  });
  const grab = createGrab(server.url, {
    retry: { limit: 1, methods: ["PUT"], backoff: () => 0 },
    timeout: 10_000,
    responseType: "text",
  });
  const sent = assertOk(await settles(grab("PUT /echo", { body: bytes })));
  assertEquals(sent, "before");
  assertEquals(server.requests.map((seen) => seen.body), ["before", "before"]);
});

Deno.test("a custom fetch that ignores the signal is still held to the timeout", async () => {
  // A server that accepts and never answers.
  using listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })();
  const deaf: typeof fetch = (input, init) =>
    fetch(input, { ...init, signal: null });
  const grab = createGrab(`http://127.0.0.1:${listener.addr.port}`, {
    retry: 0,
    timeout: 200,
    fetch: deaf,
  });
  try {
    assertTransport(await settles(grab("GET /never")), "timeout");
  } finally {
    // Ends the request the wrapper left going.
    for (const conn of held) conn.close();
    listener.close();
    await accepting.catch(() => {});
  }
});
