/**
 * Child process of bounds_streams_test.ts: serves a 100 MiB NDJSON export
 * (819,200 lines of exactly 128 bytes, generated as the client pulls, so
 * the server holds one 64 KiB chunk at a time), reads it with
 * `responseType: "ndjson"`, counts the values and sums a field, and reports
 * the result with the process's peak resident set size.
 *
 * @module
 */

import createGrab from "../mod.ts";
import { peakRss, report } from "./_memory.ts";

const LINE_BYTES = 128;
const BODY_BYTES = 100 * 1024 * 1024;
const LINES = BODY_BYTES / LINE_BYTES;
const LINES_PER_CHUNK = 512; // 64 KiB a chunk
const encoder = new TextEncoder();

/** Line `i`: `{"id":i,"amount":i%100,"pad":"xx…"}` padded to 128 bytes. */
function line(i: number): string {
  const head = `{"id":${i},"amount":${i % 100},"pad":"`;
  return `${head}${"x".repeat(LINE_BYTES - head.length - 3)}"}\n`;
}

let sent = 0;
let bytesSent = 0;
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () =>
    new Response(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= LINES) return controller.close();
          let text = "";
          const end = Math.min(LINES, sent + LINES_PER_CHUNK);
          for (; sent < end; sent++) text += line(sent);
          const chunk = encoder.encode(text);
          bytesSent += chunk.byteLength;
          controller.enqueue(chunk);
        },
      }, { highWaterMark: 0 }),
      { headers: { "content-type": "application/x-ndjson" } },
    ),
);

let count = 0;
let sum = 0;
let idsInOrder = true;
let grabError: string | null = null;
let streamError: string | null = null;
try {
  const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
    retry: 0,
  });
  const [values, error] = await grab("GET /export", {
    responseType: "ndjson",
  });
  if (error !== null) grabError = `${error.name}: ${error.message}`;
  else {
    for await (
      const value of values as AsyncIterable<{
        id: number;
        amount: number;
      }>
    ) {
      if (value.id !== count) idsInOrder = false;
      count++;
      sum += value.amount;
    }
    const failed = (values as { error: { kind: string } | null }).error;
    streamError = failed === null ? null : failed.kind;
  }
} finally {
  await server.shutdown();
}

// Each full hundred of ids sums to 0 + 1 + … + 99 = 4950.
let expectedSum = 0;
for (let i = 0; i < LINES; i++) expectedSum += i % 100;

await report({
  grabError,
  streamError,
  count,
  expectedCount: LINES,
  sum,
  expectedSum,
  idsInOrder,
  bodyBytes: bytesSent,
  peak: await peakRss(),
});
