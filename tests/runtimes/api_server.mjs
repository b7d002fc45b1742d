// deno-lint-ignore-file explicit-module-boundary-types -- plain JavaScript, shared with runtimes that run no TypeScript
/**
 * The API server every runtime of the matrix grabs from: `node:http` on
 * 127.0.0.1 and an ephemeral port, so the same file runs under Node, Deno and
 * Bun. Every response allows any origin and exposes `Link`, so a page served
 * from another port (the browser run) sees what the other runtimes see.
 *
 * The live bodies (`/sse/*`, `/ndjson`, `/file`, `/big`) are written in
 * pieces a few milliseconds apart, so the client reads them as separate
 * chunks; `/forever/:id` never ends, and `/forever/:id/state` tells whether
 * the client has let go of it (its connection closed). `/echo-body` gives
 * back the request's method, type and bytes; `/echo-body/307` (303, 308)
 * redirects there, and `/echo-body/busy/:id` answers 503 once per id.
 * `/unexposed/pages/:n` and `/unexposed/busy/:id` are the same with `Link`
 * and `Retry-After` (an hour) unexposed to a page on another origin.
 * `/pattern?size=N` sends N bytes of a pattern whose every byte its offset
 * decides, to check a large body byte for byte.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";
import { gzipSync } from "node:zlib";
import { startRawServer } from "./raw_server.mjs";

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-expose-headers": "Link, Retry-After, X-Request-Id",
};

const JSON_API = "application/vnd.api+json";

const ARTICLE = {
  data: {
    type: "articles",
    id: "1",
    attributes: { title: "Portable", word_count: 812 },
    relationships: {
      author: {
        data: { type: "people", id: "9" },
        links: { related: "/articles/1/author" },
      },
      comments: { links: { related: "/articles/1/comments" } },
    },
    links: { self: "/articles/1" },
  },
  included: [{ type: "people", id: "9", attributes: { first_name: "Grace" } }],
  meta: { generated: "matrix" },
};

const BLANK_NAME = {
  errors: [{
    status: "422",
    title: "Invalid attribute",
    detail: "can't be blank",
    source: { pointer: "/data/attributes/first_name" },
  }],
};

/**
 * Starts the API server.
 *
 * @returns `{ url, close }`; `close()` also ends connections left open by
 * `/slow`.
 */
export async function startApiServer() {
  const sockets = new Set();
  const forever = new Map();
  const flaky = new Set();
  const raw = await startRawServer();
  const server = createServer((request, response) => {
    if (request.url === "/answer-at-once") {
      // Answers before it reads the body (it never does).
      return sendJson(response, 200, { answered: true });
    }
    if (request.url === "/echo-stream") {
      // Sends the body back as it reads it, from the head on.
      response.writeHead(200, {
        ...CORS,
        "content-type": "application/octet-stream",
      });
      return request.pipe(response);
    }
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const bytes = Buffer.concat(chunks);
      route(request, response, bytes.toString("utf8"), {
        forever,
        received: bytes.byteLength,
        bytes,
        flaky,
        raw,
      });
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await raw.close();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port on 127.0.0.1 that nothing listens on. */
export async function closedPort() {
  const server = createNetServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(() => resolve()));
  return port;
}

function send(response, status, body, headers = {}) {
  response.writeHead(status, { ...CORS, ...headers });
  response.end(body);
}

function sendJson(response, status, value, type = "application/json") {
  send(response, status, JSON.stringify(value), { "content-type": type });
}

const GAP_MS = 5;

/**
 * Writes `parts` (strings or bytes) one by one, `GAP_MS` apart, then ends
 * the body; stops when the client lets go first.
 */
function drip(response, headers, parts) {
  response.writeHead(200, { ...CORS, ...headers });
  let at = 0;
  let timer;
  const next = () => {
    if (at === parts.length) return response.end();
    response.write(parts[at++]);
    timer = setTimeout(next, GAP_MS);
  };
  response.on("close", () => clearTimeout(timer));
  next();
}

const SSE = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
};

// An OpenAI-style chat stream: CRLF on some lines, a CR and its LF in two
// pieces, an event split across pieces, a comment, then [DONE].
const CHAT = [
  'data: {"choices":[{"delta":{"content":"Hel"}}]}\r\n\r\n',
  'data: {"choices":[{"delta":{"con',
  'tent":"lo"}}]}\n\n: keep-alive\r\n\r\ndata: {"choices":[{"delta":',
  '{"content":", wor"}}]}\r',
  '\n\r\ndata: {"choices":[{"delta":{"content":"ld"}}]}\n',
  "\ndata: [DONE]\n\n",
];

// Named events, as Anthropic's API sends them: `event:` types, ids carried
// over to an event without one, a `retry:`, and data of two lines.
const NAMED = [
  "retry: 1500\nevent: message_start\nid: evt-1\n",
  'data: {"type":"message_start"}\n\n',
  "event: content_block_delta\nid: evt-2\ndata: line one\ndata: line two\n\n",
  "event: message_stop\ndata: {}\n\n",
];

// NDJSON: a CRLF, a blank line, "é" split between its two bytes, and a last
// line without a line end.
const NDJSON_BYTES = Buffer.from(
  '{"row_id":1}\r\n\n{"row_id":2,"name":"é"}\n{"row_id":3}',
);
const E_ACUTE = NDJSON_BYTES.indexOf(0xc3);
const NDJSON = [
  NDJSON_BYTES.subarray(0, 8),
  NDJSON_BYTES.subarray(8, E_ACUTE + 1),
  NDJSON_BYTES.subarray(E_ACUTE + 1),
];

/** The bytes of `/bytes`. */
const BYTES = [0, 1, 2, 250, 255, 0x7b, 0x0a];

/** The size of `/big`. */
const BIG = 5000;

/**
 * Byte `i` of `/pattern`: printable ASCII (so it decodes as UTF-8 as it
 * is), and a function of the offset, so a byte moved, lost or overwritten
 * shows. `conformance.mjs` computes the same.
 */
const patternByte = (i) => 32 + ((i * 7 + (i >>> 11)) % 95);

const patterns = new Map();

/** The first `size` bytes of the pattern, made once per size. */
function pattern(size) {
  let bytes = patterns.get(size);
  if (bytes === undefined) {
    bytes = Buffer.alloc(size);
    for (let i = 0; i < size; i++) bytes[i] = patternByte(i);
    patterns.set(size, bytes);
  }
  return bytes;
}

// The sizes `/pattern` writes in, in turn: large and small, odd and even.
const PIECES = [65_536, 1_000, 250_000, 17, 131_072, 4_093];

/**
 * `/pattern?size=N`: N bytes of the pattern, with a Content-Length unless
 * `chunked`, gzip-encoded when `gzip`, one byte a millisecond when
 * `bytewise`; else in pieces of `PIECES` sizes, as fast as the client
 * reads.
 */
function sendPattern(response, url) {
  const size = Number(url.searchParams.get("size"));
  const gzip = url.searchParams.has("gzip");
  const body = gzip ? gzipSync(pattern(size)) : pattern(size);
  const headers = { ...CORS, "content-type": "application/octet-stream" };
  if (gzip) headers["content-encoding"] = "gzip";
  if (!url.searchParams.has("chunked")) {
    headers["content-length"] = String(body.byteLength);
  }
  response.writeHead(200, headers);
  let at = 0;
  let turn = 0;
  let timer;
  let closed = false;
  response.on("close", () => {
    closed = true;
    clearTimeout(timer);
  });
  const bytewise = url.searchParams.has("bytewise");
  const next = () => {
    while (!closed && at < body.byteLength) {
      const piece = bytewise ? 1 : PIECES[turn++ % PIECES.length];
      const more = response.write(body.subarray(at, at + piece));
      at += piece;
      if (bytewise) return void (timer = setTimeout(next, 1));
      if (!more) return void response.once("drain", next);
    }
    if (!closed) response.end();
  };
  next();
}

/**
 * A body that never ends: a piece every 50 ms (an SSE event when `type` is
 * "sse"), or only the first when `stalls`, until the client lets go, which
 * `forever.get(id)` then records.
 */
function neverEnding(response, id, type, forever, stalls) {
  const state = { closed: false, sent: 0 };
  forever.set(id, state);
  const headers = type === "sse"
    ? SSE
    : { "content-type": "application/octet-stream" };
  response.writeHead(200, { ...CORS, ...headers });
  const tick = () => {
    state.sent++;
    response.write(type === "sse" ? `data: tick ${state.sent}\n\n` : "tick\n");
  };
  tick();
  const timer = stalls ? undefined : setInterval(tick, 50);
  response.on("close", () => {
    clearInterval(timer);
    state.closed = true;
  });
}

function route(request, response, body, context) {
  const { forever, received, bytes, flaky, raw } = context;
  const url = new URL(request.url, "http://127.0.0.1");
  const path = url.pathname;
  const method = request.method;

  if (path === "/slow-preflight") {
    // Never answers, its preflight (OPTIONS) included.
    return;
  }
  if (method === "OPTIONS") {
    return send(response, 204, "", {
      "access-control-allow-methods":
        "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
      "access-control-allow-headers":
        request.headers["access-control-request-headers"] ?? "*",
      "access-control-max-age": "600",
    });
  }

  if (path === "/raw") return sendJson(response, 200, { url: raw.url });
  const rawState = /^\/raw\/([\w-]+)\/state$/.exec(path);
  if (rawState) {
    return sendJson(response, 200, raw.states.get(rawState[1]) ?? null);
  }

  const user = /^\/users\/([^/]+)$/.exec(path);
  if (user && (method === "GET" || method === "HEAD")) {
    if (user[1] === "1") {
      return sendJson(response, 200, { id: 1, first_name: "Ada" });
    }
    return sendJson(response, 404, { message: "no such user" });
  }
  if (path === "/no-cors") {
    // No Access-Control-Allow-Origin: a page on another origin may not read it.
    return response.writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ read: true }));
  }
  if (path === "/moved") {
    return send(response, 302, "", { location: "/users/1" });
  }
  if (path === "/moved/ftp") {
    return send(response, 302, "", { location: "ftp://files.test/report" });
  }
  const again = /^\/moved\/(307|308)$/.exec(path);
  if (again) {
    // Asks for the request again, body and all, at /upload.
    return send(response, Number(again[1]), "", { location: "/upload" });
  }
  if (path === "/quote-url") {
    // An error body quoting the request's URL, query and all.
    const quoted = `http://${request.headers.host}${request.url}`;
    return sendJson(response, 400, { error: "bad", url: quoted });
  }
  if (path === "/proxy-error") {
    return send(response, 502, "<html>bad gateway</html>", {
      "content-type": "text/html",
    });
  }
  if (path === "/html") {
    return send(response, 200, "<html>not json</html>", {
      "content-type": "text/html",
    });
  }
  if (path === "/empty") {
    return send(response, 200, "", { "content-length": "0" });
  }
  if (/^\/items\/[^/]+$/.test(path) && method === "DELETE") {
    return send(response, 204, "");
  }
  if (path === "/slow") {
    // Never answers: the client's timeout or abort ends the exchange, and
    // close() destroys the socket if the client does not.
    return;
  }
  if (path === "/sse/chat") return drip(response, SSE, CHAT);
  if (path === "/sse/named") return drip(response, SSE, NAMED);
  if (path === "/ndjson") {
    return drip(response, { "content-type": "application/x-ndjson" }, NDJSON);
  }
  if (path === "/csv") {
    const headers = { "content-type": "text/csv; charset=utf-8" };
    if (url.searchParams.has("chunked")) {
      return drip(response, headers, ["\ufeffa,", "b\n1", ",2\n"]);
    }
    return send(response, 200, "\ufeffa,b\n1,2\n", headers);
  }
  if (path === "/pattern") return sendPattern(response, url);
  if (path === "/bytes") {
    return send(response, 200, Buffer.from(BYTES), {
      "content-type": "Image/PNG",
    });
  }
  if (path === "/file") {
    return drip(response, { "content-length": "9" }, ["abc", "def", "ghi"]);
  }
  if (path === "/big") {
    // In three pieces; without a length when `?chunked`.
    const part = "x".repeat(BIG / 5);
    const parts = [part, part.repeat(3), part];
    if (url.searchParams.has("chunked")) return drip(response, {}, parts);
    return drip(response, { "content-length": String(BIG) }, parts);
  }
  const never = /^\/forever\/([\w-]+)(\/state)?$/.exec(path);
  if (never && never[2]) {
    const state = forever.get(never[1]);
    return sendJson(response, 200, state ?? null);
  }
  if (never) {
    return neverEnding(
      response,
      never[1],
      url.searchParams.get("type"),
      forever,
      url.searchParams.has("stall"),
    );
  }
  if (path === "/upload" && method === "POST") {
    return sendJson(response, 200, {
      size: received,
      type: request.headers["content-type"] ?? null,
    });
  }
  const echo = /^\/echo-body(?:\/(303|307|308)|\/busy\/([\w-]+))?$/.exec(path);
  if (echo?.[1]) {
    return send(response, Number(echo[1]), "", { location: "/echo-body" });
  }
  if (echo?.[2] && !flaky.has(echo[2])) {
    // Busy the first time each id is asked for, then the echo.
    flaky.add(echo[2]);
    return send(response, 503, "busy", { "retry-after": "0" });
  }
  if (echo) {
    // The request as read: its method, its type and every byte, in base64.
    return sendJson(response, 200, {
      method,
      type: request.headers["content-type"] ?? null,
      body: bytes.toString("base64"),
    });
  }
  if (path === "/echo-headers") {
    return sendJson(response, 200, request.headers);
  }
  const page = /^\/pages\/(\d+)$/.exec(path);
  if (page) {
    const n = Number(page[1]);
    const headers = { "content-type": "application/json" };
    if (n < 3) headers.link = `<./${n + 1}?size=1>; rel="next"`;
    return send(response, 200, JSON.stringify([n]), headers);
  }
  // As `/pages/:n` and `/echo-body/busy/:id`, but exposing neither `Link`
  // nor `Retry-After`: a page on another origin cannot read them.
  const unexposed = /^\/unexposed\/(?:pages\/(\d+)|busy\/([\w-]+))$/.exec(path);
  if (unexposed?.[1]) {
    const n = Number(unexposed[1]);
    return response.writeHead(200, {
      "access-control-allow-origin": "*",
      "content-type": "application/json",
      ...(n < 3 ? { link: `<./${n + 1}>; rel="next"` } : {}),
    }).end(JSON.stringify([n]));
  }
  if (unexposed?.[2]) {
    const first = !flaky.has(unexposed[2]);
    flaky.add(unexposed[2]);
    return response.writeHead(first ? 503 : 200, {
      "access-control-allow-origin": "*",
      "content-type": "application/json",
      ...(first ? { "retry-after": "3600" } : {}),
    }).end(JSON.stringify({ busy: first }));
  }
  // Past page 3, the server sends the client back to page 2.
  const round = /^\/round\/(\d+)$/.exec(path);
  if (round) {
    const n = Number(round[1]);
    if (n === 4) return send(response, 302, "", { location: "/round/2" });
    return send(response, 200, JSON.stringify([n]), {
      "content-type": "application/json",
      link: `<./${n + 1}>; rel="next"`,
    });
  }
  if (path === "/articles/1" && method === "GET") {
    return sendJson(response, 200, ARTICLE, JSON_API);
  }
  if (path === "/articles" && method === "POST") {
    const document = JSON.parse(body);
    return sendJson(response, 201, {
      data: { ...document.data, id: "2" },
      meta: {
        received: document,
        content_type: request.headers["content-type"] ?? null,
        accept: request.headers["accept"] ?? null,
      },
    }, JSON_API);
  }
  if (path === "/people" && method === "POST") {
    return sendJson(response, 422, BLANK_NAME, JSON_API);
  }
  return send(response, 404, "no route", { "content-type": "text/plain" });
}
