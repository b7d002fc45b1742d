/**
 * grab inside a `Deno.serve` handler: a front server that calls an upstream
 * API for each of its own requests, as a backend-for-frontend or a proxy
 * does, and clients that call the front and leave mid-answer.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import createGrab from "../mod.ts";
import type {
  Endpoint,
  GrabCallOptions,
  GrabOptions,
  GrabResult,
  SuccessMeta,
} from "../mod.ts";
import { settles } from "./_bounds.ts";

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

type Served = ReturnType<typeof serve>;
type Grab = ReturnType<typeof createGrab<GrabOptions>>;

const encoder = new TextEncoder();

/** What a raw client sends to ask the front for its root. */
const GET = "GET / HTTP/1.1\r\nhost: x\r\n\r\n";

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

/** An upstream, and a front whose handler grabs from it. */
interface Relay {
  upstream: Deno.ServeHandler;
  /** The options of the factory that grabs from the upstream. */
  options?: GrabOptions | undefined;
  /** Makes the front's handler from that factory. */
  front: (grab: Grab) => Deno.ServeHandler;
}

/**
 * Serves the relay's upstream and front, runs `test` against the front, then
 * shuts the front down and the upstream after it, as a test's end does.
 */
async function relay(
  { upstream, options = { retry: 0 }, front }: Relay,
  test: (front: Served) => Promise<void>,
): Promise<void> {
  const up = serve(upstream);
  const served = serve(front(createGrab(up.url, options)));
  try {
    await test(served);
  } finally {
    await served.server.shutdown();
    await up.server.shutdown();
  }
}

/** How a front re-serves a stream body. */
interface ReServing {
  /** Pass the client's `request.signal` on. @default {true} */
  signal?: boolean;
  /** The front's answer made of the body. @default {new Response(body)} */
  answer?: (
    body: ReadableStream<Uint8Array> | null,
    meta: SuccessMeta,
  ) => Response;
}

/** A front handler that grabs `endpoint` as a stream and re-serves the body, or 502 if the grab fails. */
function reServe(
  endpoint: Endpoint,
  { signal = true, answer = (body) => new Response(body) }: ReServing = {},
) {
  return (grab: Grab) => async (request: Request) => {
    const [body, error, meta] = await grab(endpoint, {
      responseType: "stream",
      ...signal ? { signal: request.signal } : {},
    });
    if (error) return new Response(null, { status: 502 });
    return answer(body, meta);
  };
}

/** A client that leaves a front mid-grab. */
interface Leaving {
  upstream: Deno.ServeHandler;
  /** The options of the factory that grabs from the upstream. */
  options?: GrabOptions;
  endpoint: Endpoint;
  /** Call options besides the client's `request.signal`. */
  call?: (request: Request) => GrabCallOptions;
  /** What the client sends. */
  head?: string;
  /** Awaited by the front's handler before it grabs. */
  before?: (request: Request) => void | Promise<void>;
  /** Awaited by the client once it sent its head; then it leaves. */
  until: () => Promise<void>;
}

/**
 * A client leaves a front whose handler grabs with the client's
 * `request.signal`; `check` gets the grab's result while both servers are up.
 */
async function leaveMidGrab(
  leaving: Leaving,
  check: (result: GrabResult<unknown>) => void | Promise<void>,
): Promise<void> {
  const settled = later<GrabResult<unknown>>();
  await relay({
    upstream: leaving.upstream,
    options: leaving.options,
    front: (grab) => async (request) => {
      await leaving.before?.(request);
      const result = await grab(leaving.endpoint, {
        ...leaving.call?.(request),
        signal: request.signal,
      });
      settled.resolve(result);
      return new Response(null);
    },
  }, async (front) => {
    await leaveAfter(front.port, leaving.head ?? GET, 0, leaving.until);
    await check(await settles(settled.promise, "the grab"));
  });
}

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

type Tap = ReturnType<typeof tapBody>;

/**
 * A client reads the first piece of the front's answer once the upstream
 * wrote `text`, then leaves; the upstream body must be cancelled.
 */
async function leaveAfterFirst(url: string, tap: Tap, text: string) {
  const response = await fetch(url);
  const reader = response.body!.getReader();
  tap.write(text);
  await reader.read();
  await reader.cancel();
  await settles(tap.cancelled, "the upstream body's cancel");
}

/**
 * A client leaves once the upstream, answering `init`, wrote `text` of a
 * JSON body it never ends; `check` gets the grab's result and the number of
 * upstream requests, then the upstream body must be cancelled.
 */
async function leaveMidJson(
  init: ResponseInit,
  text: string,
  check: (result: GrabResult<unknown>, calls: number) => void,
): Promise<void> {
  const tap = tapBody();
  const upstreamReached = later();
  let calls = 0;
  await leaveMidGrab({
    upstream: () => {
      calls += 1;
      upstreamReached.resolve();
      return new Response(tap.body, init);
    },
    endpoint: "GET /json",
    async until() {
      await upstreamReached.promise;
      tap.write(text);
      await new Promise((resolve) => setTimeout(resolve, 20));
    },
  }, async (result) => {
    check(result, calls);
    await settles(tap.cancelled, "the upstream body's cancel");
  });
}

/** A request body of `total` zero bytes, pulled 64 KiB at a time. */
function zeros(total: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close();
      sent += 64 * 1024;
      controller.enqueue(new Uint8Array(64 * 1024));
    },
  });
}

/** The kind of a transport error, if `error` is one. */
function kindOf(error: unknown): string | undefined {
  return (error as { kind?: string } | null)?.kind;
}

Deno.test("in a handler, a client that leaves before the upstream answers ends the grab as abort and the upstream request", async () => {
  const upstreamAborted = later();
  const upstreamReached = later();
  await leaveMidGrab({
    upstream: (request) => {
      upstreamReached.resolve();
      request.signal.addEventListener("abort", () => upstreamAborted.resolve());
      return new Promise<Response>((resolve) => {
        request.signal.addEventListener(
          "abort",
          () => resolve(new Response(null)),
        );
      });
    },
    endpoint: "GET /slow",
    until: () => upstreamReached.promise,
  }, async ([data, error]) => {
    assertEquals(data, null);
    assertEquals(error?.name, "GrabTransportError");
    assertEquals(kindOf(error), "abort");
    await settles(upstreamAborted.promise, "the upstream's abort");
  });
});

Deno.test("a stream body re-served by a handler is cancelled upstream when the client leaves mid-body", async () => {
  const cancelled = later();
  let sent = 0;
  let gone = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await relay({
    upstream: () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            sent += 1;
            controller.enqueue(new Uint8Array(1024).fill(97));
            // The server cancels the body inside `enqueue` when its write
            // to a closed connection fails: no wait begins after that.
            if (gone) return;
            // A live body: one piece a turn, never ending by itself.
            return new Promise((resolve) => (timer = setTimeout(resolve, 5)));
          },
          cancel() {
            gone = true;
            clearTimeout(timer);
            cancelled.resolve();
          },
        }),
      ),
    front: reServe("GET /live"),
  }, async (front) => {
    await leaveAfter(front.port, GET, 4096);
    await settles(cancelled.promise, "the upstream body's cancel");
    assert(sent > 0);
  });
});

Deno.test("a stream body re-served to a client that does not read is pulled from upstream only as the client reads", async () => {
  const total = 256 * 1024 * 1024;
  const piece = new Uint8Array(64 * 1024).fill(98);
  let sent = 0;
  await relay({
    upstream: () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent >= total) return controller.close();
            sent += piece.byteLength;
            controller.enqueue(piece);
          },
        }, { highWaterMark: 0 }),
        { headers: { "content-length": String(total) } },
      ),
    front: reServe("GET /big"),
  }, async (front) => {
    const conn = await Deno.connect({
      hostname: "127.0.0.1",
      port: front.port,
    });
    try {
      await conn.write(encoder.encode(GET));
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
    }
  });
});

Deno.test("a request body passed on as a stream reaches the upstream whole, with and without Content-Length", async () => {
  await relay({
    upstream: async (request) => {
      const text = await request.text();
      return Response.json({ length: text.length });
    },
    front: (grab) => async (request) => {
      const [data, error] = await grab("POST /upload", {
        body: request.body!,
        headers: { "content-type": "text/plain" },
        signal: request.signal,
      });
      if (error) return new Response(String(error), { status: 502 });
      return Response.json(data);
    },
  }, async (front) => {
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
  });
});

Deno.test("a client that leaves mid-upload ends the grab that passes its body on, and the upstream sees the body break off", async () => {
  const upstreamFailed = later();
  const upstreamReached = later();
  await leaveMidGrab({
    upstream: async (request) => {
      upstreamReached.resolve();
      try {
        await request.arrayBuffer();
      } catch {
        upstreamFailed.resolve();
      }
      return new Response(null);
    },
    endpoint: "POST /upload",
    call: (request) => ({ body: request.body! }),
    head: "POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 100000\r\n\r\nabc",
    until: () => upstreamReached.promise,
  }, async ([data, error]) => {
    assertEquals(data, null);
    assertEquals(error?.name, "GrabTransportError");
    await settles(upstreamFailed.promise, "the upstream's broken body");
  });
});

Deno.test("200 concurrent front requests each grab through one factory", async () => {
  await relay({
    upstream: (request) =>
      Response.json({ path: new URL(request.url).pathname }),
    front: (grab) => async (request) => {
      const id = new URL(request.url).searchParams.get("id")!;
      const [data, error] = await grab<{ path: string }>("GET /items/:id", {
        params: { id },
        signal: request.signal,
      });
      if (error) return new Response(String(error), { status: 502 });
      return Response.json(data);
    },
  }, async (front) => {
    const answers = await settles(
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
  });
});

Deno.test("meta.headers of a gzip answer are the head as sent, and the README's proxy passes them on readable", async () => {
  const body = JSON.stringify({ hello: "world".repeat(100) });
  const gzipped = new Uint8Array(
    await new Response(
      new Blob([body]).stream().pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer(),
  );
  const seen: (string | null)[] = [];
  await relay({
    upstream: () =>
      new Response(gzipped, {
        headers: {
          "content-type": "application/json",
          "content-encoding": "gzip",
          "content-length": String(gzipped.byteLength),
        },
      }),
    // The README's proxy of a stream, as written there.
    front: reServe("GET /report", {
      answer(data, meta) {
        seen.push(
          meta.headers.get("content-encoding"),
          meta.headers.get("content-length"),
        );
        const headers = new Headers(meta.headers);
        headers.delete("content-encoding"); // the body is decoded
        headers.delete("content-length"); // the compressed length
        return new Response(data, { status: meta.statusCode, headers });
      },
    }),
  }, async (front) => {
    const response = await fetch(front.url);
    assertEquals(await response.json(), JSON.parse(body));
    assertEquals(seen, ["gzip", String(gzipped.byteLength)]);
  });
});

Deno.test("a stream body re-served by a handler that breaks off upstream breaks off for the client too", async () => {
  const tap = tapBody();
  await relay({
    upstream: () => new Response(tap.body),
    front: reServe("GET /live"),
  }, async (front) => {
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
      while (!(await settles(reader.read(), "the client's read")).done);
    } catch {
      failed = true;
    }
    assert(failed, "the client saw a clean end of a body that broke off");
  });
});

for (const signal of [true, false]) {
  Deno.test(`a quiet upstream stream re-served by a handler is cancelled when the client leaves (${signal ? "with" : "without"} request.signal)`, async () => {
    const tap = tapBody();
    await relay({
      upstream: () => new Response(tap.body),
      front: reServe("GET /live", { signal }),
    }, (front) => leaveAfterFirst(front.url, tap, "first"));
  });
}

Deno.test("an SSE relay built with ReadableStream.from and request.signal ends the upstream when the client leaves during a quiet spell", async () => {
  const tap = tapBody();
  await relay({
    upstream: () =>
      new Response(tap.body, {
        headers: { "content-type": "text/event-stream" },
      }),
    front: (grab) => async (request) => {
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
    },
  }, (front) => leaveAfterFirst(front.url, tap, "data: one\n\n"));
});

Deno.test("a client that leaves while the upstream JSON body is read ends the grab as abort", async () => {
  await leaveMidJson(
    { headers: { "content-type": "application/json" } },
    '{"a": [1, ',
    ([, error]) => assertEquals(kindOf(error), "abort"),
  );
});

Deno.test("a PUT passing request.body on is not retried after a 503 and gives the 503", async () => {
  let calls = 0;
  await relay({
    upstream: async (request) => {
      calls += 1;
      await request.text();
      return new Response("busy", { status: 503 });
    },
    options: { retry: { limit: 2, backoff: () => 0 } },
    front: (grab) => async (request) => {
      const [, error] = await grab("PUT /thing", {
        body: request.body!,
        signal: request.signal,
      });
      return Response.json({
        name: error?.name,
        status: (error as { statusCode?: number } | null)?.statusCode,
      });
    },
  }, async (front) => {
    const response = await fetch(front.url, { method: "PUT", body: "hello" });
    assertEquals(await response.json(), {
      name: "GrabError",
      status: 503,
    });
    assertEquals(calls, 1);
  });
});

Deno.test("upstream hop-by-hop headers copied from meta.headers into a streamed Response frame the answer right", async () => {
  await relay({
    upstream: () =>
      new Response(
        ReadableStream.from([encoder.encode("ab"), encoder.encode("cd")]),
        {
          headers: {
            connection: "keep-alive",
            "keep-alive": "timeout=5",
          },
        },
      ),
    front: reServe("GET /x", {
      answer: (body, meta) => new Response(body, { headers: meta.headers }),
    }),
  }, async (front) => {
    const response = await fetch(front.url);
    assertEquals(await response.text(), "abcd");
    const again = await fetch(front.url);
    assertEquals(await again.text(), "abcd");
  });
});

Deno.test("a client that leaves while the grab waits out a Retry-After ends the grab as abort, not as the server's answer", async () => {
  let calls = 0;
  const reached = later();
  await leaveMidGrab({
    upstream: () => {
      calls += 1;
      return new Response("busy", {
        status: 503,
        headers: { "retry-after": "8" },
      });
    },
    options: { retry: { limit: 1, maxDelay: 60_000 }, timeout: 60_000 },
    endpoint: "GET /busy",
    before: () => reached.resolve(),
    async until() {
      await reached.promise;
      while (calls === 0) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  }, ([, error]) => {
    assertEquals(kindOf(error), "abort");
    assertEquals(calls, 1);
  });
});

Deno.test("200 clients that leave mid-upstream-request end 200 grabs as abort and 200 upstream requests", async () => {
  const count = 200;
  let reached = 0;
  let aborted = 0;
  const allReached = later();
  const allAborted = later();
  const kinds: string[] = [];
  const allSettled = later();
  await relay({
    upstream: (request) => {
      if (++reached === count) allReached.resolve();
      return new Promise<Response>((resolve) => {
        request.signal.addEventListener("abort", () => {
          if (++aborted === count) allAborted.resolve();
          resolve(new Response(null));
        });
      });
    },
    front: (grab) => async (request) => {
      const [, error] = await grab("GET /slow", { signal: request.signal });
      kinds.push(kindOf(error) ?? "none");
      if (kinds.length === count) allSettled.resolve();
      return new Response(null);
    },
  }, async (front) => {
    const conns: Deno.TcpConn[] = [];
    try {
      for (let i = 0; i < count; i++) {
        const conn = await Deno.connect({
          hostname: "127.0.0.1",
          port: front.port,
        });
        conns.push(conn);
        await conn.write(encoder.encode(GET));
      }
      await settles(allReached.promise, "every upstream request");
      for (const conn of conns.splice(0)) conn.close();
      await settles(allSettled.promise, "every grab");
      assertEquals(kinds.filter((kind) => kind !== "abort"), []);
      await settles(allAborted.promise, "every upstream request's end");
    } finally {
      for (const conn of conns) conn.close();
    }
  });
});

Deno.test("an upstream that refuses a large upload at once gives the front its answer", async () => {
  await relay({
    upstream: () => new Response("too big", { status: 413 }),
    front: (grab) => async (request) => {
      const [, error] = await grab("POST /upload", {
        body: request.body!,
        signal: request.signal,
      });
      const status = (error as { statusCode?: number } | null)?.statusCode;
      return new Response(String(status ?? error?.name));
    },
  }, async (front) => {
    const response = await settles(
      fetch(front.url, { method: "POST", body: zeros(32 * 1024 * 1024) }),
      "the front's answer",
    );
    assertEquals(await response.text(), "413");
  });
});

Deno.test("server.shutdown() while a grab is in flight lets it finish and answer", async () => {
  const release = later();
  const reached = later();
  await relay({
    upstream: async () => {
      reached.resolve();
      await release.promise;
      return Response.json({ ok: true });
    },
    front: (grab) => async (request) => {
      const [data, error] = await grab("GET /slow", { signal: request.signal });
      return Response.json({ data, kind: kindOf(error) });
    },
  }, async (front) => {
    try {
      const answer = fetch(front.url);
      await settles(reached.promise, "the upstream request");
      const shutdown = front.server.shutdown();
      release.resolve();
      const response = await settles(answer, "the front's answer");
      assertEquals(await response.json(), { data: { ok: true } });
      await settles(shutdown, "the shutdown");
    } finally {
      release.resolve();
    }
  });
});

for (const type of ["stream", "sse", "ndjson"] as const) {
  for (const bound of ["idleTimeout", "attemptTimeout", "none"] as const) {
    Deno.test(`a quiet ${type} body relayed with ReadableStream.from and ${bound} is cancelled upstream when the client leaves, leaving no timer`, async () => {
      const tap = tapBody();
      await relay(
        {
          upstream: () =>
            new Response(tap.body, {
              headers: {
                "content-type": type === "sse"
                  ? "text/event-stream"
                  : "application/x-ndjson",
              },
            }),
          front: (grab) => async (request) => {
            const [data, error] = await grab("GET /live", {
              responseType: type,
              signal: request.signal,
              ...bound === "none" ? {} : { [bound]: 60_000 },
            });
            if (error || data === null) {
              return new Response(null, { status: 502 });
            }
            if (data instanceof ReadableStream) return new Response(data);
            const items = data as AsyncIterable<unknown>;
            const body = ReadableStream.from(items).pipeThrough(
              new TransformStream<unknown, Uint8Array>({
                transform: (item, controller) =>
                  controller.enqueue(
                    encoder.encode(`${JSON.stringify(item)}\n`),
                  ),
              }),
            );
            return new Response(body);
          },
        },
        (front) =>
          leaveAfterFirst(
            front.url,
            tap,
            type === "sse" ? "data: 1\n\n" : "1\n",
          ),
      );
    });
  }
}

Deno.test("a grab given the signal of a client that already left sends nothing and ends as abort", async () => {
  let calls = 0;
  const reached = later();
  await leaveMidGrab({
    upstream: () => {
      calls += 1;
      return new Response(null);
    },
    endpoint: "GET /x",
    async before(request) {
      reached.resolve();
      if (!request.signal.aborted) {
        await new Promise((resolve) =>
          request.signal.addEventListener("abort", resolve, { once: true })
        );
      }
    },
    until: () => reached.promise,
  }, ([, error]) => {
    assertEquals(kindOf(error), "abort");
    assertEquals(calls, 0);
  });
});

Deno.test("200 SSE relays through one factory whose clients leave after one event cancel 200 upstream bodies", async () => {
  const count = 200;
  let cancelled = 0;
  const allCancelled = later();
  await relay({
    upstream: () =>
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
      ),
    front: (grab) => async (request) => {
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
    },
  }, async (front) => {
    await settles(
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
    await settles(allCancelled.promise, "every upstream body's cancel");
  });
});

for (const status of [500, 503, 404]) {
  Deno.test(`a client that leaves while a ${status} body is read ends the grab as that status, its body null, and cancels the upstream body`, async () => {
    await leaveMidJson(
      { status, headers: { "content-type": "application/json" } },
      '{"error": ',
      ([, error], calls) => {
        // Status beats the body (the contract): the abort is the cause.
        assertEquals(error?.name, "GrabError");
        assertEquals((error as { statusCode?: number }).statusCode, status);
        assertEquals((error as { body?: unknown }).body, null);
        assertEquals(kindOf(error?.cause), "abort");
        assertEquals(calls, 1);
      },
    );
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
      return new Response(kindOf(error) ?? "none", { status: 502 });
    });
    try {
      const response = await settles(
        fetch(front.url, { method, body: zeros(8 * 1024 * 1024) }),
        "the front's answer",
      );
      assertEquals(await response.text(), "network");
    } finally {
      await front.server.shutdown();
    }
  });
}
