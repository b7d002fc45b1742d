/**
 * Connection reuse: 20 sequential grabs to one origin open no more
 * connections than the platform's `fetch` reading (or cancelling) the same
 * bodies, whatever the outcome, and the next grab on a kept connection gets
 * its own answer.
 *
 * @module
 */

import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import createGrab, { GrabTransportError, orThrow, paginate } from "../mod.ts";
import { untilClosed, write } from "./_faults.ts";
import {
  head503,
  reply,
  retriedAfter,
  type SeenRequest,
  startKeepAliveServer,
} from "./_keepalive.ts";

const N = 20;
const JSON_TYPE = { "content-type": "application/json" };

function answerer() {
  const hits = new Map<string, number>();
  return (conn: Deno.Conn, r: SeenRequest): Promise<boolean> => {
    const path = new URL(r.path, "http://x").pathname;
    const own = JSON.stringify({ path: r.path });
    const text = { "content-type": "text/plain" };
    switch (path) {
      case "/json":
        return reply(conn, r, "200 OK", JSON_TYPE, own);
      case "/text":
        return reply(conn, r, "200 OK", text, `hello ${r.path}`);
      case "/empty":
        return reply(conn, r, "200 OK", JSON_TYPE, "");
      case "/204":
        return reply(conn, r, "204 No Content", {}, "");
      case "/304":
        return reply(conn, r, "304 Not Modified", { etag: '"a"' }, "");
      case "/e-json":
        return reply(conn, r, "500 Internal Server Error", JSON_TYPE, own);
      case "/e-text":
        return reply(conn, r, "502 Bad Gateway", text, "<p>bad</p>");
      case "/e-empty":
        return reply(conn, r, "500 Internal Server Error", {}, "");
      case "/bad":
        return reply(conn, r, "200 OK", JSON_TYPE, "{not json");
      case "/ndjson":
        return reply(
          conn,
          r,
          "200 OK",
          JSON_TYPE,
          '{"n":1}\n{"n":2}\n',
          "chunked",
        );
      case "/flaky": {
        const n = (hits.get(r.path) ?? 0) + 1;
        hits.set(r.path, n);
        return n === 1
          ? reply(
            conn,
            r,
            "503 Service Unavailable",
            JSON_TYPE,
            '{"s":503}',
            "length, body later",
          )
          : reply(conn, r, "200 OK", JSON_TYPE, own);
      }
    }
    const page = Number(path.match(/^\/pages\/(\d)$/)?.[1]);
    const next = page < 5 ? { link: `</pages/${page + 1}>; rel="next"` } : {};
    return reply(conn, r, "200 OK", { ...JSON_TYPE, ...next }, own);
  };
}

type Grab = ReturnType<typeof createGrab>;

/** Connections `each` opens over N rounds, after which a grab gets its own answer. */
async function connectionsFor(
  each: (grab: Grab, base: string, i: number) => Promise<unknown>,
): Promise<number> {
  await using server = startKeepAliveServer(answerer());
  const grab = createGrab(server.url);
  for (let i = 0; i < N; i++) await each(grab, server.url, i);
  const [data] = await grab("GET /json", { query: { i: "last" } });
  assertEquals(data, { path: "/json?i=last" });
  return server.connections;
}

const read = (path: string, init?: RequestInit) =>
async (
  _grab: Grab,
  base: string,
  i: number,
) => await (await fetch(`${base}${path}?i=${i}`, init)).arrayBuffer();

const CASES: [
  string,
  Parameters<typeof connectionsFor>[0],
  Parameters<typeof connectionsFor>[0],
][] = [
  ["a 2xx JSON", (g, _, i) => g("GET /json", { query: { i } }), read("/json")],
  [
    "text",
    (g, _, i) => g("GET /text", { query: { i }, responseType: "text" }),
    read("/text"),
  ],
  [
    "bytes",
    (g, _, i) => g("GET /text", { query: { i }, responseType: "bytes" }),
    read("/text"),
  ],
  [
    "blob",
    (g, _, i) => g("GET /text", { query: { i }, responseType: "blob" }),
    read("/text"),
  ],
  [
    "an empty 200",
    (g, _, i) => g("GET /empty", { query: { i } }),
    read("/empty"),
  ],
  ["a 204", (g, _, i) => g("GET /204", { query: { i } }), read("/204")],
  [
    "HEAD",
    (g, _, i) => g("HEAD /json", { query: { i } }),
    read("/json", { method: "HEAD" }),
  ],
  [
    "a 304",
    (g, _, i) =>
      g("GET /304", { query: { i }, headers: { "if-none-match": '"a"' } }),
    read("/304", { headers: { "if-none-match": '"a"' } }),
  ],
  [
    "a 5xx JSON",
    (g, _, i) => g("GET /e-json", { query: { i }, retry: 0 }),
    read("/e-json"),
  ],
  [
    "a 5xx text",
    (g, _, i) => g("GET /e-text", { query: { i }, retry: 0 }),
    read("/e-text"),
  ],
  [
    "a 5xx empty",
    (g, _, i) => g("GET /e-empty", { query: { i }, retry: 0 }),
    read("/e-empty"),
  ],
  [
    "a JSON parse failure",
    (g, _, i) => g("GET /bad", { query: { i } }),
    read("/bad"),
  ],
  [
    "orThrow of a 5xx",
    (g, _, i) =>
      orThrow(g("GET /e-json", { query: { i }, retry: 0 })).catch(() => {}),
    read("/e-json"),
  ],
  [
    "paginate over 5 pages",
    async (g) => {
      for await (const _ of paginate(g, "GET /pages/1")) { /* every page */ }
    },
    async (_g, base) => {
      for (let n = 1; n <= 5; n++) {
        await (await fetch(`${base}/pages/${n}`)).arrayBuffer();
      }
    },
  ],
  [
    "a 503 retried once, then a 200",
    async (g, _, i) => {
      const [data] = await g("GET /flaky", {
        query: { i },
        retry: { limit: 1, backoff: () => 1 },
      });
      assertEquals(data, { path: `/flaky?i=${i}` });
    },
    async (_g, base, i) => {
      for (let n = 0; n < 2; n++) {
        await (await fetch(`${base}/flaky?i=${i}`)).arrayBuffer();
      }
    },
  ],
];

for (const [what, viaGrab, viaFetch] of CASES) {
  Deno.test(`connection reuse: ${what}, ${N} times, as few connections as fetch`, async () => {
    const byFetch = await connectionsFor(viaFetch);
    const byGrab = await connectionsFor(viaGrab);
    assert(
      byGrab <= byFetch,
      `grab opened ${byGrab} connections, fetch ${byFetch}`,
    );
  });
}

Deno.test("a retried 503 whose body stalls is cancelled, and the retry made", async (t) => {
  await t.step("within the second it is given", async () => {
    const outcome = await retriedAfter(async (conn) => {
      await write(conn, head503("content-length: 100\r\n") + '{"s":');
      await untilClosed(conn);
      return false;
    });
    assertEquals(outcome.data, [1]);
    assertEquals(outcome.connections, 2);
  });
  await t.step("or by the timeout, which ends the grab", async () => {
    const outcome = await retriedAfter(async (conn) => {
      await write(conn, head503("content-length: 100\r\n") + '{"s":');
      await untilClosed(conn);
      return false;
    }, 200);
    assertInstanceOf(outcome.error, GrabTransportError);
    assertEquals(outcome.error.kind, "timeout");
    assertEquals(outcome.calls, 1);
  });
});

Deno.test("a retried 503's long body is cancelled, not read", async () => {
  // Cancelled, its connection is closed; read to its end, it would be kept.
  const outcome = await retriedAfter(async (conn) => {
    const body = "x".repeat(4 * 1024 * 1024);
    await write(conn, head503(`content-length: ${body.length}\r\n`) + body);
    return true;
  });
  assertEquals(outcome.data, [1]);
  assertEquals(outcome.connections, 2);
});
