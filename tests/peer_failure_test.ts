import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import { assertUnmended, counted } from "./_counted_retry.ts";
import { pem, trustingFetch } from "./_tls.ts";
import createGrab, { GrabTransportError } from "../mod.ts";
import {
  type Fault,
  garbage,
  ok,
  startFaultServer,
  untilClosed,
  write,
} from "./_faults.ts";

/** The fixture key with one of the fixture certificates (see its README). */
const tlsOf = (cert: string) => ({ cert: pem(cert), key: pem("server.key") });

const CERTIFICATE = "refused the server's TLS certificate";
const NOT_TLS = "does not speak https";
const NOT_HTTP = "is not valid HTTP/1.1";
const HEAD_TOO_LARGE = "its head is larger than the runtime reads";

/** Waits for the TLS client to give up, then closes. */
const heldOpen: Fault = async (conn) => await untilClosed(conn);

Deno.test("a certificate the runtime refuses fails at once, saying so", async (t) => {
  await t.step("issued by an authority nobody trusts", async () => {
    await using server = startFaultServer(heldOpen, tlsOf("server.crt"));
    await assertUnmended(server.url, CERTIFICATE, () => server.connections);
  });
  for (const cert of ["other_host.crt", "expired.crt"]) {
    await t.step(`trusted, but ${cert}`, async () => {
      await using server = startFaultServer(heldOpen, tlsOf(cert));
      using trusting = trustingFetch();
      const connections = () => server.connections;
      await assertUnmended(server.url, CERTIFICATE, connections, trusting);
    });
  }
  await t.step("the fixtures' own certificate, trusted, is read", async () => {
    await using server = startFaultServer(ok({ id: 1 }), tlsOf("server.crt"));
    using trusting = trustingFetch();
    const grab = createGrab(server.url, { fetch: trusting });
    const [data, error] = await grab("GET /item");
    assertEquals(error, null);
    assertEquals(data, { id: 1 });
  });
});

Deno.test("https to a port that does not speak TLS fails at once", async () => {
  // A TLS hello has no end of a request head: a server of its own answers it.
  let connections = 0;
  const plain = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const serving = (async () => {
    for await (const conn of plain) {
      connections++;
      await write(conn, "HTTP/1.1 400 Bad Request\r\n\r\n").catch(() => {});
      conn.close();
    }
  })();
  try {
    const { port } = plain.addr as Deno.NetAddr;
    await assertUnmended(
      `https://127.0.0.1:${port}`,
      NOT_TLS,
      () => connections,
    );
  } finally {
    plain.close();
    await serving;
  }
});

Deno.test("an answer that is not HTTP/1.1 fails at once, saying so", async (t) => {
  const answers: [string, string][] = [
    [
      "a malformed status line",
      "HTTQ/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}",
    ],
    [
      "a status of four digits",
      "HTTP/1.1 2000 OK\r\ncontent-length: 2\r\n\r\n{}",
    ],
    ["a header name with a space", "HTTP/1.1 200 OK\r\nbad name: x\r\n\r\n{}"],
    ["an HTTP/0.9 answer, the body alone", '{"id":1}'],
  ];
  for (const [name, answer] of answers) {
    await t.step(name, async () => {
      await using server = startFaultServer((conn) => write(conn, answer));
      await assertUnmended(server.url, NOT_HTTP, () => server.connections);
    });
  }
  await t.step("bytes that are not HTTP at all", async () => {
    await using server = startFaultServer(garbage);
    await assertUnmended(server.url, NOT_HTTP, () => server.connections);
  });
  await t.step("http to a TLS port", async () => {
    await using server = startFaultServer(heldOpen, tlsOf("server.crt"));
    const url = server.url.replace("https:", "http:");
    await assertUnmended(url, NOT_HTTP, () => server.connections);
  });
});

Deno.test("an answer whose head is larger than the runtime reads fails at once, saying so", async () => {
  // 200 header lines of about 100 bytes: past what Deno's fetch reads (and
  // Node's 16 KiB), though each line is valid HTTP/1.1.
  const lines = Array.from(
    { length: 200 },
    (_, i) => `x-h-${i}: ${"v".repeat(100)}\r\n`,
  ).join("");
  const answer = `HTTP/1.1 200 OK\r\n${lines}content-length: 2\r\n\r\n{}`;
  await using server = startFaultServer((conn) => write(conn, answer));
  await assertUnmended(server.url, HEAD_TOO_LARGE, () => server.connections);
});

Deno.test("a TLS handshake that never ends is bounded by the timeout", async () => {
  // A server that never answers: the client's hello waits for ever.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) held.push(conn);
  })();
  try {
    const { port } = listener.addr as Deno.NetAddr;
    const grab = createGrab(`https://127.0.0.1:${port}`, { timeout: 200 });
    const [, error] = await grab("GET /item");
    assertInstanceOf(error, GrabTransportError);
    assertEquals(error.kind, "timeout");
    assertEquals(held.length, 1);
  } finally {
    listener.close();
    await accepting;
    for (const conn of held) conn.close();
  }
});

Deno.test("Node's and Bun's codes for the same failures are told too", async (t) => {
  const cases: [string, Error, string][] = [
    [
      "Node: an expired certificate",
      new TypeError("fetch failed", {
        cause: Object.assign(new Error("certificate has expired"), {
          code: "CERT_HAS_EXPIRED",
        }),
      }),
      CERTIFICATE,
    ],
    [
      "Node: a host name the certificate is not for",
      new TypeError("fetch failed", {
        cause: Object.assign(new Error("Hostname/IP does not match"), {
          code: "ERR_TLS_CERT_ALTNAME_INVALID",
        }),
      }),
      CERTIFICATE,
    ],
    [
      "Bun: a self-signed certificate",
      Object.assign(new TypeError("self signed certificate"), {
        code: "DEPTH_ZERO_SELF_SIGNED_CERT",
      }),
      CERTIFICATE,
    ],
    [
      "Node: https to a plain port",
      new TypeError("fetch failed", {
        cause: Object.assign(new Error("wrong version number"), {
          code: "ERR_SSL_WRONG_VERSION_NUMBER",
        }),
      }),
      NOT_TLS,
    ],
    [
      "Bun: https to a plain port",
      Object.assign(new TypeError("EPROTO: The TLS handshake failed"), {
        code: "EPROTO",
      }),
      NOT_TLS,
    ],
    [
      "Node: a malformed status line",
      new TypeError("fetch failed", {
        cause: Object.assign(new Error("Expected HTTP/"), {
          code: "HPE_INVALID_CONSTANT",
        }),
      }),
      NOT_HTTP,
    ],
    [
      "Node: a head past its 16 KiB",
      new TypeError("fetch failed", {
        cause: Object.assign(new Error("Headers Overflow Error"), {
          name: "HeadersOverflowError",
          code: "UND_ERR_HEADERS_OVERFLOW",
        }),
      }),
      HEAD_TOO_LARGE,
    ],
    [
      "Bun: a malformed answer, its URL's query kept out",
      Object.assign(
        new TypeError(
          'Malformed_HTTP_Response fetching "http://h.test/?k=s3cret"',
        ),
        { code: "Malformed_HTTP_Response" },
      ),
      NOT_HTTP,
    ],
  ];
  for (const [name, rejection, says] of cases) {
    await t.step(name, async () => {
      let calls = 0;
      const fetch = () => {
        calls++;
        return Promise.reject(rejection);
      };
      await assertUnmended("http://127.0.0.1:1", says, () => calls, fetch);
    });
  }
});

Deno.test("a connection lost before the head is still retried", async (t) => {
  const faults: [string, Fault][] = [
    ["closed before the head", async () => {}],
    ["closed mid-head", (conn) => write(conn, "HTTP/1.1 200 OK\r\ncontent-ty")],
  ];
  for (const [name, fault] of faults) {
    await t.step(name, async () => {
      await using server = startFaultServer(fault);
      const { retry, made } = counted();
      const grab = createGrab(server.url, { retry });
      const [, error] = await grab("GET /item");
      assertInstanceOf(error, GrabTransportError);
      assertEquals(error.kind, "network");
      assert(error.message.includes("the network failed"), error.message);
      assertEquals(made(), 2);
      assertEquals(server.connections, 3);
    });
  }
  await t.step("Node's and Bun's resets", async () => {
    for (const code of ["UND_ERR_SOCKET", "ECONNRESET", "ECONNREFUSED"]) {
      const { retry, made } = counted();
      const cause = Object.assign(new Error("other side closed"), { code });
      const grab = createGrab("http://127.0.0.1:1", {
        retry,
        fetch: () => Promise.reject(new TypeError("fetch failed", { cause })),
      });
      const [, error] = await grab("GET /item");
      assertInstanceOf(error, GrabTransportError);
      assert(error.message.includes("the network failed"), error.message);
      assertEquals(made(), 2);
    }
  });
});
