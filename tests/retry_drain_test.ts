/**
 * A retried answer's short body read to its end before the retry: the last
 * answer keeps its body, a HEAD, an abort, an `attemptTimeout`, a body that
 * fails, and hooks each see what they did before.
 *
 * @module
 */

import { assertEquals, assertInstanceOf } from "@std/assert";
import createGrab, { GrabError, GrabTransportError } from "../mod.ts";
import { untilClosed, write } from "./_faults.ts";
import {
  head503,
  reply,
  retriedAfter,
  startKeepAliveServer,
} from "./_keepalive.ts";

const JSON_TYPE = { "content-type": "application/json" };

Deno.test("the last 503 is returned with its body", async () => {
  await using server = startKeepAliveServer((conn, r) =>
    reply(conn, r, "503 Service Unavailable", JSON_TYPE, '{"s":503}')
  );
  const grab = createGrab(server.url, {
    retry: { limit: 2, backoff: () => 0 },
  });
  const [, error] = await grab("GET /x");
  assertInstanceOf(error, GrabError);
  assertEquals(error.statusCode, 503);
  assertEquals(error.body, { s: 503 });
  assertEquals(server.requests.length, 3);
});

Deno.test("HEAD retried on 503 with a declared length", async () => {
  let calls = 0;
  await using server = startKeepAliveServer(async (conn) => {
    if (++calls === 1) {
      await write(conn, head503("content-length: 10\r\n"));
      return true;
    }
    await write(conn, "HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\n");
    return true;
  });
  const grab = createGrab(server.url, {
    retry: { limit: 1, backoff: () => 0 },
  });
  const [, error] = await grab("HEAD /x");
  assertEquals(error, null);
  assertEquals(calls, 2);
  assertEquals(server.connections, 1);
});

Deno.test("a caller's abort during the drain ends the grab", async () => {
  const controller = new AbortController();
  let calls = 0;
  await using server = startKeepAliveServer(async (conn) => {
    calls++;
    await write(conn, head503("content-length: 100\r\n") + '{"s":');
    controller.abort(new Error("mine"));
    await untilClosed(conn);
    return false;
  });
  const grab = createGrab(server.url, {
    retry: { limit: 3, backoff: () => 0 },
  });
  const [, error] = await grab("GET /x", { signal: controller.signal });
  assertInstanceOf(error, GrabTransportError);
  assertEquals(error.kind, "abort");
  assertEquals(calls, 1);
});

Deno.test("attemptTimeout ends a stalled drain and retries", async () => {
  let calls = 0;
  await using server = startKeepAliveServer(async (conn, r) => {
    if (++calls === 1) {
      await write(conn, head503("content-length: 100\r\n") + '{"s":');
      await untilClosed(conn);
      return false;
    }
    return reply(conn, r, "200 OK", JSON_TYPE, "[1]");
  });
  const grab = createGrab(server.url, {
    retry: { limit: 1, backoff: () => 0 },
    attemptTimeout: 100,
  });
  const [data, error] = await grab("GET /x");
  assertEquals(error, null);
  assertEquals(data, [1]);
});

Deno.test("a 503 whose body fails mid-way is retried", async () => {
  const outcome = await retriedAfter(async (conn) => {
    await write(conn, head503("content-length: 100\r\n") + '{"s":');
    return false;
  });
  assertEquals(outcome.error, null);
  assertEquals(outcome.data, [1]);
  assertEquals(outcome.calls, 2);
});

Deno.test("hooks see the retried status and the retry", async () => {
  let calls = 0;
  const seen: number[] = [];
  await using server = startKeepAliveServer((conn, r) =>
    ++calls === 1
      ? reply(conn, r, "503 Service Unavailable", JSON_TYPE, '{"s":503}')
      : reply(conn, r, "200 OK", JSON_TYPE, "[1]")
  );
  const grab = createGrab(server.url, {
    retry: { limit: 1, backoff: () => 0 },
    hooks: {
      afterResponse: async (_req, res) => {
        seen.push(res.status);
        if (res.status === 503) {
          assertEquals(await res.clone().json(), { s: 503 });
        }
      },
    },
  });
  const [data, error] = await grab("GET /x");
  assertEquals(error, null);
  assertEquals(data, [1]);
  assertEquals(seen, [503, 200]);
});
