/**
 * Status beats the body, and the `GrabError` says why its body is `null`:
 * the body's read failure is its `cause` (contract: every error carries
 * `cause` where there is one).
 *
 * @module
 */

import {
  assert,
  assertEquals,
  assertStrictEquals,
  assertStringIncludes,
} from "@std/assert";
import createGrab, { Call, isGrabTransportError } from "../mod.ts";
import {
  head,
  shortBody,
  startFaultServer,
  untilClosed,
  write,
} from "./_faults.ts";
import { json, startServer } from "./_server.ts";
import { assertHttp, settles } from "./_bounds.ts";

Deno.test("a GrabError's cause is why its body could not be read", async (t) => {
  await t.step("over maxBodyBytes: kind too-large", async () => {
    await using server = startServer(() =>
      json({ error: "x".repeat(1_000) }, { status: 500 })
    );
    const grab = createGrab(server.url, { retry: 0, maxBodyBytes: 100 });
    const error = assertHttp(await settles(grab("GET /x")), 500);
    assertStrictEquals(error.body, null);
    assert(isGrabTransportError(error.cause));
    assertStrictEquals(error.cause.kind, "too-large");
  });

  await t.step("a logged GrabError shows its cause", async () => {
    await using server = startServer(() =>
      json({ error: "x".repeat(1_000) }, { status: 500 })
    );
    const grab = createGrab(server.url, { retry: 0, maxBodyBytes: 100 });
    const error = assertHttp(await settles(grab("GET /x")), 500);
    const logged = JSON.parse(JSON.stringify(error));
    assertEquals(logged.body, null);
    assertEquals(logged.cause.kind, "too-large");
    assertStringIncludes(
      Deno.inspect(error),
      "the body (1012 bytes, as its Content-Length says) is over maxBodyBytes",
    );
  });

  await t.step("broken off: kind network", async () => {
    await using server = startFaultServer(shortBody("502 Bad Gateway"));
    const grab = createGrab(server.url, { retry: 0 });
    const error = assertHttp(await settles(grab("GET /x")), 502);
    assertStrictEquals(error.body, null);
    assert(isGrabTransportError(error.cause));
    assertStrictEquals(error.cause.kind, "network");
  });

  await t.step("out of time: kind timeout", async () => {
    await using server = startFaultServer(async (conn) => {
      await write(
        conn,
        head("503 Service Unavailable", { "content-length": "100" }),
      );
      await untilClosed(conn);
    });
    const grab = createGrab(server.url, { retry: 0, timeout: 200 });
    const error = assertHttp(await settles(grab("GET /x")), 503);
    assertStrictEquals(error.body, null);
    assert(isGrabTransportError(error.cause));
    assertStrictEquals(error.cause.kind, "timeout");
  });

  await t.step("timeout with attemptTimeout: kind timeout", async () => {
    await using server = startFaultServer(async (conn) => {
      await write(
        conn,
        head("503 Service Unavailable", { "content-length": "100" }),
      );
      await untilClosed(conn);
    });
    const grab = createGrab(server.url, {
      retry: 0,
      timeout: 200,
      attemptTimeout: 10_000,
    });
    const error = assertHttp(await settles(grab("GET /x")), 503);
    assertStrictEquals(error.body, null);
    assert(isGrabTransportError(error.cause));
    assertStrictEquals(error.cause.kind, "timeout");
  });

  await t.step("a body read whole: no cause", async () => {
    await using server = startServer(() =>
      json({ error: "no" }, { status: 404 })
    );
    const grab = createGrab(server.url, { retry: 0 });
    const error = assertHttp(await settles(grab("GET /x")), 404);
    assertEquals(error.body, { error: "no" });
    assert(!("cause" in error));
  });

  await t.step("Call.send gives it as bodyError", async () => {
    await using server = startServer(() =>
      json({ error: "x".repeat(1_000) }, { status: 500 })
    );
    const outcome = await new Call("GET /x", server.url).send({
      retry: 0,
      maxBodyBytes: 100,
    });
    assert(outcome.ok);
    assertStrictEquals(outcome.status, 500);
    assertStrictEquals(outcome.body, null);
    assertStrictEquals(outcome.bodyError?.kind, "too-large");
  });
});
