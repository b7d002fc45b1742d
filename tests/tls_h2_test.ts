/**
 * HTTPS over HTTP/2, which the other tests' plain HTTP/1.1 never reaches:
 * Deno's `Deno.serve` with a certificate (h2 by ALPN), and a hostile h2
 * server of frames written by hand, whose malformed answers, resets and
 * heads no `Deno.serve` sends.
 */

import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import { assertUnmended, counted } from "./_counted_retry.ts";
import { pem, trustingFetch } from "./_tls.ts";
import createGrab, { GrabError, GrabTransportError } from "../mod.ts";

const cert = pem("server.crt");
const key = pem("server.key");

const encoder = new TextEncoder();

// --- A hostile HTTP/2 server, its frames written by hand (RFC 9113). ---

const DATA = 0;
const HEADERS = 1;
const RST_STREAM = 3;
const SETTINGS = 4;
const CONTINUATION = 9;
const END_STREAM = 1;
const END_HEADERS = 4;
const ACK = 1;
const MAX_FRAME = 16384;

/** An HPACK integer of an `n`-bit prefix (RFC 7541, 5.1). */
function hpackInt(value: number, n: number): number[] {
  const max = (1 << n) - 1;
  if (value < max) return [value];
  const out = [max];
  for (value -= max; value >= 128; value >>= 7) out.push((value & 127) | 128);
  out.push(value);
  return out;
}

/** Each field a literal without indexing, its name new (RFC 7541, 6.2.2). */
function hpack(fields: [string, string][]): Uint8Array {
  const out: number[] = [];
  for (const field of fields) {
    out.push(0);
    for (const text of field) {
      const bytes = encoder.encode(text);
      out.push(...hpackInt(bytes.length, 7));
      for (const byte of bytes) out.push(byte);
    }
  }
  return new Uint8Array(out);
}

function frame(
  type: number,
  flags: number,
  stream: number,
  payload = new Uint8Array(),
): Uint8Array {
  const out = new Uint8Array(9 + payload.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, payload.length << 8);
  out[3] = type;
  out[4] = flags;
  view.setUint32(5, stream);
  out.set(payload, 9);
  return out;
}

/** A head, cut into CONTINUATION frames where it is longer than one. */
function headers(
  stream: number,
  fields: [string, string][],
  end = false,
): Uint8Array[] {
  const block = hpack(fields);
  const frames: Uint8Array[] = [];
  for (let at = 0; at < block.length || at === 0; at += MAX_FRAME) {
    const last = at + MAX_FRAME >= block.length;
    const flags = (last ? END_HEADERS : 0) | (at === 0 && end ? END_STREAM : 0);
    const type = at === 0 ? HEADERS : CONTINUATION;
    frames.push(frame(type, flags, stream, block.slice(at, at + MAX_FRAME)));
  }
  return frames;
}

const data = (stream: number, text: string, end = false) =>
  frame(DATA, end ? END_STREAM : 0, stream, encoder.encode(text));

function reset(stream: number, code: number): Uint8Array {
  const payload = new Uint8Array(4);
  new DataView(payload.buffer).setUint32(0, code);
  return frame(RST_STREAM, 0, stream, payload);
}

const INTERNAL_ERROR = 2;
const HTTP_1_1_REQUIRED = 0xd;
const JSON_HEAD: [string, string][] = [
  [":status", "200"],
  ["content-type", "application/json"],
];

/** What the server sends for the request on `stream`. */
type Answer = (stream: number) => Uint8Array[];

interface H2Server extends AsyncDisposable {
  url: string;
  /** The requests (HEADERS frames) received. */
  readonly requests: number;
}

/** An h2-only TLS server that answers each request with `answer`. */
function startH2(answer: Answer): H2Server {
  const listener = Deno.listenTls({
    hostname: "127.0.0.1",
    port: 0,
    cert,
    key,
    alpnProtocols: ["h2"],
  });
  let requests = 0;
  const conns = new Set<Deno.TlsConn>();
  const served: Promise<void>[] = [];
  const accepting = (async () => {
    for await (const conn of listener) {
      conns.add(conn);
      served.push(
        serve(conn).catch(() => {}).finally(() => {
          conns.delete(conn);
          try {
            conn.close();
          } catch { /* closed by the dispose */ }
        }),
      );
    }
  })();
  async function serve(conn: Deno.TlsConn): Promise<void> {
    const writer = conn.writable.getWriter();
    let queue = Promise.resolve();
    // One answer after another, each whole: frames of two never interleave.
    const send = (frames: Uint8Array[]) =>
      queue = queue.then(async () => {
        for (const each of frames) await writer.write(each);
      });
    const answering: Promise<void>[] = [];
    await send([frame(SETTINGS, 0, 0)]);
    let buffer = new Uint8Array();
    let preface = false;
    for await (const chunk of conn.readable) {
      const joined = new Uint8Array(buffer.length + chunk.length);
      joined.set(buffer);
      joined.set(chunk, buffer.length);
      buffer = joined;
      if (!preface) {
        if (buffer.length < 24) continue;
        buffer = buffer.slice(24);
        preface = true;
      }
      while (buffer.length >= 9) {
        const view = new DataView(buffer.buffer, buffer.byteOffset);
        const length = view.getUint32(0) >>> 8;
        if (buffer.length < 9 + length) break;
        const [type, flags] = [view.getUint8(3), view.getUint8(4)];
        const stream = view.getUint32(5) & 0x7fffffff;
        buffer = buffer.slice(9 + length);
        if (type === SETTINGS && !(flags & ACK)) {
          await send([frame(SETTINGS, ACK, 0)]);
        }
        if (type === HEADERS) {
          requests++;
          // Not awaited: the client's frames are read while the answer goes.
          answering.push(send(answer(stream)).catch(() => {}));
        }
      }
    }
    await Promise.allSettled(answering);
  }
  const { port } = listener.addr as Deno.NetAddr;
  return {
    url: `https://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    async [Symbol.asyncDispose]() {
      listener.close();
      await accepting.catch(() => {});
      for (const conn of conns) {
        try {
          conn.close();
        } catch { /* already closed */ }
      }
      await Promise.allSettled(served);
    },
  };
}

// --- Findings: the server's faults that no retry mends, over HTTP/2. ---

const NOT_HTTP2 = "HTTP/2 answer";
const HEAD_TOO_LARGE = "its head is larger than the runtime reads";

Deno.test("a malformed HTTP/2 answer fails at once, saying so", async (t) => {
  const malformed: Record<string, Answer> = {
    "a pseudo-header after a field": (s) => [
      ...headers(s, [["x-a", "b"], [":status", "200"]]),
      data(s, "{}", true),
    ],
    "a connection-specific field": (s) => [
      ...headers(s, [[":status", "200"], ["connection", "close"]]),
      data(s, "{}", true),
    ],
    "an upper-case field name": (s) => [
      ...headers(s, [[":status", "200"], ["X-Bad", "1"]]),
      data(s, "{}", true),
    ],
    "DATA before any HEADERS": (s) => [data(s, "{}", true)],
    "a request the server wants over HTTP/1.1": (s) => [
      reset(s, HTTP_1_1_REQUIRED),
    ],
  };
  for (const [name, answer] of Object.entries(malformed)) {
    await t.step(name, async () => {
      await using server = startH2(answer);
      using trusting = trustingFetch();
      const requests = () => server.requests;
      await assertUnmended(server.url, NOT_HTTP2, requests, trusting);
    });
  }
});

Deno.test("an HTTP/2 head larger than the runtime reads fails at once, saying so", async () => {
  // 400 KiB of one field: more CONTINUATION frames than Deno's h2 reads.
  const field: [string, string] = ["x-big", "a".repeat(400 << 10)];
  await using server = startH2((s) => [
    ...headers(s, [...JSON_HEAD, field]),
    data(s, "{}", true),
  ]);
  using trusting = trustingFetch();
  const requests = () => server.requests;
  await assertUnmended(server.url, HEAD_TOO_LARGE, requests, trusting);
});

// --- What holds already, over HTTP/2 (kept so that it goes on holding). ---

Deno.test("an h2 stream reset is retried for GET, not for POST", async (t) => {
  const resets: Record<string, Answer> = {
    "before the head": (s) => [reset(s, INTERNAL_ERROR)],
    "mid-body": (s) => [
      ...headers(s, JSON_HEAD),
      data(s, '{"a":'),
      reset(s, INTERNAL_ERROR),
    ],
  };
  for (const [name, answer] of Object.entries(resets)) {
    await t.step(name, async () => {
      await using server = startH2(answer);
      using trusting = trustingFetch();
      const { retry, made } = counted();
      const grab = createGrab(server.url, { fetch: trusting, retry });
      const [, got] = await grab("GET /item");
      assertInstanceOf(got, GrabTransportError);
      assertEquals(got.kind, "network");
      assertEquals([made(), server.requests], [2, 3]);
      const [, posted] = await grab("POST /item", { body: { a: 1 } });
      assertInstanceOf(posted, GrabTransportError);
      assertEquals(posted.kind, "network");
      assertEquals([made(), server.requests], [2, 4]);
    });
  }
});

Deno.test("an h2 error head whose body is reset is a GrabError", async () => {
  await using server = startH2((s) => [
    ...headers(s, [[":status", "502"]]),
    data(s, "bad gate"),
    reset(s, INTERNAL_ERROR),
  ]);
  using trusting = trustingFetch();
  const grab = createGrab(server.url, { fetch: trusting, retry: 0 });
  const [data_, error, meta] = await grab("GET /item");
  assertEquals([data_, meta], [null, {}]);
  assertInstanceOf(error, GrabError);
  assertEquals([error.statusCode, error.body], [502, null]);
});

Deno.test("h2 103 Early Hints and trailers around a body are read", async () => {
  await using server = startH2((s) => [
    ...headers(s, [[":status", "103"], ["link", "</a.css>; rel=preload"]]),
    ...headers(s, JSON_HEAD),
    data(s, '{"a":1}'),
    ...headers(s, [["x-checksum", "1"]], true),
  ]);
  using trusting = trustingFetch();
  const grab = createGrab(server.url, { fetch: trusting });
  const [got, error] = await grab("GET /item");
  assertEquals([got, error], [{ a: 1 }, null]);
});

/** A `Deno.serve` over TLS (h2 by ALPN) running `handler`. */
function serveTls(handler: Deno.ServeHandler) {
  return Deno.serve(
    { cert, key, hostname: "127.0.0.1", port: 0, onListen() {} },
    handler,
  );
}

Deno.test("64 grabs in flight share one h2 connection", async () => {
  const ports = new Set<number>();
  await using server = serveTls((request, info) => {
    ports.add((info.remoteAddr as Deno.NetAddr).port);
    return Response.json({ path: new URL(request.url).pathname });
  });
  using trusting = trustingFetch();
  const grab = createGrab(`https://127.0.0.1:${server.addr.port}`, {
    fetch: trusting,
  });
  const results = await Promise.all(
    Array.from({ length: 64 }, (_, i) => grab(`GET /item/${i}`)),
  );
  results.forEach(([got, error], i) => {
    assertEquals(error, null);
    assertEquals(got, { path: `/item/${i}` });
  });
  assertEquals(ports.size, 1);
});

Deno.test("maxBodyBytes cuts an h2 body that has no Content-Length", async () => {
  let pulls = 0;
  await using server = serveTls(() =>
    new Response(
      new ReadableStream({
        pull(controller) {
          // Bounded: a grab that ignored the cap would fail the count below.
          if (++pulls > 1000) controller.close();
          else controller.enqueue(new Uint8Array(1024).fill(32));
        },
      }),
    )
  );
  using trusting = trustingFetch();
  const grab = createGrab(`https://127.0.0.1:${server.addr.port}`, {
    fetch: trusting,
    maxBodyBytes: 8192,
  });
  const [, error] = await grab("GET /big");
  assertInstanceOf(error, GrabTransportError);
  assertEquals(error.kind, "too-large");
  assert(pulls < 1000, `${pulls} chunks pulled`);
});

Deno.test("an h2 event stream is read, and its stall ends with idleTimeout", async () => {
  await using server = serveTls(() =>
    new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(encoder.encode("data: 1\n\ndata: 2\n\n"));
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    )
  );
  using trusting = trustingFetch();
  const grab = createGrab(`https://127.0.0.1:${server.addr.port}`, {
    fetch: trusting,
  });
  const [events, error] = await grab("GET /events", {
    responseType: "sse",
    idleTimeout: 200,
  });
  assertEquals(error, null);
  const seen: string[] = [];
  for await (const event of events!) seen.push(event.data);
  assertEquals(seen, ["1", "2"]);
  assertInstanceOf(events!.error, GrabTransportError);
  assertEquals(events!.error.kind, "timeout");
});

Deno.test("an abort mid-body over h2 settles as abort", async () => {
  const controller = new AbortController();
  await using server = serveTls(() =>
    new Response(
      new ReadableStream({
        start(body) {
          body.enqueue(encoder.encode('{"a":'));
          // The head and a first chunk are out: abort while the rest waits.
          setTimeout(() => controller.abort(), 0);
        },
      }),
    )
  );
  using trusting = trustingFetch();
  const grab = createGrab(`https://127.0.0.1:${server.addr.port}`, {
    fetch: trusting,
  });
  const [, error] = await grab("GET /item", { signal: controller.signal });
  assertInstanceOf(error, GrabTransportError);
  assertEquals(error.kind, "abort");
});

Deno.test("a redirect from https to http on the same port drops Authorization", async () => {
  // One port for both schemes: a TLS hello (0x16) goes to the https server.
  const front = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = front.addr as Deno.NetAddr;
  const seen: string[] = [];
  const handler = (scheme: string) => (request: Request) => {
    const { pathname } = new URL(request.url);
    const auth = request.headers.get("authorization");
    seen.push(`${scheme} ${pathname} ${auth}`);
    return pathname === "/start"
      ? Response.redirect(`http://127.0.0.1:${port}/landed`, 302)
      : Response.json({ ok: true });
  };
  const secure = serveTls(handler("https"));
  const plain = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    handler("http"),
  );
  const pipes: Promise<unknown>[] = [];
  const accepting = (async () => {
    for await (const conn of front) {
      pipes.push((async () => {
        const first = new Uint8Array(1);
        if (await conn.read(first) !== 1) return conn.close();
        const tls = first[0] === 0x16;
        const back = await Deno.connect({
          hostname: "127.0.0.1",
          port: (tls ? secure : plain).addr.port,
        });
        await back.write(first);
        await Promise.allSettled([
          conn.readable.pipeTo(back.writable),
          back.readable.pipeTo(conn.writable),
        ]);
      })());
    }
  })();
  try {
    using trusting = trustingFetch();
    const grab = createGrab(`https://127.0.0.1:${port}`, {
      fetch: trusting,
      headers: { authorization: "Bearer s3cret" },
    });
    const [got, error] = await grab("GET /start");
    assertEquals([got, error], [{ ok: true }, null]);
    assertEquals(seen, ["https /start Bearer s3cret", "http /landed null"]);
  } finally {
    front.close();
    await accepting.catch(() => {});
    await Promise.all([secure.shutdown(), plain.shutdown()]);
    await Promise.allSettled(pipes);
  }
});
