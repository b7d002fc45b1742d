/**
 * A custom `fetch` whose responses carry a Node.js stream as their `body`
 * (`node-fetch`, and `cross-fetch` on Node, which wraps it): the body is
 * read, capped and cancelled as any other. A response-like whose body is
 * neither a stream nor an async iterable is told as such.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import createGrab, { type GrabOptions, isGrabTransportError } from "../mod.ts";
import { nodeFetch } from "./_npm.ts";
import { json, startServer } from "./_server.ts";
import { watchedSource } from "./_streams.ts";

const viaNodeFetch = nodeFetch as unknown as GrabOptions["fetch"];

Deno.test("node-fetch as the factory's fetch", async (t) => {
  // 16 KiB: node-fetch keeps its socket when its stream is let go of.
  const source = watchedSource(2048);
  await using server = startServer({
    "/user": () => json({ id: 7 }),
    "/large": () => new Response(source.body),
    "/lines": () => new Response('{"n":1}\n{"n":2}\n'),
  });
  const grab = createGrab(server.url, {
    fetch: viaNodeFetch,
    maxBodyBytes: 1024,
  });

  await t.step("reads a JSON body", async () => {
    const [data, error] = await grab<{ id: number }>("GET /user");
    assertEquals(error, null);
    assertEquals(data, { id: 7 });
  });

  await t.step("caps a body past maxBodyBytes", async () => {
    const [data, error] = await grab("GET /large");
    assertEquals(data, null);
    assert(isGrabTransportError(error));
    assertEquals(error.kind, "too-large");
  });

  await t.step("reads a live NDJSON body", async () => {
    const [stream, error] = await grab("GET /lines", {
      responseType: "ndjson",
    });
    assertEquals(error, null);
    const items: unknown[] = [];
    for await (const item of stream!) items.push(item);
    assertEquals(items, [{ n: 1 }, { n: 2 }]);
  });
});

Deno.test("a response-like whose body is no stream says so", async () => {
  await using server = startServer(() => json({ id: 7 }));
  const grab = createGrab(server.url, {
    // A hand mock with a `json()` but no `body`, behind a real request.
    fetch: async (input, init) => {
      const real = await fetch(input, init);
      const value: unknown = await real.json();
      return {
        status: 200,
        headers: new Headers({ "content-type": "application/json" }),
        json: () => Promise.resolve(value),
      } as unknown as Response;
    },
  });
  const [data, error] = await grab("GET /user");
  assertEquals(data, null);
  assert(isGrabTransportError(error));
  assert(error.cause instanceof TypeError);
  assertStringIncludes(error.cause.message, "its body is missing");
  assertStringIncludes(error.cause.message, "have fetch return a Response");
});
