/**
 * An app's handler called in process, as its tests and server-side callers
 * do: a custom `fetch` that hands the request to the handler, no network
 * between. Each case is compared with the same app served by `Deno.serve`.
 */

import { assert, assertEquals, assertFalse, assertMatch } from "@std/assert";
import { createGrab, isGrabHttpError, isGrabTransportError } from "../mod.ts";
import type { Fetch } from "../src/fetch.ts";
import { Hono } from "./_npm.ts";

/** Serves `handler` on 127.0.0.1 and an ephemeral port. */
function serve(handler: (request: Request) => Response | Promise<Response>) {
  const server = Deno.serve(
    {
      hostname: "127.0.0.1",
      port: 0,
      onListen() {},
      // A handler that gave no response: the 500 Deno answers, unlogged.
      onError: () => new Response(null, { status: 500 }),
    },
    handler,
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

/** A Hono app: `app.fetch` takes a `Request`, not fetch's URL and init. */
function honoApp(): Hono {
  const app = new Hono();
  app.get("/users/:id", (c) => c.json({ id: c.req.param("id") }));
  app.post("/users", async (c) => c.json(await c.req.json(), 201));
  return app;
}

Deno.test("a Request-only handler given as fetch (Hono's app.fetch) fails saying so, not that the network failed", async () => {
  const app = honoApp();
  let calls = 0;
  const appFetch = (request: Request) => {
    calls++;
    return app.fetch(request);
  };
  await using server = serve(app.fetch);
  // Over the network the app answers.
  const [served] = await createGrab(server.url)("GET /users/:id", {
    params: { id: 7 },
  });
  assertEquals(served, { id: "7" });
  // In process, grab calls it as fetch: a URL string and an init.
  const grab = createGrab("http://app.test", {
    fetch: appFetch as unknown as Fetch,
  });
  const [data, error] = await grab("GET /users/:id", { params: { id: 7 } });
  assertEquals(data, null);
  assert(isGrabTransportError(error));
  assertEquals(error.kind, "network");
  assert(error?.cause instanceof TypeError, "the handler's own error");
  assertFalse(/the network failed/.test(error.message), error.message);
  assertMatch(error.message, /the custom fetch threw as it was called/);
  assertMatch(error.message, /new Request\(input, init\)/);
  // A hook hands it a Request, which it takes.
  const [hooked] = await grab("POST /users", {
    body: { name: "Ada" },
    hooks: { beforeRequest: () => {} },
  });
  assertEquals(hooked, { name: "Ada" });
  assert(calls >= 2);
});

Deno.test("a handler that returns no Response fails once, saying what it gave", async () => {
  // A route that forgot its `return`: a server answers 500 for it.
  const handler = (request: Request): Response | undefined => {
    if (new URL(request.url).pathname === "/ok") return Response.json([1]);
    return undefined;
  };
  await using server = serve((request) => handler(request)!);
  const [, served] = await createGrab(server.url)("GET /forgot", { retry: 0 });
  assertEquals(served?.name, "GrabError");
  let calls = 0;
  const grab = createGrab("http://app.test", {
    fetch: ((input, init) => {
      calls++;
      return Promise.resolve(handler(new Request(input, init)));
    }) as Fetch,
  });
  assertEquals((await grab("GET /ok"))[0], [1]);
  calls = 0;
  const [data, error] = await grab("GET /forgot");
  assertEquals(data, null);
  assert(isGrabTransportError(error));
  assertEquals(error.kind, "network");
  assertFalse(/the network failed/.test(error.message), error.message);
  assertMatch(error.message, /the custom fetch gave undefined, not a Response/);
  // No retry mends a handler that gives no response.
  assertEquals(calls, 1);
  const [, plain] = await createGrab("http://app.test", {
    fetch: (() => Promise.resolve({ status: 200 })) as unknown as Fetch,
  })("GET /ok");
  assertMatch(
    plain!.message,
    /the custom fetch gave an object, not a Response/,
  );
});

Deno.test("a handler's redirect is not followed: a GrabError with its Location", async () => {
  const handler = (_request: Request) =>
    Response.redirect("http://app.test/login", 302);
  const grab = createGrab("http://app.test", {
    fetch: ((input, init) =>
      Promise.resolve(handler(new Request(input, init)))) as Fetch,
  });
  const [data, error] = await grab("GET /private");
  assertEquals(data, null);
  assert(isGrabHttpError(error));
  assertEquals(error.statusCode, 302);
  assertEquals(error.headers.get("location"), "http://app.test/login");
});

Deno.test("a handler's live stream: the caller's abort reaches its signal and its cancel", async () => {
  let cancelled: unknown;
  let aborted = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  const handler = (request: Request) => {
    request.signal.addEventListener("abort", () => aborted = true);
    const line = new TextEncoder().encode('{"n":1}\n');
    return new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          timer = setInterval(() => controller.enqueue(line), 1);
        },
        cancel(reason) {
          cancelled = reason;
          clearInterval(timer);
        },
      }),
      { headers: { "content-type": "application/x-ndjson" } },
    );
  };
  const grab = createGrab("http://app.test", {
    fetch: ((input, init) =>
      Promise.resolve(handler(new Request(input, init)))) as Fetch,
  });
  const controller = new AbortController();
  const [stream] = await grab("GET /events", {
    responseType: "ndjson",
    signal: controller.signal,
  });
  let seen = 0;
  for await (const _ of stream!) {
    if (++seen === 3) controller.abort(new Error("the user left"));
  }
  assertEquals(stream!.error?.kind, "abort");
  assertEquals((cancelled as Error).message, "the user left");
  assert(aborted, "the handler's request.signal aborted");
});

Deno.test("a handler that answers 503 then 201 gets a retried POST's body again", async () => {
  const bodies: string[] = [];
  const handler = async (request: Request) => {
    bodies.push(await request.text());
    return bodies.length === 1
      ? new Response("busy", { status: 503 })
      : Response.json({ saved: true }, { status: 201 });
  };
  const grab = createGrab("http://app.test", {
    fetch: ((input, init) => handler(new Request(input, init))) as Fetch,
    retry: { limit: 1, methods: ["POST"], backoff: () => 0 },
  });
  const [data] = await grab("POST /users", { body: { name: "Ada" } });
  assertEquals(data, { saved: true });
  assertEquals(bodies, ['{"name":"Ada"}', '{"name":"Ada"}']);
});
