/**
 * Child process of bounded_state_test.ts (run with `--v8-flags=--expose-gc`):
 * makes grabs that fail in transport, one way each (timeout, abort, network,
 * too large, parse, schema; with and without hooks and retries; through a
 * custom `fetch` and `Call.send`), keeps each
 * `GrabTransportError` as a caller that logs or queues its errors does,
 * drops everything else, and reports, for each way, how many of the caller's
 * objects (the body, the path parameters, the query, the hooks, the schema,
 * the signal and its controller) are still reachable. A control that the
 * caller keeps must survive, which shows the count sees a reference.
 *
 * @module
 */

import createGrab, { Call } from "../mod.ts";
import {
  CALLER_KINDS,
  callerObjects,
  collectGarbage,
  report,
  survivors,
} from "./_memory.ts";

const GRABS = 8;

const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  async (request) => {
    const path = new URL(request.url).pathname;
    await request.body?.cancel();
    if (path.startsWith("/hang")) {
      await new Promise((resolve) =>
        request.signal.addEventListener("abort", resolve, { once: true })
      );
      return new Response(null, { status: 204 });
    }
    if (path.startsWith("/big")) return Response.json({ a: "x".repeat(256) });
    if (path.startsWith("/text")) return new Response("not json");
    return Response.json({ a: 1 });
  },
);
const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
const closedPort = closed.addr.port;
closed.close();
const base = `http://127.0.0.1:${server.addr.port}`;
const dead = `http://127.0.0.1:${closedPort}`;
const grab = createGrab(base, { retry: 0 });
const wrapped = createGrab(base, {
  retry: 0,
  fetch: (input, init) => fetch(input, init),
});

interface Way {
  kind: string;
  endpoint: string;
  hooks?: boolean;
  schema?: boolean;
  options?: Record<string, unknown>;
  abort?: boolean;
  via?: "grab" | "wrapped" | "call";
}

const WAYS: Record<string, Way> = {
  "timeout": {
    kind: "timeout",
    endpoint: "PUT /hang/:id",
    options: { timeout: 30 },
  },
  "timeout, hooks": {
    kind: "timeout",
    endpoint: "PUT /hang/:id",
    hooks: true,
    options: { timeout: 30 },
  },
  "attempt timeout": {
    kind: "timeout",
    endpoint: "PUT /hang/:id",
    options: { attemptTimeout: 30 },
  },
  "abort": { kind: "abort", endpoint: "PUT /hang/:id", abort: true },
  "abort, hooks": {
    kind: "abort",
    endpoint: "PUT /hang/:id",
    abort: true,
    hooks: true,
  },
  "network": { kind: "network", endpoint: `PUT ${dead}/x/:id` },
  "network, hooks": {
    kind: "network",
    endpoint: `PUT ${dead}/x/:id`,
    hooks: true,
  },
  "network, retried": {
    kind: "network",
    endpoint: `PUT ${dead}/x/:id`,
    options: { retry: { limit: 1, backoff: () => 0 } },
  },
  "too-large": {
    kind: "too-large",
    endpoint: "PUT /big/:id",
    options: { maxBodyBytes: 16 },
  },
  "too-large, hooks": {
    kind: "too-large",
    endpoint: "PUT /big/:id",
    hooks: true,
    options: { maxBodyBytes: 16 },
  },
  "parse": { kind: "parse", endpoint: "PUT /text/:id" },
  "schema": { kind: "schema", endpoint: "PUT /ok/:id", schema: true },
  "network, custom fetch": {
    kind: "network",
    endpoint: `PUT ${dead}/x/:id`,
    via: "wrapped",
  },
  "timeout, custom fetch": {
    kind: "timeout",
    endpoint: "PUT /hang/:id",
    via: "wrapped",
    options: { timeout: 30 },
  },
  "timeout, Call.send": {
    kind: "timeout",
    endpoint: "PUT /hang/:id",
    via: "call",
    options: { timeout: 30 },
  },
  "network, Call.send": {
    kind: "network",
    endpoint: `PUT ${dead}/x/:id`,
    via: "call",
  },
};

const only = Deno.args.length > 0 ? new Set(Deno.args) : undefined;
const { alive, watch } = survivors(CALLER_KINDS);

const errors: unknown[] = [];
const controls: object[] = [];
const failures: Record<string, number> = {};

// In its own function, so that nothing of one grab stays in this frame.
async function one(name: string, way: Way, i: number): Promise<void> {
  const { body, params, query, hooks, schema, signal, controller, control } =
    callerObjects(name, i, watch);
  controls.push(control);
  const options: Record<string, unknown> = {
    body,
    params,
    query,
    signal,
    ...way.options,
  };
  if (way.hooks) options.hooks = hooks;
  if (way.schema) options.schema = schema;
  if (way.abort) {
    // A reason of the caller's own making holds nothing of the caller's.
    setTimeout(() => controller.abort("stopped"), 20);
  }
  let error: { kind?: string } | null | undefined;
  if (way.via === "call") {
    const outcome = await new Call(way.endpoint as "PUT /x", base).send(
      options,
    );
    error = outcome.ok ? undefined : outcome.error;
  } else {
    const use = way.via === "wrapped" ? wrapped : grab;
    [, error] = await use(way.endpoint as "PUT /x", options) as unknown as [
      unknown,
      { kind?: string } | null,
    ];
  }
  if (error?.kind === way.kind) errors.push(error);
  else failures[name] = (failures[name] ?? 0) + 1;
}

for (const [name, way] of Object.entries(WAYS)) {
  if (only !== undefined && !only.has(name)) continue;
  for (let i = 0; i < GRABS; i++) await one(name, way, i);
}
await new Promise((resolve) => setTimeout(resolve, 100));
await collectGarbage();
await collectGarbage();
const held: Record<string, Record<string, number>> = {};
for (const [name, counts] of alive) {
  held[name] = Object.fromEntries(
    [...counts].filter(([kind, n]) => kind === "control" || n > 0),
  );
}
await report({ grabs: GRABS, failures, kept: errors.length, held });
await server.shutdown();
