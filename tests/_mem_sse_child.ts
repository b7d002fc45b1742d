/**
 * Child process of bounded_state_test.ts (run with `--v8-flags=--expose-gc`):
 * reads an event stream whose every event, of an id, a type and a little
 * data (on one line or two), comes in a chunk with a 60 KB comment line,
 * keeps every event's id and type (as a caller keeps ids to resume) and
 * reports the heap they retain. An id or a type kept as a view of its chunk
 * would hold all 60 KB. (An event's data is a slice of its chunk: see
 * `src/sse.ts`.)
 *
 * @module
 */

import createGrab from "../mod.ts";
import { report } from "./_memory.ts";

const EVENTS = 300;
const PAD = ": " + "p".repeat(60_000) + "\n";

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");
const collect = () => {
  for (let i = 0; i < 4; i++) gc();
};

const encoder = new TextEncoder();
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === EVENTS) return controller.close();
        const n = String(sent).padStart(8, "0");
        const data = sent % 2 === 0
          ? `data: first-data-line-${n}\n`
          : `data: first-data-line-${n}\ndata: second-data-line-${n}\n`;
        controller.enqueue(encoder.encode(
          `id: event-identifier-${n}\nevent: event-type-name-${n}\n${data}\n${PAD}`,
        ));
        sent++;
      },
    });
    return new Response(body, {
      headers: { "content-type": "text/event-stream" },
    });
  },
);
const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
  retry: 0,
  timeout: 60_000,
});

collect();
const before = Deno.memoryUsage().heapUsed;
const kept: { id: string; event: string }[] = [];
let failures = 0;
const [stream, error] = await grab("GET /events", { responseType: "sse" });
if (error !== null) failures++;
else for await (const { id, event } of stream!) kept.push({ id, event });
collect();
const after = Deno.memoryUsage().heapUsed;

const keptChars = kept.reduce(
  (sum, { id, event }) => sum + id.length + event.length,
  0,
);
await server.shutdown();
await report({ before, after, failures, events: kept.length, keptChars });
