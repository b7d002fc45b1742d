/**
 * Child process of long_run_test.ts (run with `--v8-flags=--expose-gc`):
 * opens live bodies with a signal that lives on, holds each one (as it is,
 * by a reader, or only through a pipe out of it) without reading it, has
 * the heap collected, then aborts the signal, ends the server's side of
 * every body, and reports how each body ended: `"abort"` when the signal
 * reached it, `"end"` or `"data"` when it did not.
 *
 * @module
 */

import createGrab, { type GrabStream } from "../mod.ts";
import { collectGarbage, report } from "./_memory.ts";

// Each body sends one chunk, then stays open until `/end`.
const open = new Set<ReadableStreamDefaultController<Uint8Array>>();
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  (request) => {
    if (new URL(request.url).pathname === "/end") {
      for (const controller of open) {
        try {
          controller.close();
        } catch {
          // Cancelled by the client already.
        }
      }
      open.clear();
      return new Response("ended");
    }
    let held: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        held = controller;
        open.add(controller);
        controller.enqueue(new TextEncoder().encode("data: 1\n\n1\n"));
      },
      cancel() {
        open.delete(held);
      },
    });
    return new Response(body);
  },
);
const base = `http://127.0.0.1:${server.addr.port}`;

/** How a held body ends, read after the abort. */
type Ending = () => Promise<string>;

/** How a GrabStream ended: its error's kind, or whether items came. */
async function itemsEnding(events: GrabStream<unknown>): Promise<string> {
  let items = 0;
  for await (const _ of events) items++;
  return events.error?.kind ?? (items > 0 ? "data" : "end");
}

/** How a byte stream's reader ended: the error's kind, or what came. */
async function readerEnding(
  reader: ReadableStreamDefaultReader<unknown>,
): Promise<string> {
  let chunks = 0;
  try {
    while (!(await reader.read()).done) chunks++;
  } catch (error) {
    return (error as { kind?: string }).kind ?? String(error);
  }
  return chunks > 0 ? "data" : "end";
}

/** Opens one body and holds it in the way `name` says. */
async function hold(
  name: string,
  signal: AbortSignal,
  attemptTimeout: number | undefined,
): Promise<Ending> {
  const grab = createGrab(base, {
    retry: 0,
    ...(attemptTimeout === undefined ? {} : { attemptTimeout }),
  });
  const type = name.startsWith("sse")
    ? "sse"
    : name.startsWith("ndjson")
    ? "ndjson"
    : "stream";
  const [body, error] = await grab("GET /live", {
    signal,
    responseType: type,
  });
  if (error !== null || body === null) throw error ?? new Error("no body");
  if (type !== "stream") {
    const events = body as GrabStream<unknown>;
    return () => itemsEnding(events);
  }
  const bytes = body as ReadableStream<Uint8Array>;
  if (name === "stream") {
    return () => readerEnding(bytes.getReader());
  }
  if (name === "stream reader") {
    const reader = bytes.getReader();
    return () => readerEnding(reader);
  }
  // Only the end of a pipe out of the body is held.
  const text = bytes.pipeThrough(new TextDecoderStream());
  return () => readerEnding(text.getReader());
}

const NAMES = ["sse", "ndjson", "stream", "stream reader", "stream piped"];
const shutdown = new AbortController();
const endings: [string, Ending][] = [];
for (const name of NAMES) {
  for (const attemptTimeout of [undefined, 60_000]) {
    const label = attemptTimeout === undefined
      ? name
      : `${name}, attemptTimeout`;
    endings.push([label, await hold(name, shutdown.signal, attemptTimeout)]);
  }
}
await collectGarbage();
shutdown.abort();
// A body the signal did not reach ends cleanly, rather than waiting on.
await (await fetch(`${base}/end`)).text();
const results: Record<string, string> = {};
for (const [label, ending] of endings) results[label] = await ending();
await report(results);
Deno.exit(0);
