/**
 * A failure that arrives once `timeout` has passed, while a busy event loop
 * has not yet run the timeout's timer: the grab times out, as it does when
 * the timer runs first.
 *
 * @module
 */

import { assertEquals } from "@std/assert";
import createGrab from "../mod.ts";

/** Holds the event loop for `ms`, as a synchronous computation would. */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // The program's own work.
  }
}

const TIMEOUT = 100;

/**
 * A fetch whose 2xx body gives its first chunk, then, a turn of the event
 * loop after the next read began, holds the loop past the timeout and
 * breaks: its failure reaches the read before the timeout's timer runs.
 */
function breakingBody(first: string): typeof fetch {
  return async (input, init) => {
    const answer = await fetch(input, init);
    await answer.body?.cancel();
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulls++ === 0) {
          controller.enqueue(new TextEncoder().encode(first));
          return;
        }
        return new Promise((resolve) => setTimeout(resolve, 0)).then(() => {
          busy(TIMEOUT + 50);
          controller.error(new TypeError("The connection broke"));
        });
      },
    });
    return new Response(body, { status: 200, headers: answer.headers });
  };
}

Deno.test("a custom fetch's 2xx body that breaks once the timeout passed, before its timer ran, times the grab out", async () => {
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => Response.json([1, 2]),
  );
  const api = createGrab(`http://127.0.0.1:${server.addr.port}`, {
    timeout: TIMEOUT,
    retry: 0,
    fetch: breakingBody("[1,"),
  });
  const [, error] = await api("GET /x");
  assertEquals((error as { kind: string }).kind, "timeout");
});

Deno.test("a custom fetch's live body that breaks once attemptTimeout passed, before its timer ran, ends as a timeout", async () => {
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response('{"n":1}\n'),
  );
  const api = createGrab(`http://127.0.0.1:${server.addr.port}`, {
    attemptTimeout: TIMEOUT,
    retry: 0,
    fetch: breakingBody('{"n":1}\n'),
  });
  const [stream, error] = await api("GET /x", { responseType: "ndjson" });
  assertEquals(error, null);
  const values = [];
  for await (const value of stream!) values.push(value);
  assertEquals(values, [{ n: 1 }]);
  assertEquals(stream!.error?.kind, "timeout");
});

Deno.test("a request body stream that fails once the timeout passed, before its timer ran, times the grab out", async () => {
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      await request.arrayBuffer().catch(() => {});
      return Response.json([1]);
    },
  );
  let pulls = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulls++ === 0) {
        controller.enqueue(new TextEncoder().encode("[1,"));
        return;
      }
      // A turn after fetch asked for more, the loop held past the timeout.
      return new Promise((resolve) => setTimeout(resolve, 0)).then(() => {
        busy(TIMEOUT + 50);
        controller.error(new TypeError("The source broke"));
      });
    },
  });
  const api = createGrab(`http://127.0.0.1:${server.addr.port}`, {
    timeout: TIMEOUT,
    retry: 0,
  });
  const [, error] = await api("POST /x", { body });
  assertEquals((error as { kind: string }).kind, "timeout");
});
