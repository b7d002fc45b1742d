/**
 * A network failure says what the runtime says it was, where it says: a
 * host name that did not resolve, a connection refused, one closed before
 * the answer. Such failures are still retried.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import createGrab from "../mod.ts";
import { networkSaid } from "../src/network_said.ts";
import { chainOf } from "../src/unmendable.ts";
import { assertTransport, runChild, settles } from "./_bounds.ts";
import { closedPort } from "./_server.ts";

const PREFIX = "Cannot complete the request: the network failed";

/** A TCP server that closes each connection once the request arrives. */
function closingServer():
  & { port: number; connections: number }
  & AsyncDisposable {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const state = { connections: 0 };
  const open = new Set<Deno.Conn>();
  const accepting = (async () => {
    for await (const conn of listener) {
      state.connections++;
      open.add(conn);
      conn.read(new Uint8Array(1024)).finally(() => {
        open.delete(conn);
        conn.close();
      }).catch(() => {});
    }
  })();
  return {
    port: (listener.addr as Deno.NetAddr).port,
    get connections() {
      return state.connections;
    },
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const conn of open) conn.close();
      await accepting.catch(() => {});
    },
  };
}

Deno.test("a network failure says what the runtime says it was", async (t) => {
  await t.step(
    "a port nothing listens on: the connection refused",
    async () => {
      const origin = `http://127.0.0.1:${closedPort()}`;
      const result = await settles(createGrab(origin, { retry: 0 })("GET /a"));
      assertEquals(
        assertTransport(result, "network").message,
        `${PREFIX} (the server refused the connection: nothing listens on that host and port): GET ${origin}/a`,
      );
    },
  );

  await t.step(
    "a port nothing listens on, asked with a long query",
    async () => {
      // Deno's message names the URL before what failed: with a query of
      // some 600 characters, the words come late in it.
      const origin = `http://127.0.0.1:${closedPort()}`;
      const query = { filter: "x".repeat(600) };
      const grab = createGrab(origin, { retry: 0 });
      const result = await settles(grab("GET /a", { query }));
      assertEquals(
        assertTransport(result, "network").message,
        `${PREFIX} (the server refused the connection: nothing listens on that host and port): GET ${origin}/a`,
      );
    },
  );

  await t.step("a server that closes the connection, retried", async () => {
    await using server = closingServer();
    const origin = `http://127.0.0.1:${server.port}`;
    const grab = createGrab(origin, { retry: { limit: 1, backoff: () => 0 } });
    const result = await settles(grab("GET /a"));
    assertEquals(
      assertTransport(result, "network").message,
      `${PREFIX} after 2 attempts (the server closed the connection before it answered): GET ${origin}/a`,
    );
    assertEquals(server.connections, 2, "the failure was not retried");
  });

  await t.step("a host name that does not resolve", async () => {
    // `.invalid` never resolves (RFC 6761); with no name server at all, the
    // lookup fails as well. In a child allowed the host.
    const { kind, message } = await runChild<{ kind: string; message: string }>(
      "./_dns_child.ts",
      ["--allow-net=grab-test.invalid", "--allow-read=."],
    );
    assertEquals(kind, "network");
    assertEquals(
      message,
      `${PREFIX} (the host name did not resolve: check the URL's host): GET http://grab-test.invalid/a`,
    );
  });
});

Deno.test("networkSaid() reads Node's and Bun's codes, and tells nothing it does not know", () => {
  const fetchFailed = (code: string, message: string) =>
    new TypeError("fetch failed", {
      cause: Object.assign(new Error(message), { code }),
    });
  const cases: [string, unknown, string | undefined][] = [
    [
      "Node's lookup",
      fetchFailed("ENOTFOUND", "getaddrinfo ENOTFOUND api.example"),
      "the host name did not resolve: check the URL's host",
    ],
    [
      "a lookup to try again",
      fetchFailed("EAI_AGAIN", "getaddrinfo EAI_AGAIN api.example"),
      "the host name did not resolve: check the URL's host",
    ],
    [
      "Bun's refusal",
      Object.assign(new TypeError("ECONNREFUSED: Unable to connect."), {
        code: "ECONNREFUSED",
      }),
      "the server refused the connection: nothing listens on that host and port",
    ],
    [
      "undici's closed socket",
      fetchFailed("UND_ERR_SOCKET", "other side closed"),
      "the server closed the connection before it answered",
    ],
    ["a browser's", new TypeError("Failed to fetch"), undefined],
    [
      "a code it does not know",
      fetchFailed("EHOSTUNREACH", "no route"),
      undefined,
    ],
    ["not an error", "ECONNREFUSED", undefined],
  ];
  for (const [what, cause, told] of cases) {
    assertEquals(networkSaid(chainOf(cause)), told, what);
  }
  // A failure's words are read from its message only: a URL in it that
  // looks like a failure's words tells nothing.
  const named = new TypeError("fetch failed", {
    cause: new Error(
      "error sending request for url (http://x.example/dns%20error/Connection%20refused)",
    ),
  });
  assert(
    networkSaid(chainOf(named)) === undefined,
    "a host name told a failure",
  );
});
