/**
 * A raw HTTP/1.1 keep-alive server that counts the connections it accepts,
 * for the connection reuse tests: `Deno.serve` does not say how many
 * connections carried its requests.
 *
 * @module
 */

import createGrab, { type GrabError, type GrabTransportError } from "../mod.ts";
import { serveEach, write } from "./_faults.ts";

/** One request as the server read it. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: Headers;
  /** Which connection (from 1) carried it. */
  connection: number;
}

/**
 * Writes the answer to `request` on `conn`. Resolves `true` to keep the
 * connection for the next request, `false` to close it.
 */
export type Answer = (
  conn: Deno.Conn,
  request: SeenRequest,
) => Promise<boolean>;

/** A keep-alive server on 127.0.0.1 and an ephemeral port. */
export interface KeepAliveServer extends AsyncDisposable {
  url: `http://127.0.0.1:${number}`;
  /** Connections accepted. */
  readonly connections: number;
  /** Requests read, in order. */
  readonly requests: SeenRequest[];
}

const decoder = new TextDecoder();

/** Reads request heads off one connection, keeping bytes past a head. */
class HeadReader {
  #conn: Deno.Conn;
  #buffered = new Uint8Array(0);
  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  /** The next head (up to CRLF CRLF), `null` when the connection ends. */
  async head(): Promise<string | null> {
    for (;;) {
      const end = headEnd(this.#buffered);
      if (end >= 0) {
        const head = decoder.decode(this.#buffered.subarray(0, end));
        this.#buffered = this.#buffered.slice(end + 4);
        return head;
      }
      const chunk = new Uint8Array(16 * 1024);
      const n = await this.#conn.read(chunk);
      if (n === null) return null;
      const joined = new Uint8Array(this.#buffered.byteLength + n);
      joined.set(this.#buffered);
      joined.set(chunk.subarray(0, n), this.#buffered.byteLength);
      this.#buffered = joined;
    }
  }

  /** Drops `length` body bytes. */
  async skip(length: number): Promise<void> {
    while (this.#buffered.byteLength < length) {
      const chunk = new Uint8Array(16 * 1024);
      const n = await this.#conn.read(chunk);
      if (n === null) return;
      const joined = new Uint8Array(this.#buffered.byteLength + n);
      joined.set(this.#buffered);
      joined.set(chunk.subarray(0, n), this.#buffered.byteLength);
      this.#buffered = joined;
    }
    this.#buffered = this.#buffered.slice(length);
  }
}

function headEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.byteLength; i++) {
    if (
      bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 &&
      bytes[i + 3] === 10
    ) return i;
  }
  return -1;
}

/**
 * Starts a keep-alive server: every request on a connection is answered by
 * `answer`, and the connection serves the next one unless `answer` says
 * otherwise or the client closes it. Disposing closes the listener and
 * every open connection and waits for every handler.
 */
export function startKeepAliveServer(answer: Answer): KeepAliveServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const requests: SeenRequest[] = [];
  const served = serveEach(listener, async (conn, connection) => {
    const reader = new HeadReader(conn);
    for (;;) {
      const head = await reader.head();
      if (head === null) return;
      const [line = "", ...fields] = head.split("\r\n");
      const [method = "", path = ""] = line.split(" ");
      const headers = new Headers();
      for (const field of fields) {
        const colon = field.indexOf(":");
        headers.append(field.slice(0, colon), field.slice(colon + 1).trim());
      }
      await reader.skip(Number(headers.get("content-length") ?? "0"));
      const request = { method, path, headers, connection };
      requests.push(request);
      if (!await answer(conn, request)) return;
    }
  });
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}` as const,
    get connections() {
      return served.connections;
    },
    requests,
    [Symbol.asyncDispose]: served.close,
  };
}

const encoder = new TextEncoder();

/** How a reply's body goes out. */
export type Framing = "length" | "chunked" | "length, body later";

/**
 * Writes a whole response with a `Content-Length` (or, `"chunked"`, as one
 * chunk and the last chunk), keeping the connection; a HEAD request, a 204
 * and a 304 get the head only. With `"length, body later"` the body follows
 * the head 20 ms later, as a server that sends its head first does, so that
 * the client has the head alone for a while.
 */
export async function reply(
  conn: Deno.Conn,
  request: SeenRequest,
  status: string,
  headers: Record<string, string>,
  body = "",
  framed: Framing = "length",
): Promise<boolean> {
  const chunked = framed === "chunked";
  const bytes = encoder.encode(body);
  const bodiless = request.method === "HEAD" || /^(204|304)/.test(status);
  const framing: Record<string, string> = bodiless && status.startsWith("204")
    ? {}
    : chunked
    ? { "transfer-encoding": "chunked" }
    : { "content-length": String(bytes.byteLength) };
  let text = `HTTP/1.1 ${status}\r\n`;
  for (const [name, value] of Object.entries({ ...headers, ...framing })) {
    text += `${name}: ${value}\r\n`;
  }
  text += "\r\n";
  // One write: a head and a body written apart wait on the client's delayed
  // acknowledgement of the first.
  let tail = "";
  if (!bodiless && chunked) {
    const size = bytes.byteLength;
    tail = size > 0
      ? `${size.toString(16)}\r\n${body}\r\n0\r\n\r\n`
      : "0\r\n\r\n";
  } else if (!bodiless) {
    tail = body;
  }
  if (framed !== "length, body later" || tail === "") {
    await write(conn, text + tail);
    return true;
  }
  await write(conn, text);
  await new Promise((resolve) => setTimeout(resolve, 20));
  await write(conn, tail);
  return true;
}

/** The head of a 503 with `headers` (each ended by CRLF). */
export const head503 = (headers: string): string =>
  `HTTP/1.1 503 Service Unavailable\r\n${headers}\r\n`;

/** What {@linkcode retriedAfter} got, and what its server saw. */
export interface Retried {
  data: unknown;
  error: GrabError | GrabTransportError | null;
  /** Connections the server accepted. */
  connections: number;
  /** Requests the server answered or began to. */
  calls: number;
}

/**
 * A grab retried once (at once) after a 503 whose head and body `first`
 * writes (resolving whether to keep the connection), then answered `[1]` on
 * any connection; what it got, with the connections and requests the
 * server saw.
 */
export async function retriedAfter(
  first: (conn: Deno.Conn) => Promise<boolean>,
  timeout = 10_000,
): Promise<Retried> {
  let calls = 0;
  await using server = startKeepAliveServer((conn, r) =>
    ++calls === 1
      ? first(conn)
      : reply(conn, r, "200 OK", { "content-type": "application/json" }, "[1]")
  );
  const grab = createGrab(server.url, {
    retry: { limit: 1, backoff: () => 0 },
    timeout,
  });
  const [data, error] = await grab("GET /flaky");
  return { data, error, connections: server.connections, calls };
}
