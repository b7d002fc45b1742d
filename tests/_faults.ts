/**
 * Fault injection for the resilience tests: HTTP-level faults as routes for
 * {@linkcode startServer}, and a raw TCP server for broken framing that
 * `Deno.serve` cannot produce.
 *
 * @module
 */

import type { Handler } from "./_server.ts";

/**
 * Routes that misbehave at the HTTP level. Each call gives fresh counters, so
 * a test owns its flaky routes.
 *
 * - `/flaky/:failures/:status/:name`: answers `:status` (with `Retry-After`
 *   from the `retry-after` query parameter, when given) `:failures` times per
 *   path, then 200 `{ "attempt": n }`; `:name` keeps the steps' counters apart
 * - `/status/:code/:name`: always `:code` with a `{ status }` body,
 *   `Retry-After` as above
 * - `/loop`: a 302 to itself
 * - `/never`: headers, then a body that never ends (cancelled when the
 *   client goes away)
 */
export function httpFaults(): Record<string, Handler> {
  const hits = new Map<string, number>();
  const count = (url: URL): number => {
    const n = (hits.get(url.pathname) ?? 0) + 1;
    hits.set(url.pathname, n);
    return n;
  };
  const failing = (status: number, url: URL): Response => {
    const headers = new Headers({ "content-type": "application/json" });
    const after = url.searchParams.get("retry-after");
    if (after !== null) headers.set("retry-after", after);
    return new Response(JSON.stringify({ status }), { status, headers });
  };
  return {
    "/flaky/:failures/:status/:name": (_request, seen) => {
      const [, , failures, status] = seen.url.pathname.split("/");
      const n = count(seen.url);
      if (n <= Number(failures)) return failing(Number(status), seen.url);
      return Response.json({ attempt: n });
    },
    "/status/:code/:name": (_request, seen) =>
      failing(Number(seen.url.pathname.split("/")[2]), seen.url),
    "/loop": () =>
      new Response(null, { status: 302, headers: { location: "/loop" } }),
    "/never": () => {
      // Never closed; the server cancels it when the client goes away.
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("["));
        },
      });
      return new Response(body, {
        headers: { "content-type": "application/json" },
      });
    },
  };
}

/**
 * Writes a (mis)response on a raw connection after the request head was
 * read. `request` counts requests from 1 across the server's life.
 */
export type Fault = (conn: Deno.Conn, request: number) => Promise<void>;

/** A raw TCP server that answers every request with a {@linkcode Fault}. */
export interface FaultServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`, `https://…` for a TLS server */
  url: `${"http" | "https"}://127.0.0.1:${number}`;
  /** Connections accepted. */
  readonly connections: number;
  /** Request lines seen (`"GET /x HTTP/1.1"`), in order. */
  readonly requests: string[];
}

/**
 * Starts a raw TCP server on 127.0.0.1 and an ephemeral port, speaking TLS
 * with `tls`'s certificate and key (PEM) when given. Each connection serves
 * one request: the head is read, `fault` writes whatever it likes, and the
 * connection is closed. Disposing closes the listener and every open
 * connection and waits for every handler.
 */
export function startFaultServer(
  fault: Fault,
  tls?: { cert: string; key: string },
): FaultServer {
  const address = { hostname: "127.0.0.1", port: 0 };
  const listener: Deno.Listener = tls === undefined
    ? Deno.listen(address)
    : Deno.listenTls({ ...address, ...tls });
  const requests: string[] = [];
  const served = serveEach(listener, async (conn) => {
    const head = await readHead(conn);
    if (head === null) return;
    requests.push(head.slice(0, head.indexOf("\r\n")));
    await fault(conn, requests.length);
  });
  return {
    url: `${tls === undefined ? "http" : "https"}://127.0.0.1:${
      (listener.addr as Deno.NetAddr).port
    }` as const,
    get connections() {
      return served.connections;
    },
    requests,
    [Symbol.asyncDispose]: served.close,
  };
}

/** Connections accepted and served, as {@linkcode serveEach} keeps them. */
export interface Served {
  /** Connections accepted. */
  readonly connections: number;
  /** Closes the listener and every open connection; waits for each handler. */
  close(): Promise<void>;
}

/**
 * Accepts every connection on `listener` and hands it to `handle` with its
 * number (from 1); closes it once `handle` settles. A failure of `handle`
 * is the client's or the disposal's closing the connection.
 */
export function serveEach(
  listener: Deno.Listener,
  handle: (conn: Deno.Conn, connection: number) => Promise<void>,
): Served {
  const open = new Set<Deno.Conn>();
  const handlers = new Set<Promise<void>>();
  let connections = 0;
  const closeQuietly = (conn: Deno.Conn) => {
    try {
      conn.close();
    } catch {
      // Already closed.
    }
  };
  const accepting = (async () => {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        return;
      }
      open.add(conn);
      const handler = handle(conn, ++connections).catch(() => {}).finally(
        () => {
          open.delete(conn);
          closeQuietly(conn);
        },
      );
      handlers.add(handler);
      handler.finally(() => handlers.delete(handler));
    }
  })();
  return {
    get connections() {
      return connections;
    },
    async close() {
      listener.close();
      await accepting;
      for (const conn of open) closeQuietly(conn);
      await Promise.all(handlers);
    },
  };
}

const encoder = new TextEncoder();

/** Reads a request head; `null` when the connection ends first. */
async function readHead(conn: Deno.Conn): Promise<string | null> {
  const buffer = new Uint8Array(16 * 1024);
  let head = "";
  const decoder = new TextDecoder();
  while (!head.includes("\r\n\r\n")) {
    const n = await conn.read(buffer);
    if (n === null) return null;
    head += decoder.decode(buffer.subarray(0, n), { stream: true });
  }
  return head;
}

/** Writes all of `data`. */
export async function write(
  conn: Deno.Conn,
  data: string | Uint8Array,
): Promise<void> {
  let bytes = typeof data === "string" ? encoder.encode(data) : data;
  while (bytes.byteLength > 0) {
    bytes = bytes.subarray(await conn.write(bytes));
  }
}

/** Waits until the client closes the connection (or disposal does). */
export async function untilClosed(conn: Deno.Conn): Promise<void> {
  const buffer = new Uint8Array(1024);
  while (await conn.read(buffer) !== null) {
    // Discard.
  }
}

/** A response head; `headers` are written as given. */
export function head(status: string, headers: Record<string, string>): string {
  let text = `HTTP/1.1 ${status}\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    text += `${name}: ${value}\r\n`;
  }
  return `${text}\r\n`;
}

const JSON_CLOSE = { "content-type": "application/json", connection: "close" };

/** A well-formed 200 with a JSON body, then close. */
export function ok(body: unknown): Fault {
  return async (conn) => {
    const text = JSON.stringify(body);
    await write(
      conn,
      head("200 OK", {
        ...JSON_CLOSE,
        "content-length": String(encoder.encode(text).byteLength),
      }) + text,
    );
  };
}

/** Runs `first` for the first `times` requests, then `then`. */
export function firstThen(times: number, first: Fault, then: Fault): Fault {
  return (conn, request) => (request <= times ? first : then)(conn, request);
}

/** Headers saying `Content-Length: 100`, 10 bytes, then close. */
export function shortBody(status = "200 OK"): Fault {
  return async (conn) => {
    await write(
      conn,
      head(status, { ...JSON_CLOSE, "content-length": "100" }) +
        '["0123456',
    );
  };
}

/**
 * A short body (`Content-Length: 10`) that stalls after 5 bytes until the
 * client goes away: a drain before a retry waits it out.
 */
export function stalledBody(
  status: string,
  headers: Record<string, string> = {},
): Fault {
  return async (conn) => {
    await write(
      conn,
      head(status, { "content-length": "10", ...headers }) + "busy,",
    );
    await untilClosed(conn);
  };
}

/** A chunked body that breaks off: one chunk, then the connection closes. */
export async function resetMidBody(conn: Deno.Conn): Promise<void> {
  await write(
    conn,
    head("200 OK", { ...JSON_CLOSE, "transfer-encoding": "chunked" }) +
      'a\r\n["0123456\r\n',
  );
}

/** `Content-Length: 5` followed by more bytes than that. */
export async function longBody(conn: Deno.Conn): Promise<void> {
  await write(
    conn,
    head("200 OK", { ...JSON_CLOSE, "content-length": "5" }) +
      "[1,2]and more bytes than declared",
  );
}

/** A finite JSON body sent one byte at a time. */
export function drip(body: string, everyMs = 1): Fault {
  return async (conn) => {
    const bytes = encoder.encode(body);
    await write(
      conn,
      head("200 OK", {
        ...JSON_CLOSE,
        "content-length": String(bytes.byteLength),
      }),
    );
    for (let i = 0; i < bytes.byteLength; i++) {
      await new Promise((resolve) => setTimeout(resolve, everyMs));
      await write(conn, bytes.subarray(i, i + 1));
    }
  };
}

/** Headers, then nothing until the client goes away. */
export async function neverEnds(conn: Deno.Conn): Promise<void> {
  await write(
    conn,
    head("200 OK", { ...JSON_CLOSE, "content-length": "100" }),
  );
  await untilClosed(conn);
}

/** No response at all until the client goes away. */
export function silent(conn: Deno.Conn): Promise<void> {
  return untilClosed(conn);
}

/** Bytes that are not HTTP, then close. */
export async function garbage(conn: Deno.Conn): Promise<void> {
  await write(conn, "\x00\x01 this is not HTTP at all \xff\r\n\r\n");
}

/**
 * A chunked body of 64 KiB chunks: `totalBytes` of them in all, or without
 * end until the client goes away.
 */
export function hugeChunked(totalBytes = Infinity): Fault {
  return async (conn) => {
    await write(
      conn,
      head("200 OK", { ...JSON_CLOSE, "transfer-encoding": "chunked" }),
    );
    const chunk = encoder.encode(
      `10000\r\n${"x".repeat(0x10000)}\r\n`,
    );
    for (let sent = 0; sent < totalBytes; sent += 0x10000) {
      await write(conn, chunk);
    }
    await write(conn, "0\r\n\r\n");
  };
}

/**
 * A JSON string body of exactly `bytes` bytes with a `Content-Length`, sent
 * in 64 KiB writes while the client reads.
 */
export function hugeDeclared(bytes: number): Fault {
  return async (conn) => {
    await write(
      conn,
      head("200 OK", { ...JSON_CLOSE, "content-length": String(bytes) }),
    );
    const filler = encoder.encode("x".repeat(0x10000));
    let left = bytes - 2;
    await write(conn, '"');
    while (left > 0) {
      const n = Math.min(left, filler.byteLength);
      await write(conn, filler.subarray(0, n));
      left -= n;
    }
    await write(conn, '"');
  };
}
