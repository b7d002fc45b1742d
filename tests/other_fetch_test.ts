/**
 * The `fetch` implementations users hand grab besides the platform's, Node's
 * and undici's (`createGrab(base, { fetch })`): `node-fetch` v3,
 * `cross-fetch` v4 (`node-fetch` v2 under Deno and Node), `@whatwg-node/fetch`
 * (GraphQL Yoga), `make-fetch-happen` (npm's), `ofetch`'s `$fetch.native`,
 * and two tracing wrappers of the platform's. Each exchange gives what the
 * same exchange gives through the platform's `fetch`. The packages are
 * pinned here, not in `_npm.ts`: every test that imports that would load
 * them.
 *
 * Once this file's process ends, Deno prints `node:_http_outgoing … Uncaught
 * Error: Cannot set headers after they are sent to the client`, after the
 * suite's summary. make-fetch-happen does that on Deno whenever a request on
 * a reused keep-alive socket is aborted mid-body (here, "an abort mid-body"),
 * with or without grab; on Node it does not. No test fails from it.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import createGrab, { type GrabOptions, type ResponseType } from "../mod.ts";
import { assertTransport, settles } from "./_bounds.ts";
import { closedPort, json, startServer } from "./_server.ts";
import { tap } from "./_streams.ts";

type Fetch = NonNullable<GrabOptions["fetch"]>;

/**
 * The module `specifier` names, untyped: the types of some of these
 * packages bring in Node's, which `deno task check` would then apply to
 * every other test.
 */
function load(specifier: string): Promise<Record<string, unknown>> {
  return import(specifier);
}

const [nodeFetch3, crossFetch, whatwg, makeFetchHappen, ofetch] = await Promise
  .all([
    load("npm:node-fetch@3.3.2"),
    load("npm:cross-fetch@4.1.0"),
    load("npm:@whatwg-node/fetch@0.12.1"),
    load("npm:make-fetch-happen@16.0.1"),
    load("npm:ofetch@1.5.1"),
  ]);
const platformFetch = globalThis.fetch;
const encoder = new TextEncoder();

/** A tracer's wrapper: adds its header to `init`, then calls the original. */
const tracing: Fetch = (input, init) => {
  const headers = new Headers(
    init?.headers ?? (input instanceof Request ? input.headers : undefined),
  );
  headers.set("traceparent", "00-trace-span-01");
  return platformFetch(input, { ...init, headers });
};

/** A tracer's wrapper that makes one `Request` of what it is given. */
const requesting: Fetch = (input, init) =>
  platformFetch(new Request(input, init));

const IMPLEMENTATIONS: [string, Fetch][] = [
  ["node-fetch v3", nodeFetch3!.default as Fetch],
  ["cross-fetch v4", crossFetch!.default as Fetch],
  ["@whatwg-node/fetch", whatwg!.fetch as Fetch],
  ["make-fetch-happen", makeFetchHappen!.default as Fetch],
  ["ofetch's $fetch.native", (ofetch!.$fetch as { native: Fetch }).native],
  ["a tracing wrapper that adds a header", tracing],
  ["a tracing wrapper that makes a Request", requesting],
];

/** The server's view of a request it echoes. */
function echo(request: Request, body: string): Response {
  return json({
    method: request.method,
    hook: request.headers.get("x-hook"),
    type: request.headers.get("content-type"),
    body,
  });
}

/** A body that never ends, of `data:` events; `cancelled` tells its release. */
function endlessEvents() {
  const body = tap();
  body.write("data: 1\n\n");
  return body;
}

for (const [name, fetch] of IMPLEMENTATIONS) {
  Deno.test(`${name} as fetch: each exchange as through the platform's`, async (t) => {
    let busy = 0;
    const taps: ReturnType<typeof tap>[] = [];
    const sent = Promise.withResolvers<void>();
    await using server = startServer({
      "/echo": (request, seen) => echo(request, seen.body),
      "/hanging": () => {
        const hanging = tap();
        taps.push(hanging);
        hanging.write('{"a":');
        sent.resolve();
        return new Response(hanging.body);
      },
      "/large": () => new Response("x".repeat(1000)),
      "/busy": () =>
        busy++ === 0 ? new Response("busy", { status: 503 }) : json({ ok: 1 }),
      "/events": () => {
        const events = endlessEvents();
        taps.push(events);
        return new Response(events.body, {
          headers: { "content-type": "text/event-stream" },
        });
      },
      "/bytes": () => new Response("hello stream"),
    });
    const retry = { limit: 2, backoff: () => 1 };
    const grab = createGrab(server.url, { fetch, retry });
    try {
      await t.step("a GET and a POST of JSON", async () => {
        const [got, error] = await grab("GET /echo");
        assertEquals(error, null);
        assertEquals(got, { method: "GET", hook: null, type: null, body: "" });
        const [posted, failed] = await grab("POST /echo", { body: { a: 1 } });
        assertEquals(failed, null);
        assertEquals(posted, {
          method: "POST",
          hook: null,
          type: "application/json",
          body: '{"a":1}',
        });
      });

      await t.step(
        "a beforeRequest hook's Request and a stream body",
        async () => {
          // make-fetch-happen threw at once of the hook's Request ("Invalid
          // URL: '[object Request]'"), before grab could send its bytes
          // instead, and it was told as a redirect's bad Location.
          const hooks = {
            beforeRequest: (request: Request) =>
              request.headers.set("x-hook", "set"),
          };
          const [hooked, error] = await grab("POST /echo", {
            body: { a: 1 },
            hooks,
          });
          assertEquals(error, null);
          assertEquals(hooked, {
            method: "POST",
            hook: "set",
            type: "application/json",
            body: '{"a":1}',
          });
          const [streamed, failed] = await grab("POST /echo", {
            body: ReadableStream.from([encoder.encode("abc")]),
          });
          assertEquals(failed, null);
          assertEquals(streamed, {
            method: "POST",
            hook: null,
            type: null,
            body: "abc",
          });
        },
      );

      await t.step("a counted upload sends its body", async () => {
        // node-fetch, cross-fetch and make-fetch-happen send no web stream:
        // the counted body went as the text "[object ReadableStream]", and
        // the grab succeeded.
        const told: number[] = [];
        const [posted, error] = await grab("POST /echo", {
          body: { a: 1 },
          onUploadProgress: ({ loaded }) => told.push(loaded),
        });
        assertEquals(error, null);
        assertEquals(posted, {
          method: "POST",
          hook: null,
          type: "application/json",
          body: '{"a":1}',
        });
        assertEquals(told.at(-1), 7);
      });

      await t.step("an abort mid-body, and a timeout", async () => {
        const controller = new AbortController();
        sent.promise.then(() => controller.abort());
        const aborted = await settles(
          grab("GET /hanging", { signal: controller.signal }),
        );
        assertTransport(aborted, "abort");
        await taps[0]!.cancelled;
        const timedOut = await settles(
          grab("GET /hanging", { timeout: 50, retry: 0 }),
        );
        assertTransport(timedOut, "timeout");
      });

      await t.step("maxBodyBytes", async () => {
        const result = await grab("GET /large", {
          maxBodyBytes: 10,
          responseType: "text",
        });
        assertTransport(result, "too-large");
      });

      await t.step("a refused connection", async () => {
        const refused = createGrab(`http://127.0.0.1:${closedPort()}`, {
          fetch,
          retry,
        });
        const error = assertTransport(await refused("GET /x"), "network");
        assertStringIncludes(
          error.message,
          "the network failed after 3 attempts (the server refused the connection",
        );
      });

      await t.step("a 503 then a 200", async () => {
        const [data, error] = await grab("GET /busy");
        assertEquals(error, null);
        assertEquals(data, { ok: 1 });
      });

      await t.step('responseType "sse" and "stream"', async () => {
        const [events, error] = await grab("GET /events", {
          responseType: "sse",
        });
        assertEquals(error, null);
        for await (const event of events!) {
          assertEquals(event.data, "1");
          break;
        }
        assertEquals(events!.error, null);
        const type: ResponseType = "stream";
        const [stream, failed] = await grab("GET /bytes", {
          responseType: type,
        });
        assertEquals(failed, null);
        assert(stream instanceof ReadableStream);
        assertEquals(await new Response(stream).text(), "hello stream");
      });
    } finally {
      for (const body of taps) body.close();
    }
  });
}

Deno.test("a custom fetch whose failure names its Request after sending it is not called again", async () => {
  await using server = startServer(() => new Response("busy", { status: 503 }));
  // A wrapper that throws on a status outside 2xx, naming its input in the
  // message, as many do: a Request reads as "[object Request]".
  const throwing: Fetch = async (input, init) => {
    const response = await platformFetch(input, init);
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`${input} answered ${response.status}`);
    }
    return response;
  };
  const grab = createGrab(server.url, {
    fetch: throwing,
    hooks: { beforeRequest: (request) => request.headers.set("x-hook", "1") },
  });
  // Its message held "[object Request]", read as a fetch that could not
  // read the Request, which was sent again as a URL and an init: the POST,
  // which no retry repeats, ran twice.
  const [, error] = await grab("POST /jobs");
  assertEquals(
    error?.message,
    `Cannot complete the request: the network failed: POST ${server.url}/jobs`,
  );
  assertEquals(server.requests.length, 1);
});

Deno.test("a custom fetch that rejects with the error it threw before is told as rejecting", async () => {
  await using server = startServer(() => new Response("busy", { status: 503 }));
  // A circuit breaker's one error: thrown at once while open, and the
  // rejection of the trial it lets through, which the server failed.
  const open = new Error("circuit open");
  let calls = 0;
  const breaker: Fetch = (input, init) => {
    if (calls++ === 0) throw open;
    return platformFetch(input, init).then(async (response) => {
      if (response.ok) return response;
      await response.body?.cancel();
      throw open;
    });
  };
  const grab = createGrab(server.url, {
    fetch: breaker,
    retry: { limit: 1, backoff: () => 1 },
  });
  // The last attempt's fetch gave a promise, which rejected: the message
  // said that it threw as it was called, as the first attempt's did.
  const [, error] = await grab("GET /items");
  assertEquals(calls, 2);
  assertEquals(server.requests.length, 1);
  assertEquals(
    error?.message,
    `Cannot complete the request: the network failed after 2 attempts: GET ${server.url}/items`,
  );
});

Deno.test("a custom fetch that answers a hook's Request without a promise is read", async () => {
  await using server = startServer(() => json({ fresh: true }));
  // A cache's wrapper: its copy at once, without a promise, once it has one.
  let cached: string | undefined;
  const caching: Fetch = ((input: Request | string, init?: RequestInit) => {
    if (cached !== undefined) return json(JSON.parse(cached));
    return platformFetch(input, init).then(async (response) => {
      cached = await response.text();
      return json(JSON.parse(cached));
    });
  }) as Fetch;
  const grab = createGrab(server.url, {
    fetch: caching,
    hooks: { beforeRequest: (request) => request.headers.set("x-hook", "1") },
  });
  assertEquals((await grab("GET /item"))[0], { fresh: true });
  // It failed as "the network failed after 3 attempts": the answer has no
  // catch of a promise's.
  const [again, error] = await grab("GET /item");
  assertEquals(error, null);
  assertEquals(again, { fresh: true });
  assertEquals(server.requests.length, 1);
});
