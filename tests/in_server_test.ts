/**
 * grab inside a `Deno.serve` handler: a front server that calls an upstream
 * API for each of its own requests, as a backend-for-frontend or a proxy
 * does, and clients that call the front and leave mid-answer.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import createGrab from "../mod.ts";
import type { GrabResult } from "../mod.ts";

/** Real milliseconds a wait may take before the test fails instead. */
const BOUND_MS = 10_000;

/** `promise`, or a failure naming `what` after {@linkcode BOUND_MS}. */
async function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`Waited ${BOUND_MS} ms for ${what}`)),
      BOUND_MS,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A promise and its resolver. */
function later<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Serves `handler` on 127.0.0.1 and a free port. */
function serve(handler: Deno.ServeHandler) {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    handler,
  );
  return {
    server,
    port: server.addr.port,
    url: `http://127.0.0.1:${server.addr.port}`,
  };
}

const encoder = new TextEncoder();

/** Sends `head` on a raw connection, reads `bytes` of the answer, then closes it. */
async function leaveAfter(
  port: number,
  head: string,
  bytes: number,
  sent?: () => Promise<void>,
): Promise<void> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await conn.write(encoder.encode(head));
    await sent?.();
    const buffer = new Uint8Array(1024);
    let read = 0;
    while (read < bytes) {
      const n = await conn.read(buffer);
      if (n === null) break;
      read += n;
    }
  } finally {
    conn.close();
  }
}

Deno.test("in a handler, a client that leaves before the upstream answers ends the grab as abort and the upstream request", async () => {
  const upstreamAborted = later();
  const upstreamReached = later();
  const upstream = serve((request) => {
    upstreamReached.resolve();
    request.signal.addEventListener("abort", () => upstreamAborted.resolve());
    return new Promise<Response>((resolve) => {
      request.signal.addEventListener(
        "abort",
        () => resolve(new Response(null)),
      );
    });
  });
  const grab = createGrab(upstream.url, { retry: 0 });
  const settled = later<GrabResult<unknown>>();
  const front = serve(async (request) => {
    const result = await grab("GET /slow", { signal: request.signal });
    settled.resolve(result);
    return new Response("done");
  });
  try {
    await leaveAfter(
      front.port,
      "GET / HTTP/1.1\r\nhost: x\r\n\r\n",
      0,
      () => upstreamReached.promise,
    );
    const [data, error] = await within(settled.promise, "the grab to settle");
    assertEquals(data, null);
    assertEquals(error?.name, "GrabTransportError");
    assertEquals((error as { kind?: string }).kind, "abort");
    await within(upstreamAborted.promise, "the upstream to see the abort");
  } finally {
    await front.server.shutdown();
    await upstream.server.shutdown();
  }
});

Deno.test("a stream body re-served by a handler is cancelled upstream when the client leaves mid-body", async () => {
  const cancelled = later();
  let sent = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const upstream = serve(() =>
    new Response(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          sent += 1;
          controller.enqueue(new Uint8Array(1024).fill(97));
          // A live body: one piece a turn, never ending by itself.
          return new Promise((resolve) => (timer = setTimeout(resolve, 5)));
        },
        cancel() {
          clearTimeout(timer);
          cancelled.resolve();
        },
      }),
    )
  );
  const grab = createGrab(upstream.url, { retry: 0 });
  const front = serve(async (request) => {
    const [body, error] = await grab("GET /live", {
      responseType: "stream",
      signal: request.signal,
    });
    if (error) return new Response(null, { status: 502 });
    return new Response(body);
  });
  try {
    await leaveAfter(front.port, "GET / HTTP/1.1\r\nhost: x\r\n\r\n", 4096);
    await within(cancelled.promise, "the upstream body to be cancelled");
    assert(sent > 0);
  } finally {
    await front.server.shutdown();
    await upstream.server.shutdown();
  }
});

Deno.test("a stream body re-served to a client that does not read is pulled from upstream only as the client reads", async () => {
  const total = 256 * 1024 * 1024;
  const piece = new Uint8Array(64 * 1024).fill(98);
  let sent = 0;
  const upstream = serve(() =>
    new Response(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= total) return controller.close();
          sent += piece.byteLength;
          controller.enqueue(piece);
        },
      }, { highWaterMark: 0 }),
      { headers: { "content-length": String(total) } },
    )
  );
  const grab = createGrab(upstream.url, { retry: 0 });
  const front = serve(async (request) => {
    const [body, error] = await grab("GET /big", {
      responseType: "stream",
      signal: request.signal,
    });
    if (error) return new Response(null, { status: 502 });
    return new Response(body);
  });
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: front.port });
  try {
    await conn.write(encoder.encode("GET / HTTP/1.1\r\nhost: x\r\n\r\n"));
    const buffer = new Uint8Array(1024);
    assert((await conn.read(buffer)) !== null);
    // The client reads nothing more: let the pipes fill, counted in pieces
    // the upstream sent, until the count stops growing for a while.
    let last = -1;
    for (let i = 0; i < 400 && sent !== last; i++) {
      last = sent;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Socket buffers hold some megabytes; the body is 256 MiB.
    assert(
      sent < 64 * 1024 * 1024,
      `the upstream sent ${sent} bytes to a client that read 1 KiB`,
    );
  } finally {
    conn.close();
    await front.server.shutdown();
    await upstream.server.shutdown();
  }
});

Deno.test("a request body passed on as a stream reaches the upstream whole, with and without Content-Length", async () => {
  const upstream = serve(async (request) => {
    const text = await request.text();
    return Response.json({ length: text.length });
  });
  const grab = createGrab(upstream.url, { retry: 0 });
  const front = serve(async (request) => {
    const [data, error] = await grab("POST /upload", {
      body: request.body!,
      headers: { "content-type": "text/plain" },
      signal: request.signal,
    });
    if (error) return new Response(String(error), { status: 502 });
    return Response.json(data);
  });
  try {
    const sized = await fetch(front.url, {
      method: "POST",
      body: "x".repeat(100_000),
    });
    assertEquals(await sized.json(), { length: 100_000 });
    const chunked = await fetch(front.url, {
      method: "POST",
      body: ReadableStream.from([encoder.encode("ab"), encoder.encode("cd")]),
    });
    assertEquals(await chunked.json(), { length: 4 });
  } finally {
    await front.server.shutdown();
    await upstream.server.shutdown();
  }
});

Deno.test("a client that leaves mid-upload ends the grab that passes its body on, and the upstream sees the body break off", async () => {
  const upstreamFailed = later();
  const upstreamReached = later();
  const upstream = serve(async (request) => {
    upstreamReached.resolve();
    try {
      await request.arrayBuffer();
    } catch {
      upstreamFailed.resolve();
    }
    return new Response(null);
  });
  const grab = createGrab(upstream.url, { retry: 0 });
  const settled = later<GrabResult<unknown>>();
  const front = serve(async (request) => {
    const result = await grab("POST /upload", {
      body: request.body!,
      signal: request.signal,
    });
    settled.resolve(result);
    return new Response(null);
  });
  try {
    await leaveAfter(
      front.port,
      "POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 100000\r\n\r\nabc",
      0,
      () => upstreamReached.promise,
    );
    const [data, error] = await within(settled.promise, "the grab to settle");
    assertEquals(data, null);
    assertEquals(error?.name, "GrabTransportError");
    await within(upstreamFailed.promise, "the upstream to see the cut body");
  } finally {
    await front.server.shutdown();
    await upstream.server.shutdown();
  }
});

Deno.test("200 concurrent front requests each grab through one factory", async () => {
  const upstream = serve((request) =>
    Response.json({ path: new URL(request.url).pathname })
  );
  const grab = createGrab(upstream.url, { retry: 0 });
  const front = serve(async (request) => {
    const id = new URL(request.url).searchParams.get("id")!;
    const [data, error] = await grab<{ path: string }>("GET /items/:id", {
      params: { id },
      signal: request.signal,
    });
    if (error) return new Response(String(error), { status: 502 });
    return Response.json(data);
  });
  try {
    const answers = await within(
      Promise.all(
        Array.from({ length: 200 }, async (_, i) => {
          const response = await fetch(`${front.url}/?id=${i}`);
          return await response.json();
        }),
      ),
      "200 answers",
    );
    answers.forEach((answer, i) =>
      assertEquals(answer, { path: `/items/${i}` })
    );
  } finally {
    await front.server.shutdown();
    await upstream.server.shutdown();
  }
});

Deno.test("meta.headers of a gzip answer are the head as sent, and the README's proxy passes them on readable", async () => {
  const body = JSON.stringify({ hello: "world".repeat(100) });
  const gzipped = new Uint8Array(
    await new Response(
      new Blob([body]).stream().pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer(),
  );
  const upstream = serve(() =>
    new Response(gzipped, {
      headers: {
        "content-type": "application/json",
        "content-encoding": "gzip",
        "content-length": String(gzipped.byteLength),
      },
    })
  );
  const grab = createGrab(upstream.url, { retry: 0 });
  const seen: (string | null)[] = [];
  // The README's proxy of a stream, as written there.
  const front = serve(async (request) => {
    const [data, error, meta] = await grab("GET /report", {
      responseType: "stream",
      signal: request.signal,
    });
    if (error) return new Response(null, { status: 502 });
    seen.push(
      meta.headers.get("content-encoding"),
      meta.headers.get("content-length"),
    );
    const headers = new Headers(meta.headers);
    headers.delete("content-encoding"); // the body is decoded
    headers.delete("content-length"); // the compressed length
    return new Response(data, { status: meta.statusCode, headers });
  });
  try {
    const response = await fetch(front.url);
    assertEquals(await response.json(), JSON.parse(body));
    assertEquals(seen, ["gzip", String(gzipped.byteLength)]);
  } finally {
    await front.server.shutdown();
    await upstream.server.shutdown();
  }
});

/** An upstream body the test writes and breaks; resolves `cancelled` when its reader lets go. */
function tapBody() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const cancelled = later();
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      cancelled.resolve();
    },
  });
  return {
    body,
    cancelled: cancelled.promise,
    write: (text: string) => controller.enqueue(encoder.encode(text)),
    fail: () => controller.error(new Error("the upstream breaks off")),
  };
}

Deno.test("a stream body re-served by a handler that breaks off upstream breaks off for the client too", async () => {
  const tap = tapBody();
  const upstream = serve(() => new Response(tap.body));
  const grab = createGrab(upstream.url, { retry: 0 });
  const front = serve(async (request) => {
    const [body, error] = await grab("GET /live", {
      responseType: "stream",
      signal: request.signal,
    });
    if (error) return new Response(null, { status: 502 });
    return new Response(body);
  });
  try {
    const response = await fetch(front.url);
    const reader = response.body!.getReader();
    tap.write("first");
    assertEquals(
      new TextDecoder().decode((await reader.read()).value),
      "first",
    );
    tap.fail();
    let failed = false;
    try {
      while (!(await within(reader.read(), "the client's read")).done);
    } catch {
      failed = true;
    }
    assert(failed, "the client saw a clean end of a body that broke off");
  } finally {
    await front.server.shutdown();
    await upstream.server.shutdown();
  }
});

for (const signal of [true, false]) {
  Deno.test(`a quiet upstream stream re-served by a handler is cancelled when the client leaves (${signal ? "with" : "without"} request.signal)`, async () => {
    const tap = tapBody();
    const upstream = serve(() => new Response(tap.body));
    const grab = createGrab(upstream.url, { retry: 0 });
    const front = serve(async (request) => {
      const [body, error] = await grab("GET /live", {
        responseType: "stream",
        ...signal ? { signal: request.signal } : {},
      });
      if (error) return new Response(null, { status: 502 });
      return new Response(body);
    });
    try {
      const response = await fetch(front.url);
      const reader = response.body!.getReader();
      tap.write("first");
      await reader.read();
      await reader.cancel();
      await within(tap.cancelled, "the upstream body to be cancelled");
    } finally {
      await front.server.shutdown();
      await upstream.server.shutdown();
    }
  });
}

Deno.test("an SSE relay built with ReadableStream.from and request.signal ends the upstream when the client leaves during a quiet spell", async () => {
  const tap = tapBody();
  const upstream = serve(() =>
    new Response(tap.body, {
      headers: { "content-type": "text/event-stream" },
    })
  );
  const grab = createGrab(upstream.url, { retry: 0 });
  const front = serve(async (request) => {
    const [events, error] = await grab("GET /events", {
      responseType: "sse",
      signal: request.signal,
    });
    if (error || events === null) return new Response(null, { status: 502 });
    const body = ReadableStream.from(
      (async function* () {
        for await (const event of events) {
          yield encoder.encode(`data: ${event.data}\n\n`);
        }
      })(),
    );
    return new Response(body, {
      headers: { "content-type": "text/event-stream" },
    });
  });
  try {
    const response = await fetch(front.url);
    const reader = response.body!.getReader();
    tap.write("data: one\n\n");
    await reader.read();
    await reader.cancel();
    await within(tap.cancelled, "the upstream body to be cancelled");
  } finally {
    await front.server.shutdown();
    await upstream.server.shutdown();
  }
});

Deno.test("a client that leaves while the upstream JSON body is read ends the grab as abort", async () => {
  const tap = tapBody();
  const upstreamReached = later();
  const upstream = serve(() => {
    upstreamReached.resolve();
    return new Response(tap.body, {
      headers: { "content-type": "application/json" },
    });
  });
  const grab = createGrab(upstream.url, { retry: 0 });
  const settled = later<GrabResult<unknown>>();
  const front = serve(async (request) => {
    const result = await grab("GET /json", { signal: request.signal });
    settled.resolve(result);
    return new Response(null);
  });
  try {
    await leaveAfter(
      front.port,
      "GET / HTTP/1.1\r\nhost: x\r\n\r\n",
      0,
      async () => {
        await upstreamReached.promise;
        tap.write('{"a": [1, ');
        await new Promise((resolve) => setTimeout(resolve, 20));
      },
    );
    const [, error] = await within(settled.promise, "the grab to settle");
    assertEquals((error as { kind?: string } | null)?.kind, "abort");
    await within(tap.cancelled, "the upstream body to be cancelled");
  } finally {
    await front.server.shutdown();
    await upstream.server.shutdown();
  }
});

Deno.test("a PUT passing request.body on is not retried after a 503 and gives the 503", async () => {
  let calls = 0;
  const upstream = serve(async (request) => {
    calls += 1;
    await request.text();
    return new Response("busy", { status: 503 });
  });
  const grab = createGrab(upstream.url, {
    retry: { limit: 2, backoff: () => 0 },
  });
  const front = serve(async (request) => {
    const [, error] = await grab("PUT /thing", {
      body: request.body!,
      signal: request.signal,
    });
    return Response.json({
      name: error?.name,
      status: (error as { statusCode?: number } | null)?.statusCode,
    });
  });
  try {
    const response = await fetch(front.url, { method: "PUT", body: "hello" });
    assertEquals(await response.json(), {
      name: "GrabError",
      status: 503,
    });
    assertEquals(calls, 1);
  } finally {
    await front.server.shutdown();
    await upstream.server.shutdown();
  }
});

Deno.test("upstream hop-by-hop headers copied from meta.headers into a streamed Response frame the answer right", async () => {
  const upstream = serve(() =>
    new Response(
      ReadableStream.from([encoder.encode("ab"), encoder.encode("cd")]),
      {
        headers: {
          connection: "keep-alive",
          "keep-alive": "timeout=5",
        },
      },
    )
  );
  const grab = createGrab(upstream.url, { retry: 0 });
  const front = serve(async (request) => {
    const [body, error, meta] = await grab("GET /x", {
      responseType: "stream",
      signal: request.signal,
    });
    if (error) return new Response(null, { status: 502 });
    return new Response(body, { headers: meta.headers });
  });
  try {
    const response = await fetch(front.url);
    assertEquals(await response.text(), "abcd");
    const again = await fetch(front.url);
    assertEquals(await again.text(), "abcd");
  } finally {
    await front.server.shutdown();
    await upstream.server.shutdown();
  }
});

Deno.test("a client that leaves while the grab waits out a Retry-After ends the grab as abort, not as the server's answer", async () => {
  let calls = 0;
  const upstream = serve(() => {
    calls += 1;
    return new Response("busy", {
      status: 503,
      headers: { "retry-after": "8" },
    });
  });
  const grab = createGrab(upstream.url, {
    retry: { limit: 1, maxDelay: 60_000 },
    timeout: 60_000,
  });
  const settled = later<GrabResult<unknown>>();
  const reached = later();
  const front = serve(async (request) => {
    reached.resolve();
    const result = await grab("GET /busy", { signal: request.signal });
    settled.resolve(result);
    return new Response(null);
  });
  try {
    await leaveAfter(
      front.port,
      "GET / HTTP/1.1\r\nhost: x\r\n\r\n",
      0,
      async () => {
        await reached.promise;
        while (calls === 0) {
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      },
    );
    const [, error] = await within(settled.promise, "the grab to settle");
    assertEquals((error as { kind?: string } | null)?.kind, "abort");
    assertEquals(calls, 1);
  } finally {
    await front.server.shutdown();
    await upstream.server.shutdown();
  }
});

Deno.test("200 clients that leave mid-upstream-request end 200 grabs as abort and 200 upstream requests", async () => {
  const count = 200;
  let reached = 0;
  let aborted = 0;
  const allReached = later();
  const allAborted = later();
  const upstream = serve((request) => {
    if (++reached === count) allReached.resolve();
    return new Promise<Response>((resolve) => {
      request.signal.addEventListener("abort", () => {
        if (++aborted === count) allAborted.resolve();
        resolve(new Response(null));
      });
    });
  });
  const grab = createGrab(upstream.url, { retry: 0 });
  const kinds: string[] = [];
  const allSettled = later();
  const front = serve(async (request) => {
    const [, error] = await grab("GET /slow", { signal: request.signal });
    kinds.push((error as { kind?: string } | null)?.kind ?? "none");
    if (kinds.length === count) allSettled.resolve();
    return new Response(null);
  });
  const conns: Deno.TcpConn[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const conn = await Deno.connect({
        hostname: "127.0.0.1",
        port: front.port,
      });
      conns.push(conn);
      await conn.write(encoder.encode("GET / HTTP/1.1\r\nhost: x\r\n\r\n"));
    }
    await within(allReached.promise, "every upstream request");
    for (const conn of conns.splice(0)) conn.close();
    await within(allSettled.promise, "every grab to settle");
    assertEquals(kinds.filter((kind) => kind !== "abort"), []);
    await within(allAborted.promise, "every upstream request to end");
  } finally {
    for (const conn of conns) conn.close();
    await front.server.shutdown();
    await upstream.server.shutdown();
  }
});

Deno.test("an upstream that refuses a large upload at once gives the front its answer", async () => {
  const upstream = serve(() => new Response("too big", { status: 413 }));
  const grab = createGrab(upstream.url, { retry: 0 });
  const front = serve(async (request) => {
    const [, error] = await grab("POST /upload", {
      body: request.body!,
      signal: request.signal,
    });
    const status = (error as { statusCode?: number } | null)?.statusCode;
    return new Response(String(status ?? error?.name));
  });
  try {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 32 * 1024 * 1024) return controller.close();
        sent += 64 * 1024;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    const response = await within(
      fetch(front.url, { method: "POST", body }),
      "the front's answer",
    );
    assertEquals(await response.text(), "413");
  } finally {
    await front.server.shutdown();
    await upstream.server.shutdown();
  }
});

Deno.test("server.shutdown() while a grab is in flight lets it finish and answer", async () => {
  const release = later();
  const reached = later();
  const upstream = serve(async () => {
    reached.resolve();
    await release.promise;
    return Response.json({ ok: true });
  });
  const grab = createGrab(upstream.url, { retry: 0 });
  const front = serve(async (request) => {
    const [data, error] = await grab("GET /slow", { signal: request.signal });
    return Response.json({
      data,
      kind: (error as { kind?: string } | null)?.kind,
    });
  });
  try {
    const answer = fetch(front.url);
    await within(reached.promise, "the upstream request");
    const shutdown = front.server.shutdown();
    release.resolve();
    const response = await within(answer, "the front's answer");
    assertEquals(await response.json(), { data: { ok: true } });
    await within(shutdown, "the shutdown");
  } finally {
    release.resolve();
    await front.server.shutdown();
    await upstream.server.shutdown();
  }
});

for (const type of ["stream", "sse", "ndjson"] as const) {
  for (const bound of ["idleTimeout", "attemptTimeout", "none"] as const) {
    Deno.test(`a quiet ${type} body relayed with ReadableStream.from and ${bound} is cancelled upstream when the client leaves, leaving no timer`, async () => {
      const tap = tapBody();
      const upstream = serve(() =>
        new Response(tap.body, {
          headers: {
            "content-type": type === "sse"
              ? "text/event-stream"
              : "application/x-ndjson",
          },
        })
      );
      const grab = createGrab(upstream.url, { retry: 0 });
      const front = serve(async (request) => {
        const [data, error] = await grab("GET /live", {
          responseType: type,
          signal: request.signal,
          ...bound === "none" ? {} : { [bound]: 60_000 },
        });
        if (error || data === null) return new Response(null, { status: 502 });
        if (data instanceof ReadableStream) return new Response(data);
        const items = data as AsyncIterable<unknown>;
        const body = ReadableStream.from(items).pipeThrough(
          new TransformStream<unknown, Uint8Array>({
            transform: (item, controller) =>
              controller.enqueue(encoder.encode(`${JSON.stringify(item)}\n`)),
          }),
        );
        return new Response(body);
      });
      try {
        const response = await fetch(front.url);
        const reader = response.body!.getReader();
        tap.write(type === "sse" ? "data: 1\n\n" : "1\n");
        await reader.read();
        await reader.cancel();
        await within(tap.cancelled, "the upstream body to be cancelled");
      } finally {
        await front.server.shutdown();
        await upstream.server.shutdown();
      }
    });
  }
}

Deno.test("a grab given the signal of a client that already left sends nothing and ends as abort", async () => {
  let calls = 0;
  const upstream = serve(() => {
    calls += 1;
    return new Response(null);
  });
  const grab = createGrab(upstream.url, { retry: 0 });
  const settled = later<GrabResult<unknown>>();
  const reached = later();
  const front = serve(async (request) => {
    reached.resolve();
    if (!request.signal.aborted) {
      await new Promise((resolve) =>
        request.signal.addEventListener("abort", resolve, { once: true })
      );
    }
    const result = await grab("GET /x", { signal: request.signal });
    settled.resolve(result);
    return new Response(null);
  });
  try {
    await leaveAfter(
      front.port,
      "GET / HTTP/1.1\r\nhost: x\r\n\r\n",
      0,
      () => reached.promise,
    );
    const [, error] = await within(settled.promise, "the grab to settle");
    assertEquals((error as { kind?: string } | null)?.kind, "abort");
    assertEquals(calls, 0);
  } finally {
    await front.server.shutdown();
    await upstream.server.shutdown();
  }
});

Deno.test("200 SSE relays through one factory whose clients leave after one event cancel 200 upstream bodies", async () => {
  const count = 200;
  let cancelled = 0;
  const allCancelled = later();
  const upstream = serve(() =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode("data: hello\n\n"));
        },
        cancel() {
          if (++cancelled === count) allCancelled.resolve();
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    )
  );
  const grab = createGrab(upstream.url, { retry: 0 });
  const front = serve(async (request) => {
    const [events, error] = await grab("GET /events", {
      responseType: "sse",
      signal: request.signal,
      idleTimeout: 60_000,
    });
    if (error || events === null) return new Response(null, { status: 502 });
    const next = events[Symbol.asyncIterator]();
    return new Response(
      new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await next.next();
          if (done) return controller.close();
          controller.enqueue(encoder.encode(`data: ${value.data}\n\n`));
        },
        cancel: () => events.cancel(),
      }),
    );
  });
  try {
    await within(
      Promise.all(
        Array.from({ length: count }, async () => {
          const response = await fetch(front.url);
          const reader = response.body!.getReader();
          await reader.read();
          await reader.cancel();
        }),
      ),
      "every client's first event",
    );
    await within(allCancelled.promise, "every upstream body to be cancelled");
  } finally {
    await front.server.shutdown();
    await upstream.server.shutdown();
  }
});

for (const status of [500, 503, 404]) {
  Deno.test(`a client that leaves while a ${status} body is read ends the grab as that status, its body null, and cancels the upstream body`, async () => {
    const tap = tapBody();
    const upstreamReached = later();
    let calls = 0;
    const upstream = serve(() => {
      calls += 1;
      upstreamReached.resolve();
      return new Response(tap.body, {
        status,
        headers: { "content-type": "application/json" },
      });
    });
    const grab = createGrab(upstream.url, { retry: 0 });
    const settled = later<GrabResult<unknown>>();
    const front = serve(async (request) => {
      const result = await grab("GET /json", { signal: request.signal });
      settled.resolve(result);
      return new Response(null);
    });
    try {
      await leaveAfter(
        front.port,
        "GET / HTTP/1.1\r\nhost: x\r\n\r\n",
        0,
        async () => {
          await upstreamReached.promise;
          tap.write('{"error": ');
          await new Promise((resolve) => setTimeout(resolve, 20));
        },
      );
      const [, error] = await within(settled.promise, "the grab to settle");
      // Status beats the body (the contract): the abort is the cause.
      assertEquals(error?.name, "GrabError");
      assertEquals((error as { statusCode?: number }).statusCode, status);
      assertEquals((error as { body?: unknown }).body, null);
      assertEquals((error?.cause as { kind?: string }).kind, "abort");
      assertEquals(calls, 1);
      await within(tap.cancelled, "the upstream body to be cancelled");
    } finally {
      await front.server.shutdown();
      await upstream.server.shutdown();
    }
  });
}

for (const method of ["POST", "PUT"] as const) {
  Deno.test(`an upstream that cannot be reached gives a ${method} that passes request.body on one network failure and the front its answer`, async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    const grab = createGrab(`http://127.0.0.1:${port}`, {
      retry: { limit: 2, backoff: () => 0 },
    });
    const front = serve(async (request) => {
      const [, error] = await grab(`${method} /upload`, {
        body: request.body!,
        signal: request.signal,
      });
      return new Response((error as { kind?: string } | null)?.kind ?? "none", {
        status: 502,
      });
    });
    try {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 8 * 1024 * 1024) return controller.close();
          sent += 64 * 1024;
          controller.enqueue(new Uint8Array(64 * 1024));
        },
      });
      const response = await within(
        fetch(front.url, { method, body }),
        "the front's answer",
      );
      assertEquals(await response.text(), "network");
    } finally {
      await front.server.shutdown();
    }
  });
}
