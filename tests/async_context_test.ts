/**
 * grab under `AsyncLocalStorage`: a program keeps a request id, a tenant or
 * a trace in it and reads it in its hooks, its custom `fetch`, its logger.
 * Grabs started together from different contexts share timers (a timeout
 * signal for the deadlines that start in the same window), so what one
 * grab's timer runs could run in another grab's context. Whatever grab
 * calls for a grab, and the code after it, must see the context the grab
 * was started in.
 *
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";
import { assert, assertEquals } from "@std/assert";
import createGrab, { type GrabCallOptions, paginate } from "../mod.ts";
import { startServer } from "./_server.ts";
import { available, bundleForNode, run } from "./_command.ts";

/** Grabs started at once, each in a context of its own. */
const GRABS = 16;

const als = new AsyncLocalStorage<string>();

/** Where code saw a context other than the one its grab was started in. */
function watcher() {
  const wrong: string[] = [];
  const see = (where: string, id: string) => {
    const store = als.getStore();
    if (store !== id) wrong.push(`${where} in ${id} saw ${store}`);
  };
  return { wrong, see };
}

/** Runs `each` from GRABS contexts at once, started in the same turn. */
function fromContexts<T>(each: (id: string) => Promise<T>): Promise<T[]> {
  return Promise.all(
    Array.from(
      { length: GRABS },
      (_, at) => als.run(`ctx${at}`, () => each(`ctx${at}`)),
    ),
  );
}

Deno.test("a custom fetch's abort listener runs in its grab's context when the timeout passes", async () => {
  // Grabs that start in the same millisecond share one timeout signal; the
  // first one's listener on it told every other grab's deadline, so the
  // custom fetch's listener ran in no context on Deno (in the first
  // grab's on Node), not its own.
  const { wrong, see } = watcher();
  let listened = 0;
  const fetch = (_input: RequestInfo | URL, init?: RequestInit) => {
    const id = als.getStore()!;
    const signal = init!.signal!;
    return new Promise<Response>((_, reject) => {
      listened++;
      signal.addEventListener("abort", () => {
        see("the fetch's abort listener", id);
        reject(signal.reason);
      });
    });
  };
  const grab = createGrab("http://127.0.0.1:9", { fetch, retry: 0 });
  const results = await fromContexts(async (id) => {
    const result = await grab("GET /never", { timeout: 300 });
    see("the code after the grab", id);
    return result;
  });
  assertEquals(listened, GRABS);
  for (const [, error] of results) {
    assertEquals((error as { kind?: string } | null)?.kind, "timeout");
  }
  assertEquals(wrong, []);
});

Deno.test("a hook's listener on the request's signal runs in its grab's context when the timeout passes", async () => {
  const { wrong, see } = watcher();
  let released = 0;
  await using server = startServer({
    "/never": (request) =>
      new Promise((resolve) =>
        request.signal.addEventListener("abort", () => {
          released++;
          resolve(new Response(null));
        })
      ),
  });
  const grab = createGrab(server.url, { retry: 0 });
  const results = await fromContexts(async (id) => {
    const result = await grab("GET /never", {
      timeout: 300,
      hooks: {
        beforeRequest(request) {
          see("beforeRequest", id);
          request.signal.addEventListener(
            "abort",
            () => see("the hook's abort listener", id),
          );
        },
      },
    });
    see("the code after the grab", id);
    return result;
  });
  for (const [, error] of results) {
    assertEquals((error as { kind?: string } | null)?.kind, "timeout");
  }
  assertEquals(wrong, []);
  for (
    let turn = 0;
    released < server.requests.length && turn < 1_000;
    turn++
  ) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
});

/** A route busy once for each caller's id, with a Retry-After of no wait. */
function busyOnce(): (request: Request, seen: { url: URL }) => Response {
  const answered = new Map<string, number>();
  return (_, { url }) => {
    const id = url.pathname.split("/").pop()!;
    const times = (answered.get(id) ?? 0) + 1;
    answered.set(id, times);
    return times === 1
      ? new Response("busy", { status: 503, headers: { "retry-after": "0" } })
      : Response.json({ id });
  };
}

Deno.test("hooks, a custom fetch, a schema, progress, streamed items and pages see their grab's context", async () => {
  const { wrong, see } = watcher();
  const answered = new Map<string, number>();
  await using server = startServer({
    "/busy/:id": busyOnce(),
    "/moved/:id": (_, { url }) =>
      new Response(null, {
        status: 302,
        headers: { location: `/ok${url.search}` },
      }),
    "/ok": () => Response.json({ ok: true }),
    // The first attempt of each caller stalls past its attemptTimeout.
    "/stall/:id": async (request, { url }) => {
      const id = `stall-${url.pathname.split("/").pop()}`;
      const times = (answered.get(id) ?? 0) + 1;
      answered.set(id, times);
      if (times === 1) {
        await new Promise((resolve) =>
          request.signal.addEventListener("abort", resolve)
        );
      }
      return Response.json({ times });
    },
    "/events": () =>
      new Response("data: 1\n\ndata: 2\n\n", {
        headers: { "content-type": "text/event-stream" },
      }),
    "/lines": () =>
      new Response('{"a":1}\n{"a":2}\n', {
        headers: { "content-type": "application/x-ndjson" },
      }),
    "/pages": (_, { url }) => {
      const page = Number(url.searchParams.get("page") ?? 1);
      const next = `<${server.url}/pages?page=${page + 1}>; rel="next"`;
      return Response.json([page], { headers: page < 3 ? { link: next } : {} });
    },
  });
  const hooksOf = (id: string): GrabCallOptions["hooks"] => ({
    beforeRequest: () => see("beforeRequest", id),
    afterResponse: () => see("afterResponse", id),
    beforeRetry: () => see("beforeRetry", id),
  });
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const store = als.getStore();
    return globalThis.fetch(input, init).then((response) => {
      if (als.getStore() !== store) {
        wrong.push(`the custom fetch saw ${als.getStore()}`);
      }
      return response;
    });
  };
  const grab = createGrab(server.url);
  const through = createGrab(server.url, { fetch });
  const schema = (id: string) => ({
    "~standard": {
      version: 1 as const,
      vendor: "test",
      validate: (value: unknown) => {
        see("the schema", id);
        return { value };
      },
    },
  });
  await fromContexts(async (id) => {
    const hooks = hooksOf(id);
    const retry = { limit: 2, backoff: () => 0 };
    const [busy] = await grab("GET /busy/:id", {
      params: { id },
      hooks,
      retry,
    });
    assertEquals(busy, { id });
    see("after a Retry-After", id);
    await through("GET /moved/:id", { params: { id }, hooks, query: { id } });
    see("after a redirect", id);
    const [stalled] = await through("GET /stall/:id", {
      params: { id },
      hooks,
      retry,
      attemptTimeout: 100,
    });
    // The stalled first attempt is retried; on a busy machine the second,
    // which answers at once, may itself outlast attemptTimeout, so a third
    // answering is the same behaviour.
    const { times } = stalled as { times: number };
    assert(times >= 2, `answered on attempt ${times}`);
    see("after an attemptTimeout", id);
    await grab("POST /ok", {
      body: "x".repeat(1_000),
      hooks,
      schema: schema(id),
      onUploadProgress: () => see("onUploadProgress", id),
      onDownloadProgress: () => see("onDownloadProgress", id),
    });
    const [events] = await grab("GET /events", {
      responseType: "sse",
      timeout: 300,
    });
    for await (const _ of events!) see("an event", id);
    const [lines] = await through("GET /lines", {
      responseType: "ndjson",
      timeout: 300,
    });
    for await (const _ of lines!) see("a line", id);
    for await (const _ of paginate(grab, "GET /pages", { hooks })) {
      see("a page", id);
    }
    see("the end", id);
  });
  assertEquals(wrong, []);
});

const HAS_NODE = await available("node");

Deno.test({
  name:
    "in Node, hooks and a custom fetch see their grab's context, after retries and timeouts" +
    (HAS_NODE ? "" : " (skipped: node is not on PATH)"),
  ignore: !HAS_NODE,
  async fn() {
    await using server = startServer({
      "/busy/:id": busyOnce(),
      "/never": (request) =>
        new Promise((resolve) =>
          request.signal.addEventListener(
            "abort",
            () => resolve(new Response(null)),
          )
        ),
    });
    // The child and grab as one ES module for Node, as a user ships it.
    const code = await bundleForNode("tests/_async_context_child.mjs");
    const told = JSON.parse(
      await run("node", ["--input-type=module"], {
        input: code,
        env: { GRAB_BASE: server.url },
      }),
    );
    // The timeout's abort listeners ran in the context of the grab whose
    // deadline made the shared timeout signal.
    assertEquals(told, { wrong: [], outcomes: ["timeout", "retried"] });
  },
});
