/**
 * Child process of bounded_state_test.ts (run with `--v8-flags=--expose-gc`):
 * reads live bodies (`"sse"`, `"ndjson"` and `"stream"`) that end one way
 * each (the end of the body, a parse or schema failure, too large, the
 * server breaking off, the caller's signal, `attemptTimeout`,
 * `idleTimeout`, a `break`, `cancel()`), keeps what the caller keeps (the
 * stream's error with `error`, the settled stream with `stream`), drops
 * everything else, and reports, for each way, how many of the caller's
 * objects (the body, the path parameters, the query, the hooks, the schema,
 * the signal and its controller) are still reachable. A control that the
 * caller keeps must survive, which shows the count sees a reference.
 *
 * @module
 */

import createGrab from "../mod.ts";
import {
  CALLER_KINDS,
  callerObjects,
  collectGarbage,
  report,
  survivors,
} from "./_memory.ts";

const GRABS = 8;

const encoder = new TextEncoder();
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  async (request) => {
    const path = new URL(request.url).pathname;
    await request.body?.cancel();
    const sse = path.includes("/sse");
    const item = sse ? 'data: {"a":1}\n\n' : '{"a":1}\n';
    const type = sse ? "text/event-stream" : "application/x-ndjson";
    let first = true;
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (first) {
          first = false;
          return controller.enqueue(encoder.encode(item));
        }
        if (path.includes("/end")) return controller.close();
        if (path.includes("/bad")) {
          controller.enqueue(encoder.encode(sse ? "data: {\n\n" : "{\n"));
          return controller.close();
        }
        if (path.includes("/big") && sent++ < 64) {
          return controller.enqueue(encoder.encode("x".repeat(1024)));
        }
        if (path.includes("/big")) return controller.close();
        if (path.includes("/break")) return controller.error(new Error("x"));
        await new Promise((resolve) =>
          request.signal.addEventListener("abort", resolve, { once: true })
        );
        controller.close();
      },
    });
    return new Response(body, { headers: { "content-type": type } });
  },
);
const base = `http://127.0.0.1:${server.addr.port}`;
const grab = createGrab(base, { retry: 0 });

interface Way {
  kind: string | null;
  path: string;
  schema?: boolean;
  options?: Record<string, unknown>;
  end?: "abort" | "break" | "cancel";
}

const WAYS: Record<string, Way> = {
  "end": { kind: null, path: "end" },
  "parse": { kind: "parse", path: "bad" },
  "schema": { kind: "schema", path: "end", schema: true },
  "too-large": {
    kind: "too-large",
    path: "big",
    options: { maxBodyBytes: 64 },
  },
  "broken off": { kind: "network", path: "break" },
  "signal": { kind: "abort", path: "hang", end: "abort" },
  "attemptTimeout": {
    kind: "timeout",
    path: "hang",
    options: { attemptTimeout: 50 },
  },
  "idleTimeout": {
    kind: "timeout",
    path: "hang",
    options: { idleTimeout: 50 },
  },
  "break": { kind: null, path: "hang", end: "break" },
  "cancel": { kind: null, path: "hang", end: "cancel" },
};
const TYPES = ["sse", "ndjson", "stream"];

const keep = Deno.args[0] === "stream" ? "stream" : "error";
const only = Deno.args.length > 1 ? new Set(Deno.args.slice(1)) : undefined;
const { alive, watch } = survivors(CALLER_KINDS);

const kept: unknown[] = [];
const controls: object[] = [];
const failures: Record<string, string> = {};

interface Live {
  error?: { kind?: string } | null;
  cancel(): Promise<void>;
  [Symbol.asyncIterator](): AsyncIterator<unknown>;
}

// Reads a `"stream"` body as a caller does; what ended it, or null.
async function readBytes(
  stream: ReadableStream<Uint8Array>,
  way: Way,
  controller: AbortController,
): Promise<{ kind?: string } | null> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done } = await reader.read();
      if (done) return null;
      if (way.end === "abort") controller.abort("stopped");
      if (way.end === "break" || way.end === "cancel") {
        await reader.cancel();
        return null;
      }
    }
  } catch (error) {
    return error as { kind?: string };
  } finally {
    reader.releaseLock();
  }
}

async function readItems(
  stream: Live,
  way: Way,
  controller: AbortController,
): Promise<{ kind?: string } | null> {
  for await (const _ of stream) {
    if (way.end === "abort") controller.abort("stopped");
    if (way.end === "break") break;
    if (way.end === "cancel") await stream.cancel();
  }
  return stream.error ?? null;
}

// In its own function, so that nothing of one grab stays in this frame.
async function one(
  name: string,
  type: string,
  way: Way,
  i: number,
): Promise<void> {
  const { body, params, query, hooks, schema, signal, controller, control } =
    callerObjects(name, i, watch);
  controls.push(control);
  const options: Record<string, unknown> = {
    body,
    params,
    query,
    signal,
    hooks,
    responseType: type,
    ...way.options,
  };
  if (way.schema) options.schema = schema;
  const [stream, failed] = await grab(
    `POST /${type === "sse" ? "sse" : "lines"}/${way.path}/:id` as "POST /x",
    options,
  ) as unknown as [unknown, { kind?: string } | null];
  if (failed !== null) {
    failures[name] = `grab: ${failed.kind}`;
    return;
  }
  const error = type === "stream"
    ? await readBytes(stream as ReadableStream<Uint8Array>, way, controller)
    : await readItems(stream as Live, way, controller);
  if ((error?.kind ?? null) !== way.kind) {
    failures[name] = `${error?.kind ?? null} ${error}`;
  }
  if (keep === "stream") kept.push(stream);
  else if (error !== null) kept.push(error);
}

for (const type of TYPES) {
  for (const [end, way] of Object.entries(WAYS)) {
    // An event's data is parsed only for a schema; bytes are not parsed.
    if (end === "parse" && type !== "ndjson") continue;
    if (end === "schema" && type === "stream") continue;
    // `maxBodyBytes` caps an event or a line, not a byte stream.
    if (end === "too-large" && type === "stream") continue;
    if (keep === "error" && way.kind === null) continue;
    const name = `${type} ${end}`;
    if (only !== undefined && !only.has(name)) continue;
    for (let i = 0; i < GRABS; i++) await one(name, type, way, i);
  }
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
await report({ keep, grabs: GRABS, failures, kept: kept.length, held });
await server.shutdown();
