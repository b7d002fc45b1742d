/**
 * A grab behind a forward proxy that misbehaves: a raw proxy on 127.0.0.1
 * that answers absolute-form requests for `http` URLs and opens `CONNECT`
 * tunnels for `https` ones, reached through Deno's `HttpClient` as the
 * README's recipe does.
 *
 * @module
 */

import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertMatch,
  assertRejects,
  assertThrows,
} from "@std/assert";
import createGrab, {
  GrabError,
  GrabTransportError,
  GrabValidationError,
} from "../mod.ts";
import { runChild } from "./_bounds.ts";
import { counted } from "./_counted_retry.ts";
import { head, serveEach, untilClosed, write } from "./_faults.ts";
import { pem, trustingFetch } from "./_tls.ts";

const TLS = { cert: pem("server.crt"), key: pem("server.key") };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A request head a proxy read, and the bytes that came after it. */
interface Seen {
  line: string;
  headers: Headers;
  rest: Uint8Array;
}

/** How the proxy handles one request it read on `conn`. */
type Behaviour = (conn: Deno.Conn, seen: Seen) => Promise<void>;

/** Reads a request head; `null` when the connection ends first. */
async function readHead(conn: Deno.Conn): Promise<Seen | null> {
  const buffer = new Uint8Array(16 * 1024);
  let bytes = new Uint8Array(0);
  for (;;) {
    const text = decoder.decode(bytes);
    const end = text.indexOf("\r\n\r\n");
    if (end !== -1) {
      const [line, ...fields] = text.slice(0, end).split("\r\n");
      const headers = new Headers();
      for (const field of fields) {
        const colon = field.indexOf(":");
        headers.append(field.slice(0, colon), field.slice(colon + 1).trim());
      }
      return { line: line ?? "", headers, rest: bytes.subarray(end + 4) };
    }
    const n = await conn.read(buffer);
    if (n === null) return null;
    const next = new Uint8Array(bytes.byteLength + n);
    next.set(bytes);
    next.set(buffer.subarray(0, n), bytes.byteLength);
    bytes = next;
  }
}

/** Copies `from` to `to` until `from` ends, `limit` bytes at most. */
async function pipe(
  from: Deno.Conn,
  to: Deno.Conn,
  limit = Infinity,
): Promise<void> {
  const buffer = new Uint8Array(16 * 1024);
  let sent = 0;
  for (;;) {
    const n = await from.read(buffer);
    if (n === null) return;
    const take = Math.min(n, limit - sent);
    await write(to, buffer.subarray(0, take));
    sent += take;
    if (sent >= limit) return;
  }
}

/** Connects to the `host:port` of a CONNECT line or an absolute URL. */
function dial(target: string): Promise<Deno.TcpConn> {
  const { hostname, port } = new URL(
    target.includes("://") ? target : `http://${target}`,
  );
  return Deno.connect({ hostname, port: Number(port || 80) });
}

/** A tunnel to the CONNECT target, the server's bytes cut at `limit`. */
async function tunnel(
  conn: Deno.Conn,
  seen: Seen,
  limit = Infinity,
): Promise<void> {
  using origin = await dial(seen.line.split(" ")[1] ?? "");
  await write(conn, "HTTP/1.1 200 Connection Established\r\n\r\n");
  const up = pipe(conn, origin).catch(() => {});
  await pipe(origin, conn, limit).catch(() => {});
  conn.close();
  await up;
}

/**
 * A raw forward proxy on 127.0.0.1: every request head it reads is noted,
 * then handled by `behaviour`, one a connection.
 */
function startProxy(behaviour: Behaviour) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const seen: Seen[] = [];
  const served = serveEach(listener, async (conn) => {
    const request = await readHead(conn);
    if (request === null) return;
    seen.push(request);
    await behaviour(conn, request);
  });
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    seen,
    lines: () => seen.map(({ line }) => line),
    [Symbol.asyncDispose]: served.close,
  };
}

/** The README's recipe: a `fetch` that sends through `client`. */
function through(client: Deno.HttpClient): typeof fetch {
  return (input, init) => fetch(input, { ...init, client });
}

const PAGE = "<html><body><h1>502 Bad Gateway</h1></body></html>";

/** The proxy's own answer, with an HTML page, and the connection closed. */
function answers(status: string, page = PAGE): Behaviour {
  return async (conn) => {
    await write(
      conn,
      head(status, {
        "content-type": "text/html",
        "content-length": String(encoder.encode(page).byteLength),
        connection: "close",
      }) + page,
    );
  };
}

Deno.test("a proxy's own 502 and 504 pages are HTTP errors, retried for a GET", async (t) => {
  for (const status of ["502 Bad Gateway", "504 Gateway Timeout"]) {
    await t.step(status, async () => {
      await using proxy = startProxy(answers(status));
      using client = Deno.createHttpClient({ proxy: { url: proxy.url } });
      const { retry, made } = counted();
      const grab = createGrab("http://127.0.0.1:8080", {
        fetch: through(client),
        retry,
      });
      const [data, error, meta] = await grab("GET /items");
      assertEquals(data, null);
      assertEquals(meta, {});
      assertInstanceOf(error, GrabError);
      assertEquals(error.statusCode, Number(status.slice(0, 3)));
      assertEquals(error.body, PAGE);
      assertEquals(made(), 2);
      assertEquals(proxy.lines(), [
        "GET http://127.0.0.1:8080/items HTTP/1.1",
        "GET http://127.0.0.1:8080/items HTTP/1.1",
        "GET http://127.0.0.1:8080/items HTTP/1.1",
      ]);
    });
  }
});

Deno.test("a proxy's 407 for an http URL is not retried", async () => {
  await using proxy = startProxy(answers("407 Proxy Authentication Required"));
  using client = Deno.createHttpClient({ proxy: { url: proxy.url } });
  const { retry, made } = counted();
  const grab = createGrab("http://127.0.0.1:8080", {
    fetch: through(client),
    retry,
  });
  const [, error] = await grab("GET /items");
  assertInstanceOf(error, GrabError);
  assertEquals(error.statusCode, 407);
  assertEquals(made(), 0);
  assertEquals(proxy.seen.length, 1);
});

Deno.test("a proxy that adds Via and Connection and drops Content-Length is read", async () => {
  const body = JSON.stringify({ items: [1, 2, 3] });
  await using proxy = startProxy(async (conn) => {
    await write(
      conn,
      head("200 OK", {
        "content-type": "application/json",
        via: "1.1 squid",
        connection: "close, keep-alive",
      }) + body,
    );
  });
  using client = Deno.createHttpClient({ proxy: { url: proxy.url } });
  const grab = createGrab("http://127.0.0.1:8080", { fetch: through(client) });
  const [data, error, meta] = await grab("GET /items");
  assertEquals(error, null);
  assertEquals(data, { items: [1, 2, 3] });
  assertEquals("headers" in meta && meta.headers.get("via"), "1.1 squid");
});

Deno.test("a tunnel the proxy closes mid-body is a network failure, retried", async () => {
  const body = JSON.stringify({ filler: "x".repeat(64 * 1024) });
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {}, ...TLS },
    () =>
      new Response(body, { headers: { "content-type": "application/json" } }),
  );
  // The TLS handshake and the head pass; the body is cut.
  await using proxy = startProxy((conn, seen) => tunnel(conn, seen, 24_000));
  using client = Deno.createHttpClient({
    proxy: { url: proxy.url },
    caCerts: [pem("ca.crt")],
    http2: false,
  });
  const { retry, made } = counted();
  const grab = createGrab(`https://127.0.0.1:${server.addr.port}`, {
    fetch: through(client),
    retry,
  });
  const [data, error, meta] = await grab("GET /items");
  assertEquals(data, null);
  assertEquals(meta, { statusCode: 0 });
  assertInstanceOf(error, GrabTransportError);
  assertEquals(error.kind, "network");
  assertEquals(made(), 2);
  assertEquals(proxy.seen.length, 3);
  assert(proxy.lines().every((line) => line.startsWith("CONNECT ")));
});

Deno.test("a proxy that hangs after CONNECT 200 is bounded by the timeout", async () => {
  await using proxy = startProxy(async (conn) => {
    await write(conn, "HTTP/1.1 200 Connection Established\r\n\r\n");
    await untilClosed(conn);
  });
  using client = Deno.createHttpClient({ proxy: { url: proxy.url } });
  const grab = createGrab("https://127.0.0.1:8443", {
    fetch: through(client),
    timeout: 300,
    retry: 0,
  });
  const [, error] = await grab("GET /items");
  assertInstanceOf(error, GrabTransportError);
  assertEquals(error.kind, "timeout");
});

Deno.test("a proxy that buffers a live event stream is ended by idleTimeout", async () => {
  await using proxy = startProxy(async (conn) => {
    // The head at once, then events the proxy keeps until the stream ends.
    await write(
      conn,
      head("200 OK", {
        "content-type": "text/event-stream",
        "transfer-encoding": "chunked",
      }),
    );
    await untilClosed(conn);
  });
  using client = Deno.createHttpClient({ proxy: { url: proxy.url } });
  const grab = createGrab("http://127.0.0.1:8080", { fetch: through(client) });
  const [stream, error] = await grab("GET /events", {
    responseType: "sse",
    idleTimeout: 200,
  });
  assertEquals(error, null);
  assert(stream !== null);
  const events = [];
  for await (const event of stream) events.push(event);
  assertEquals(events, []);
  assertInstanceOf(stream.error, GrabTransportError);
  assertEquals(stream.error.kind, "timeout");
});

Deno.test("the factory's Authorization reaches no foreign origin through a proxy", async () => {
  await using proxy = startProxy(async (conn) => {
    await write(
      conn,
      head("200 OK", {
        "content-type": "application/json",
        "content-length": "2",
        connection: "close",
      }) + "{}",
    );
  });
  using client = Deno.createHttpClient({ proxy: { url: proxy.url } });
  const grab = createGrab("http://127.0.0.1:8080", {
    fetch: through(client),
    headers: { authorization: "Bearer t0ken" },
  });
  await grab("GET /mine");
  await grab("GET http://127.0.0.1:8081/theirs");
  assertEquals(
    proxy.seen.map(({ line, headers }) => [line, headers.get("authorization")]),
    [
      ["GET http://127.0.0.1:8080/mine HTTP/1.1", "Bearer t0ken"],
      ["GET http://127.0.0.1:8081/theirs HTTP/1.1", null],
    ],
  );
});

Deno.test("a proxy whose host name does not resolve is told as the proxy's", async () => {
  const seen = await runChild<{ kind: string; message: string }[]>(
    "./_proxy_name_child.ts",
    [
      "--allow-net=127.0.0.1,grab-proxy.invalid",
      "--allow-env",
      "--allow-read=.",
    ],
  );
  const told = "the network failed (a host name on the way did not resolve, " +
    "though the URL's host is an address: check the proxy's host in HTTP_PROXY, " +
    "HTTPS_PROXY or the HttpClient's proxy.url)";
  assertEquals(seen, [
    {
      kind: "network",
      message:
        `Cannot complete the request: ${told}: GET http://127.0.0.1:8080/items`,
    },
    {
      kind: "network",
      message:
        `Cannot complete the request: ${told}: GET https://127.0.0.1:8443/items`,
    },
  ]);
});

Deno.test("Proxy-Authorization in grab's headers is refused before any request: it would reach the server, not the proxy", async (t) => {
  // No proxy on the way: over https the header goes through the tunnel to
  // the server whichever proxy there is, as it does here.
  const seen: (string | null)[] = [];
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {}, ...TLS },
    (request) => {
      seen.push(request.headers.get("proxy-authorization"));
      return Response.json({ ok: true });
    },
  );
  using trusting = trustingFetch();
  const base = `https://127.0.0.1:${server.addr.port}`;
  const credentials = { "Proxy-Authorization": "Basic dXNlcjpwYXNz" };
  const refused =
    /Cannot send header "Proxy-Authorization": fetch sends it to the server, not to a proxy .*HTTP_PROXY.*basicAuth of an HTTP client's proxy\)?$/;

  await t.step("the call's", async () => {
    const grab = createGrab(base, { fetch: trusting, retry: 0 });
    const error = await assertRejects(
      () => grab("GET /x", { headers: credentials }),
      GrabValidationError,
    );
    assertMatch(error.message, refused);
    assert(!error.message.includes("dXNlcjpwYXNz"), "the value is not told");
  });

  await t.step("the factory's, static or from its function", async () => {
    const thrown = assertThrows(
      () => createGrab(base, { fetch: trusting, headers: credentials }),
      GrabValidationError,
    );
    assertMatch(thrown.message, refused);
    const grab = createGrab(base, {
      fetch: trusting,
      headers: () => credentials,
    });
    const error = await assertRejects(
      () => grab("GET /x"),
      GrabValidationError,
    );
    assertMatch(error.message, refused);
  });
  assertEquals(seen, []);

  await t.step("without it, the same grab is sent", async () => {
    const grab = createGrab(base, { fetch: trusting, retry: 0 });
    const [data, error] = await grab("GET /x");
    assertEquals([data, error], [{ ok: true }, null]);
    assertEquals(seen, [null]);
  });
});
