/**
 * Child process of node_layer_test.ts. Deno makes its Node globals
 * (`process`, `Buffer`, `setImmediate`, `clearImmediate`) on their first
 * read, loading its Node layer, which costs a cold start some 10–20 ms.
 * This script wraps their getters before grab loads, then loads grab and
 * makes grabs of every common kind against a local server: plain and
 * JSON:API reads, bodies of bytes, forms and text with upload progress, an
 * error status, a timeout, a refused connection, an event stream, a custom
 * `fetch`. It writes a JSON line with the globals grab's own modules read
 * (none, unless a change starts reading them on Deno).
 *
 * @module
 */

import { report } from "./_memory.ts";

const SOURCE = new URL("../src/", import.meta.url).href;
const read = new Set<string>();
for (const name of ["process", "Buffer", "setImmediate", "clearImmediate"]) {
  const own = Object.getOwnPropertyDescriptor(globalThis, name);
  if (own?.get === undefined) continue;
  const get = own.get;
  Object.defineProperty(globalThis, name, {
    ...own,
    get() {
      // The frames of grab's modules below this getter name who read it.
      const readers = (new Error().stack ?? "").split("\n").slice(2)
        .filter((line) => line.includes(SOURCE))
        .map((line) => line.trim().replace(SOURCE, "src/"));
      if (readers.length > 0) read.add(`${name}: ${readers.join(" < ")}`);
      return get.call(this);
    },
  });
}

const { default: createGrab } = await import("../mod.ts");

const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  async (request) => {
    const { pathname } = new URL(request.url);
    await request.arrayBuffer();
    if (pathname === "/slow") {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    if (pathname === "/fails") return Response.json({ no: 1 }, { status: 500 });
    if (pathname === "/events") {
      return new Response("data: 1\n\ndata: 2\n\n", {
        headers: { "content-type": "text/event-stream" },
      });
    }
    if (pathname === "/articles") {
      return Response.json({ data: { type: "articles", id: "1" } }, {
        headers: { "content-type": "application/vnd.api+json" },
      });
    }
    return Response.json({ ok: true });
  },
);
const base = `http://127.0.0.1:${server.addr.port}`;
const grab = createGrab(base, { retry: 0 });
const outcomes: string[] = [];
const note = (
  name: string,
  [, error]: readonly [unknown, unknown, unknown],
) => {
  const failure = error as { kind?: string; statusCode?: number } | null;
  outcomes.push(`${name}: ${failure?.kind ?? failure?.statusCode ?? "ok"}`);
};

note("get", await grab("GET /item"));
note("bytes", await grab("POST /item", { body: new Uint8Array([1, 2, 3]) }));
const form = new FormData();
form.set("name", "Ada");
note("form", await grab("POST /item", { body: form }));
note(
  "upload",
  await grab("POST /item", { body: "text", onUploadProgress: () => {} }),
);
note("status", await grab("GET /fails"));
note("timeout", await grab("GET /slow", { timeout: 50 }));
const [events] = await grab("GET /events", { responseType: "sse" });
for await (const _ of events ?? []) {
  // Read to its end.
}
note("json-api", await grab("GET /articles", { format: "json-api" }));
note(
  "custom fetch",
  await createGrab(base, { fetch: (input, init) => fetch(input, init) })(
    "GET /item",
  ),
);
await server.shutdown();
note("refused", await createGrab(base, { retry: 0 })("GET /item"));

await report({ read: [...read], outcomes });
