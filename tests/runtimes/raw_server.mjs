// deno-lint-ignore-file explicit-module-boundary-types -- plain JavaScript, shared with runtimes that run no TypeScript
/**
 * A raw HTTP/1.1 server (`node:net`) for the answers `node:http` will not
 * write: framing that lies, a body cut off mid-chunk, a body ended by
 * closing the connection, a 204 with a body, an error status whose body
 * never ends. Each answer allows any origin, as the API server's do.
 * `/state/:name` (answered by the API server's own routes in
 * `api_server.mjs`) is not served here: `states.get(name)` records whether
 * the client let go of every `:name` answer. The endless answers write until
 * their connection closes: one a client lets go of but keeps open is a leak
 * the state shows.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { createServer } from "node:net";
import { gzipSync } from "node:zlib";

const CORS = "access-control-allow-origin: *\r\n";

function head(status, headers) {
  const lines = headers.map((line) => `${line}\r\n`).join("");
  return `HTTP/1.1 ${status} Raw\r\n${CORS}${lines}\r\n`;
}

const JSON_TYPE = "content-type: application/json";

// 1 MiB of "a", gzipped to about a kilobyte.
let bomb;
const gzipBomb = () => bomb ??= gzipSync(Buffer.alloc(1 << 20, 0x61));

/** The size of `/gzip-noise` once decoded. */
export const NOISE = 10_000;

/** {@linkcode NOISE} bytes that do not compress: the same on every call. */
function noise() {
  const bytes = Buffer.alloc(NOISE);
  let seed = 1;
  for (let i = 0; i < NOISE; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    bytes[i] = seed >>> 24;
  }
  return bytes;
}

/** A chunk of `size` bytes of "e" in chunked framing. */
const chunk = (size) => `${size.toString(16)}\r\n${"e".repeat(size)}\r\n`;

/**
 * The answers by name: each writes to `socket` (given the request's head
 * too), and ends it or leaves it open (then the client's timeout or cancel
 * ends it).
 */
const ANSWERS = {
  // Content-Length says 100, the server sends 7 bytes and closes.
  "long": (socket) =>
    socket.end(head(200, [JSON_TYPE, "content-length: 100"]) + '{"a":1}'),
  // Content-Length says 100, 7 bytes come, then nothing.
  "long-open": (socket) =>
    socket.write(head(200, [JSON_TYPE, "content-length: 100"]) + '{"a":1}'),
  // A chunk that promises 16 bytes, 5 sent, then the close.
  "cut": (socket) =>
    socket.end(
      head(200, [JSON_TYPE, "transfer-encoding: chunked"]) + '10\r\n{"a":',
    ),
  // An HTTP/1.0 body ended by the close, larger than the matrix's cap.
  "close-delimited": (socket) =>
    socket.end(
      `HTTP/1.0 200 OK\r\n${CORS}content-type: text/plain\r\n\r\n` +
        "x".repeat(50_000),
    ),
  // Content-Length and Transfer-Encoding: chunked, the chunks over the cap.
  "length-and-chunked": (socket) =>
    socket.end(
      head(200, ["content-type: text/plain", "content-length: 3"]).replace(
        "\r\n\r\n",
        "\r\ntransfer-encoding: chunked\r\n\r\n",
      ) + chunk(4096).repeat(10) + "0\r\n\r\n",
    ),
  "gzip-bomb": (socket) => {
    const body = gzipBomb();
    socket.write(head(200, [
      "content-type: text/plain",
      "content-encoding: gzip",
      `content-length: ${body.length}`,
    ]));
    socket.end(body);
  },
  // 10,000 bytes that do not compress, gzipped: the length sent is a few
  // bytes over their size.
  "gzip-noise": (socket) => {
    const body = gzipSync(noise());
    socket.write(head(200, [
      "content-type: application/octet-stream",
      "content-encoding: gzip",
      `content-length: ${body.length}`,
    ]));
    socket.end(body);
  },
  // The gzipped noise of `/gzip-noise` cut to half, its length that half:
  // the framing is whole, the gzip stream ends early.
  "gzip-short": (socket) => {
    const full = gzipSync(noise());
    const body = full.subarray(0, full.length >> 1);
    socket.write(head(200, [
      "content-type: application/octet-stream",
      "content-encoding: gzip",
      `content-length: ${body.length}`,
    ]));
    socket.end(body);
  },
  // JSON labelled gzip that is not gzip: no retry would decode it.
  "not-gzip": (socket) => {
    const body = JSON.stringify({ a: "not gzip ".repeat(20) });
    socket.end(
      head(200, [
        JSON_TYPE,
        "content-encoding: gzip",
        `content-length: ${body.length}`,
      ]) + body,
    );
  },
  // A 500 whose chunked body never ends.
  "endless-error": (socket) => {
    socket.write(
      head(500, ["content-type: text/plain", "transfer-encoding: chunked"]),
    );
    const timer = setInterval(() => socket.write(chunk(1024)), 2);
    socket.on("close", () => clearInterval(timer));
  },
  // A 503 whose body stops after 4 of its 100 bytes, the connection open.
  "stalled-error": (socket) =>
    socket.write(head(503, [JSON_TYPE, "content-length: 100"]) + '{"a"'),
  // 200 valid header lines of about 100 bytes: past Deno's 100 lines and
  // Node's 16 KiB.
  "big-head": (socket) =>
    socket.end(
      head(200, [
        JSON_TYPE,
        "content-length: 2",
        ...Array.from(
          { length: 200 },
          (_, i) => `x-h-${i}: ${"v".repeat(100)}`,
        ),
      ]) + "{}",
    ),
  // The connection closed with no answer at all.
  "closed": (socket) => socket.end(),
  // A status line whose code is no number: not HTTP/1.1.
  "not-http": (socket) =>
    socket.end("HTTP/1.1 2x0 Raw\r\ncontent-length: 0\r\n\r\n"),
  // A 200 whose chunked body never ends, a chunk of "e" every 2 ms: no
  // line end, so a line or an event of it passes any cap.
  "endless": (socket) => endless(socket, 200, "text/plain", () => chunk(1024)),
  // The same, its length said: a gigabyte.
  "endless-sized": (socket) => sized(socket, 200),
  // A 500 of the same.
  "endless-sized-500": (socket) => sized(socket, 500),
  // A value a line, never ending.
  "endless-lines": (socket) =>
    endless(socket, 200, "application/x-ndjson", () => lines('{"n":1}\n')),
  // An event every 2 ms, never ending: as NDJSON, a line that is no JSON.
  "endless-events": (socket) =>
    endless(socket, 200, "text/event-stream", () => lines("data: {}\n\n")),
  // A value a line, then nothing, the connection open.
  "stalled": (socket) =>
    socket.write(
      head(200, [
        "content-type: application/x-ndjson",
        "transfer-encoding: chunked",
      ]) +
        lines('{"n":1}\n'),
    ),
  // A 302 whose chunked body never ends.
  "endless-302": (socket) =>
    endless(socket, 302, "text/plain", () => chunk(1024), ["location: /x"]),
  // A 503 whose chunked body never ends.
  "endless-503": (socket) =>
    endless(socket, 503, "text/plain", () => chunk(1024)),
  // A 200 head a byte every 5 ms, never ended: past any timeout.
  "slow-head": (socket) => {
    const text = head(200, [JSON_TYPE, `x-pad: ${"p".repeat(100_000)}`]);
    let at = 0;
    const timer = setInterval(() => socket.write(text[at++]), 5);
    socket.on("close", () => clearInterval(timer));
  },
  // A 302 to the URL in the `to` query parameter.
  "away": (socket, request) => {
    const to = new URL(/^\w+ (\S+)/.exec(request)[1], "http://raw").searchParams
      .get("to");
    socket.end(head(302, [`location: ${to}`, "content-length: 0"]));
  },
  "no-content-with-body": (socket) =>
    socket.end(head(204, [JSON_TYPE, "content-length: 7"]) + '{"a":1}'),
};

/** `text` as one chunk, in chunked framing. */
const lines = (text) => `${text.length.toString(16)}\r\n${text}\r\n`;

/** A chunked answer of `status` whose body is `next()` every 2 ms, forever. */
function endless(socket, status, type, next, more = []) {
  socket.write(
    head(status, [
      `content-type: ${type}`,
      "transfer-encoding: chunked",
      ...more,
    ]),
  );
  const timer = setInterval(() => socket.write(next()), 2);
  socket.on("close", () => clearInterval(timer));
}

/** An answer of `status` a gigabyte long, 1 KiB of "e" every 2 ms. */
function sized(socket, status) {
  socket.write(
    head(status, ["content-type: text/plain", "content-length: 1000000000"]),
  );
  const timer = setInterval(() => socket.write("e".repeat(1024)), 2);
  socket.on("close", () => clearInterval(timer));
}

/** Relabels the head `socket` writes as `text/event-stream`. */
function asEvents(socket) {
  for (const name of ["write", "end"]) {
    const original = socket[name].bind(socket);
    socket[name] = (data, ...rest) =>
      original(
        typeof data === "string" && data.startsWith("HTTP/")
          ? data.replace(/(\r\ncontent-type:)[^\r]*/i, "$1 text/event-stream")
          : data,
        ...rest,
      );
  }
}

/**
 * Starts the raw server.
 *
 * @returns `{ url, states, close }`: `states.get(name)` is `"open"` while
 * a connection an answer of `name` had is open, then `"closed"`.
 */
export async function startRawServer() {
  const states = new Map();
  const open = new Map();
  const sockets = new Set();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    let seen = "";
    const onData = (data) => {
      seen += data;
      if (!seen.includes("\r\n\r\n")) return;
      socket.off("data", onData);
      const name = /^\w+ \/([\w-]+)/.exec(seen)?.[1] ?? "";
      const answer = ANSWERS[name];
      if (!answer) return socket.end(head(404, ["content-length: 0"]));
      // An SSE read's answers are labelled as events, so that what each
      // tests is its framing, not its type.
      if (/\r\naccept:[^\r]*text\/event-stream/i.test(seen)) asEvents(socket);
      // "closed" once every connection an answer of `name` had is.
      open.set(name, (open.get(name) ?? 0) + 1);
      states.set(name, "open");
      socket.on("close", () => {
        sockets.delete(socket);
        open.set(name, open.get(name) - 1);
        if (open.get(name) === 0) states.set(name, "closed");
      });
      answer(socket, seen);
    };
    socket.on("data", onData);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    states,
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
