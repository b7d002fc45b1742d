/**
 * A wrapper of `fetch` (a tracing SDK's, a logger's, a test tool's) keeps
 * every promise grab makes with the platform's own: installed as
 * `globalThis.fetch` after grab loaded, or given as the `fetch` option.
 *
 * @module
 */

import { assertEquals } from "@std/assert";
import createGrab, { type GrabOptions } from "../mod.ts";
import { assertTransport, settles } from "./_bounds.ts";
import { startServer } from "./_server.ts";

type Fetch = NonNullable<GrabOptions["fetch"]>;
const platformFetch = globalThis.fetch;

/** An endless body of 1 KiB chunks; `cancelled` resolves when it is cancelled. */
function endless() {
  let cancelled!: () => void;
  const done = new Promise<void>((resolve) => cancelled = resolve);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.enqueue(new Uint8Array(1024));
    },
    cancel() {
      cancelled();
    },
  });
  return { body, done };
}

/** Runs `body` with `wrapper` as `globalThis.fetch`, restored after. */
async function installed<T>(
  wrapper: Fetch,
  body: () => Promise<T>,
): Promise<T> {
  globalThis.fetch = wrapper as typeof fetch;
  try {
    return await body();
  } finally {
    globalThis.fetch = platformFetch;
  }
}

/** A wrapper that keeps a clone of each response, as interceptors do. */
function cloning() {
  const clones: Response[] = [];
  const wrapper: Fetch = async (input, init) => {
    const response = await platformFetch(input, init);
    clones.push(response.clone());
    return response;
  };
  return {
    wrapper,
    async [Symbol.asyncDispose]() {
      await Promise.all(clones.map((c) => c.body?.cancel()));
    },
  };
}

for (const where of ["globalThis.fetch", "the fetch option"]) {
  Deno.test(`${where}: a body over maxBodyBytes ends the grab when a wrapper kept a clone`, async () => {
    await using server = startServer(() => new Response(endless().body));
    await using wrap = cloning();
    const run = (options: GrabOptions) => {
      const grab = createGrab(server.url, { ...options, maxBodyBytes: 4096 });
      return settles(grab("GET /"));
    };
    const result = where === "globalThis.fetch"
      ? await installed(wrap.wrapper, () => run({}))
      : await run({ fetch: wrap.wrapper });
    assertTransport(result, "too-large");
  });
}

for (const where of ["globalThis.fetch", "the fetch option"]) {
  Deno.test(`${where}: a retried status's body is let go of when a wrapper kept a clone`, async () => {
    let calls = 0;
    await using server = startServer(() =>
      ++calls === 1
        ? new Response(endless().body, { status: 503 })
        : Response.json({ second: true })
    );
    await using wrap = cloning();
    const run = (options: GrabOptions) => {
      const grab = createGrab(server.url, options);
      return settles(grab("GET /", { retry: { limit: 1, backoff: () => 0 } }));
    };
    const [data] = where === "globalThis.fetch"
      ? await installed(wrap.wrapper, () => run({}))
      : await run({ fetch: wrap.wrapper });
    assertEquals(data, { second: true });
  });

  Deno.test(`${where}: a stream's cancel settles when a wrapper kept a clone`, async () => {
    await using server = startServer(() => new Response(endless().body));
    await using wrap = cloning();
    const run = async (options: GrabOptions) => {
      const grab = createGrab(server.url, options);
      const [stream] = await settles(grab("GET /", { responseType: "stream" }));
      const reader = stream!.getReader();
      await reader.read();
      await settles(reader.cancel(), "the stream's cancel");
    };
    where === "globalThis.fetch"
      ? await installed(wrap.wrapper, () => run({}))
      : await run({ fetch: wrap.wrapper });
  });
}

Deno.test("an afterResponse hook that leaves the response keeps a wrapper's clone in mind", async () => {
  await using server = startServer(() => new Response(endless().body));
  await using wrap = cloning();
  const grab = createGrab(server.url, {
    fetch: wrap.wrapper,
    maxBodyBytes: 4096,
    hooks: { afterResponse: () => {} },
  });
  assertTransport(await settles(grab("GET /")), "too-large");
});
