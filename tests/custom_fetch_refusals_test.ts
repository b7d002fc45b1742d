/**
 * What a custom `fetch` hands back or throws, read as it is: an SSE read of
 * a response-like whose headers give no string for Content-Type, and a
 * header Node's fetch refuses as not supported (`Expect`), which no retry
 * mends.
 *
 * @module
 */

import { assert, assertEquals, assertStrictEquals } from "@std/assert";
import createGrab, { isGrabTransportError } from "../mod.ts";
import { startServer } from "./_server.ts";

/** Binds a member read through a Proxy to the object it was read of. */
function through<T extends object>(target: T, key: PropertyKey): unknown {
  const member = Reflect.get(target, key, target);
  return typeof member === "function" ? member.bind(target) : member;
}

/**
 * A server's response, copied into one the platform's `fetch` did not make,
 * whose headers' `get` gives `value` for Content-Type (a response-like whose
 * headers are a `Map` gives `undefined` for one it lacks).
 */
function typeReadsAs(real: Response, value: unknown): Response {
  const response = new Response(real.body, real);
  const headers = new Proxy(response.headers, {
    get(target, key) {
      if (key !== "get") return through(target, key);
      return (name: string) =>
        name.toLowerCase() === "content-type" ? value : target.get(name);
    },
  });
  return new Proxy(response, {
    get: (target, key) => key === "headers" ? headers : through(target, key),
  });
}

Deno.test("an sse read of a response-like whose Content-Type is no string reads its events, sent once", async (t) => {
  let hits = 0;
  await using server = startServer(() => {
    hits++;
    return new Response("data: hi\n\n", {
      headers: { "content-type": "text/event-stream" },
    });
  });
  for (const value of [undefined, 42]) {
    await t.step(`Content-Type read as ${value}`, async () => {
      hits = 0;
      const grab = createGrab(server.url, {
        retry: { limit: 2, backoff: () => 0 },
        fetch: async (input, init) =>
          typeReadsAs(await fetch(input, init), value),
      });
      const [data, error] = await grab("GET /", { responseType: "sse" });
      assertStrictEquals(error, null);
      const events = [];
      for await (const event of data!) events.push(event.data);
      assertEquals(events, ["hi"]);
      assertStrictEquals(hits, 1);
    });
  }
});

/**
 * A `fetch` that refuses an `Expect` header as Node's does (undici's
 * `NotSupportedError`, under `TypeError: fetch failed`), and sends any
 * other request.
 */
function nodeLikeFetch(calls: { count: number }): typeof fetch {
  return (input, init) => {
    calls.count++;
    const request = new Request(input, init);
    if (request.headers.has("expect")) {
      const cause = Object.assign(new Error("expect header not supported"), {
        name: "NotSupportedError",
        code: "UND_ERR_NOT_SUPPORTED",
      });
      return Promise.reject(new TypeError("fetch failed", { cause }));
    }
    return fetch(request);
  };
}

Deno.test("an Expect header a hook sets, which Node's fetch does not support, is sent once and says so", async () => {
  await using server = startServer(() => Response.json({ ok: true }));
  const calls = { count: 0 };
  let retries = 0;
  const grab = createGrab(server.url, {
    retry: { limit: 2, backoff: () => 0 },
    fetch: nodeLikeFetch(calls),
    hooks: {
      beforeRequest: (request) => request.headers.set("expect", "100-continue"),
      beforeRetry: () => void retries++,
    },
  });
  const [data, error] = await grab("GET /");
  assertStrictEquals(data, null);
  assert(isGrabTransportError(error));
  assertStrictEquals(error.kind, "network");
  assert(
    error.message.includes("the runtime's fetch refused it"),
    error.message,
  );
  assert(error.message.includes("expect header not supported"), error.message);
  assertEquals([calls.count, retries], [1, 0]);
  // Without the header, the same grab is answered.
  const plain = createGrab(server.url, { fetch: nodeLikeFetch(calls) });
  const [answer] = await plain("GET /");
  assertEquals(answer, { ok: true });
});
