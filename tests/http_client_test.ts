/**
 * A grab through an HTTP client of the caller's own, as the README's recipe
 * "A private CA, a client certificate or a proxy" makes it: a `fetch` that
 * hands Deno's `HttpClient` on. What a proxy answers is told: credentials it
 * wants are not retried, a tunnel it does not open is.
 *
 * @module
 */

import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import createGrab, { GrabError, GrabTransportError } from "../mod.ts";
import { assertUnmended, counted } from "./_counted_retry.ts";
import {
  type Fault,
  head,
  startFaultServer,
  untilClosed,
  write,
} from "./_faults.ts";
import { pem } from "./_tls.ts";

const CREDENTIALS = "the proxy wants credentials";
const NO_TUNNEL = "the proxy did not open a tunnel to the server";

/** The README's recipe: a `fetch` that sends through `client`. */
function through(client: Deno.HttpClient): typeof fetch {
  return (input, init) => fetch(input, { ...init, client });
}

/** A proxy that answers a `CONNECT` with `status` and closes. */
function refusing(status: string): Fault {
  return async (conn) => {
    await write(conn, head(status, { "content-length": "0" }));
  };
}

Deno.test("a client that trusts a private CA reads its server", async () => {
  const tls = { cert: pem("server.crt"), key: pem("server.key") };
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {}, ...tls },
    (request) => Response.json({ auth: request.headers.get("authorization") }),
  );
  using client = Deno.createHttpClient({ caCerts: [pem("ca.crt")] });
  const grab = createGrab(`https://127.0.0.1:${server.addr.port}`, {
    fetch: through(client),
    headers: { authorization: "Bearer t0ken" },
  });
  const [data, error] = await grab("GET /item");
  assertEquals(error, null);
  assertEquals(data, { auth: "Bearer t0ken" });
});

Deno.test("a proxy is sent the request and its credentials", async () => {
  const seen: string[] = [];
  await using proxy = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => {
      const credentials = request.headers.get("proxy-authorization");
      seen.push(`${request.method} ${request.url} ${credentials}`);
      return Response.json({ via: "proxy" });
    },
  );
  using client = Deno.createHttpClient({
    proxy: {
      url: `http://127.0.0.1:${proxy.addr.port}`,
      basicAuth: { username: "user", password: "pass" },
    },
  });
  const grab = createGrab("http://127.0.0.1:8080", {
    fetch: through(client),
  });
  const [data, error] = await grab("GET /items", { query: { page: 2 } });
  assertEquals(error, null);
  assertEquals(data, { via: "proxy" });
  assertEquals(seen, [
    `GET http://127.0.0.1:8080/items?page=2 Basic ${btoa("user:pass")}`,
  ]);
});

Deno.test("a proxy that wants credentials for a tunnel fails at once, saying so", async () => {
  await using proxy = startFaultServer(
    refusing("407 Proxy Authentication Required"),
  );
  using client = Deno.createHttpClient({ proxy: { url: proxy.url } });
  await assertUnmended(
    "https://127.0.0.1:8443",
    CREDENTIALS,
    () => proxy.connections,
    through(client),
  );
  assertEquals(proxy.requests, ["CONNECT 127.0.0.1:8443 HTTP/1.1"]);
});

Deno.test("a tunnel the proxy does not open is retried, and told", async (t) => {
  for (const status of ["403 Forbidden", "502 Bad Gateway"]) {
    await t.step(status, async () => {
      await using proxy = startFaultServer(refusing(status));
      using client = Deno.createHttpClient({ proxy: { url: proxy.url } });
      const { retry, made } = counted();
      const grab = createGrab("https://127.0.0.1:8443", {
        fetch: through(client),
        retry,
      });
      const [, error] = await grab("GET /items");
      assertInstanceOf(error, GrabTransportError);
      assertEquals(error.kind, "network");
      assert(error.message.includes(NO_TUNNEL), error.message);
      assertEquals(made(), 2);
      assertEquals(proxy.connections, 3);
    });
  }
});

Deno.test("a plain http URL's 407 from the proxy is an HTTP error", async () => {
  await using proxy = startFaultServer(
    refusing("407 Proxy Authentication Required"),
  );
  using client = Deno.createHttpClient({ proxy: { url: proxy.url } });
  const grab = createGrab("http://127.0.0.1:8080", {
    fetch: through(client),
  });
  const [data, error] = await grab("GET /items");
  assertEquals(data, null);
  assertInstanceOf(error, GrabError);
  assertEquals(error.statusCode, 407);
  assertEquals(proxy.requests, ["GET http://127.0.0.1:8080/items HTTP/1.1"]);
});

Deno.test("a proxy that never answers is bounded by the timeout", async () => {
  await using proxy = startFaultServer((conn) => untilClosed(conn));
  using client = Deno.createHttpClient({ proxy: { url: proxy.url } });
  const grab = createGrab("https://127.0.0.1:8443", {
    fetch: through(client),
    timeout: 200,
    retry: 0,
  });
  const [, error] = await grab("GET /items");
  assertInstanceOf(error, GrabTransportError);
  assertEquals(error.kind, "timeout");
});

Deno.test("Node's and Bun's words for a proxy's refusal are told too", async (t) => {
  /** Node's undici: an `AbortError` under "fetch failed" that no signal made. */
  const node = (status: number) =>
    new TypeError("fetch failed", {
      cause: Object.assign(
        new Error("Request was cancelled.", {
          cause: Object.assign(
            new Error(`Proxy response (${status}) !== 200 when HTTP Tunneling`),
            { name: "AbortError", code: "UND_ERR_ABORTED" },
          ),
        }),
        { code: 0 },
      ),
    });
  const bun = (status: string) =>
    Object.assign(new Error(`Proxy refused to open a tunnel: ${status}`), {
      code: "ERR_PROXY_TUNNEL",
    });
  const cases: [string, Error, string, number][] = [
    ["Node: 407", node(407), CREDENTIALS, 0],
    ["Node: 403", node(403), NO_TUNNEL, 2],
    ["Bun: 407", bun("407 Proxy Authentication Required"), CREDENTIALS, 0],
    ["Bun: 502", bun("502 Bad Gateway"), NO_TUNNEL, 2],
  ];
  for (const [name, rejection, says, retries] of cases) {
    await t.step(name, async () => {
      const { retry, made } = counted();
      const grab = createGrab("https://127.0.0.1:8443", {
        fetch: () => Promise.reject(rejection),
        retry,
      });
      const [, error] = await grab("GET /items");
      assertInstanceOf(error, GrabTransportError);
      assertEquals(error.kind, "network");
      assert(error.message.includes(says), error.message);
      assertEquals(made(), retries);
    });
  }
});
