// deno-lint-ignore-file explicit-module-boundary-types -- plain JavaScript, shared with runtimes that run no TypeScript
/**
 * The API server every runtime of the matrix grabs from: `node:http` on
 * 127.0.0.1 and an ephemeral port, so the same file runs under Node, Deno and
 * Bun. Every response allows any origin and exposes `Link`, so a page served
 * from another port (the browser run) sees what the other runtimes see.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { createServer } from "node:http";
import { createServer as createNetServer } from "node:net";

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
  const server = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      route(request, response, body);
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
    close() {
      for (const socket of sockets) socket.destroy();
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

function route(request, response, body) {
  const url = new URL(request.url, "http://127.0.0.1");
  const path = url.pathname;
  const method = request.method;

  if (method === "OPTIONS") {
    return send(response, 204, "", {
      "access-control-allow-methods":
        "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
      "access-control-allow-headers":
        request.headers["access-control-request-headers"] ?? "*",
      "access-control-max-age": "600",
    });
  }

  const user = /^\/users\/([^/]+)$/.exec(path);
  if (user && (method === "GET" || method === "HEAD")) {
    if (user[1] === "1") {
      return sendJson(response, 200, { id: 1, first_name: "Ada" });
    }
    return sendJson(response, 404, { message: "no such user" });
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
