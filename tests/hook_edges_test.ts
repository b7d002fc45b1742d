/**
 * The hooks as careless and clever callers use them: what `beforeRetry` is
 * told of the attempt that failed, when another attempt follows it.
 *
 * @module
 */

import { assertEquals, assertStringIncludes } from "@std/assert";
import createGrab, { type Hooks } from "../mod.ts";
import {
  firstThen,
  ok,
  shortBody,
  silent,
  startFaultServer,
} from "./_faults.ts";

/** The message of each error `beforeRetry` was given. */
function toldRetries(): { hooks: Hooks; told: string[] } {
  const told: string[] = [];
  return {
    told,
    hooks: { beforeRetry: ({ error }) => void told.push(error!.message) },
  };
}

Deno.test("beforeRetry: the error of an attempt a retry follows is not called the last", async (t) => {
  await t.step("a body that broke off", async () => {
    await using server = startFaultServer(
      firstThen(3, shortBody(), ok({ done: true })),
    );
    const grab = createGrab(server.url, { timeout: 10_000 });
    const { hooks, told } = toldRetries();
    const [data, failed] = await grab("GET /short", {
      retry: { limit: 3, backoff: () => 0 },
      hooks,
    });
    assertEquals([data, failed], [{ done: true }, null]);
    assertEquals(server.requests.length, 4);
    assertEquals(told.length, 3);
    for (const message of told) {
      assertStringIncludes(message, "broke off before its end (");
    }
  });

  await t.step("an attemptTimeout that passed", async () => {
    await using server = startFaultServer(firstThen(2, silent, ok(1)));
    const grab = createGrab(server.url, { timeout: 10_000 });
    const { hooks, told } = toldRetries();
    const [data, failed] = await grab("GET /slow", {
      retry: { limit: 2, backoff: () => 0 },
      attemptTimeout: 200,
      hooks,
    });
    assertEquals([data, failed], [1, null]);
    const message =
      "Cannot complete the request: the attemptTimeout (200 ms) passed; " +
      `raise attemptTimeout, or set it to false: GET ${server.url}/slow`;
    assertEquals(told, [message, message]);
  });

  await t.step("a connection closed before the answer", async () => {
    const closed = (conn: Deno.Conn) => Promise.resolve(conn.close());
    await using server = startFaultServer(firstThen(2, closed, ok(1)));
    const grab = createGrab(server.url, { timeout: 10_000 });
    const { hooks, told } = toldRetries();
    const [data] = await grab("GET /closed", {
      retry: { limit: 2, backoff: () => 0 },
      hooks,
    });
    assertEquals(data, 1);
    assertEquals(told.length, 2);
    for (const message of told) {
      assertStringIncludes(message, "the network failed (");
    }
  });

  await t.step("the last attempt still counts them all", async () => {
    await using server = startFaultServer(shortBody());
    const grab = createGrab(server.url, { timeout: 10_000 });
    const { hooks, told } = toldRetries();
    const [, failed] = await grab("GET /short", {
      retry: { limit: 2, backoff: () => 0 },
      hooks,
    });
    assertEquals(told.length, 2);
    assertStringIncludes(
      failed!.message,
      "broke off before its end on the last of 3 attempts (",
    );
  });
});
