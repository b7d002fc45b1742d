/**
 * Child process of otel_test.ts, run with Deno's OpenTelemetry on
 * (`OTEL_DENO=true`): a server whose handler grabs from the upstream at
 * `GRAB_BASE` in the server span of the request it serves, `GRABS` of them
 * at once. Each grab's requests carry an `x-id` of the request served, and
 * a plain `fetch` made first in the same handler tells the upstream which
 * trace the handler is in. The grabs of all handlers start in one turn.
 *
 * @module
 */

import createGrab, { type GrabCallOptions, paginate } from "../mod.ts";
import { report } from "./_memory.ts";

const base = Deno.env.get("GRAB_BASE")!;
const GRABS = Number(Deno.env.get("GRABS") ?? 16);
const only = Deno.env.get("GRAB_CASE");

const grab = createGrab(base);
const through = createGrab(base, {
  fetch: (input, init) => globalThis.fetch(input, init),
});
const retry = { limit: 2, backoff: () => 0 };

/** What each handler grabs, by name; `id` goes in every request's `x-id`. */
const cases: Record<string, (id: string) => Promise<unknown>> = {
  plain: (id) => grab("GET /ok", { headers: { "x-id": id } }),
  timeout: (id) => grab("GET /ok", { headers: { "x-id": id }, timeout: 5_000 }),
  hooks: (id) =>
    grab("GET /ok", {
      headers: { "x-id": id },
      hooks: {
        beforeRequest: (request) =>
          new Request(request, { headers: { "x-id": id, "x-hook": "1" } }),
      },
    }),
  retry: (id) =>
    grab("GET /busy/:id", { params: { id }, headers: { "x-id": id }, retry }),
  attemptTimeout: (id) =>
    through("GET /stall/:id", {
      params: { id },
      headers: { "x-id": id },
      retry,
      attemptTimeout: 100,
      timeout: 5_000,
    }),
  backoff: (id) =>
    grab("GET /busy/:id", {
      params: { id },
      headers: { "x-id": id },
      retry: { limit: 2, backoff: () => 30 },
      timeout: 5_000,
    }),
  upload: (id) =>
    grab("POST /upload/:id", {
      params: { id },
      headers: { "x-id": id },
      body: "x".repeat(100_000),
      onUploadProgress: () => {},
      timeout: 5_000,
    }),
  // A hook that tells the upstream when its request is let go, as the
  // grab's timeout passes: the deadlines of these grabs share one timer.
  hookOnTimeout: async (id) => {
    const told: Promise<unknown>[] = [];
    await grab("GET /hang/:id", {
      params: { id },
      headers: { "x-id": id },
      retry: 0,
      timeout: 300,
      hooks: {
        beforeRequest: (request) =>
          request.signal.addEventListener("abort", () => {
            told.push(
              fetch(`${base}/let-go`, { headers: { "x-id": id } })
                .then((response) => response.body?.cancel()),
            );
          }),
      },
    });
    await Promise.all(told);
  },
  redirect: (id) =>
    grab("GET /moved/:id", { params: { id }, headers: { "x-id": id } }),
  customFetch: (id) =>
    through("GET /ok", { headers: { "x-id": id }, timeout: 5_000 }),
  paginate: async (id) => {
    const hooks: GrabCallOptions["hooks"] = {};
    for await (
      const _ of paginate(grab, "GET /pages", {
        headers: { "x-id": id },
        hooks,
      })
    );
  },
  sse: async (id) => {
    const [events, error] = await grab("GET /events", {
      headers: { "x-id": id },
      responseType: "sse",
      timeout: 5_000,
    });
    if (error) throw error;
    for await (const _ of events!);
  },
};

/**
 * Resolves once all `GRABS` handlers of `name` have come: their grabs then
 * start in the same turn, so their deadlines share timers.
 */
const gates = new Map<
  string,
  { come: number; open: () => void; opened: Promise<void> }
>();
function together(name: string): Promise<void> {
  let gate = gates.get(name);
  if (gate === undefined) {
    let open!: () => void;
    const opened = new Promise<void>((resolve) => open = resolve);
    gate = { come: 0, open, opened };
    gates.set(name, gate);
  }
  if (++gate.come === GRABS) gate.open();
  return gate.opened;
}

const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  async (request) => {
    const [, name = "", n] = new URL(request.url).pathname.split("/");
    const id = `${name}-${n}`;
    await (await fetch(`${base}/probe`, { headers: { "x-id": id } })).body
      ?.cancel();
    await together(name);
    const run = cases[name];
    if (run === undefined) return new Response(`no case ${name}`);
    try {
      const result = await run(id);
      const error = Array.isArray(result) ? result[1] : null;
      return new Response(error ? `error ${error}` : "ok");
    } catch (error) {
      return new Response(`threw ${error}`);
    }
  },
);

const told: Record<string, string[]> = {};
for (const name of Object.keys(cases)) {
  if (only && name !== only) continue;
  told[name] = await Promise.all(
    Array.from({ length: GRABS }, async (_, n) => {
      // A trace of its own for each request served: the fetches of this
      // module's top level share one otherwise.
      const trace = crypto.randomUUID().replaceAll("-", "");
      const response = await fetch(
        `http://127.0.0.1:${server.addr.port}/${name}/${n}`,
        { headers: { traceparent: `00-${trace}-${"0".repeat(15)}1-01` } },
      );
      return await response.text();
    }),
  );
}
await server.shutdown();
await report(told);
