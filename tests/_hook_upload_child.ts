/**
 * Child process of bounds_size_test.ts: uploads a 128 MiB blob twice, first
 * with no hooks, then with an `afterResponse` hook, which gets the request
 * unsent, and then a 128 MiB stream with the hook. It reports the peak
 * resident set size after each: the hook's copy of a replayable body must
 * not hold what was sent (a tee would keep all of it until the hook is
 * done), and a stream body is not copied for the hook at all.
 *
 * @module
 */

import createGrab from "../mod.ts";
import { peakRss, report } from "./_memory.ts";

const BODY_BYTES = 128 * 1024 * 1024;
const CHUNK = 64 * 1024;

const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  async (request) => {
    let received = 0;
    for await (const chunk of request.body!) received += chunk.byteLength;
    return Response.json({ received });
  },
);
const piece = new Uint8Array(CHUNK).fill(120);
const blob = new Blob(Array.from({ length: BODY_BYTES / CHUNK }, () => piece));
const base = `http://127.0.0.1:${server.addr.port}`;
const received: unknown[] = [];

const plain = createGrab(base, { retry: 0, timeout: 60_000 });
received.push((await plain("POST /upload", { body: blob }))[0]);
const before = await peakRss();

let hooked = 0;
const withHook = createGrab(base, {
  retry: 0,
  timeout: 60_000,
  hooks: {
    afterResponse(request) {
      if (request.body !== null) hooked++;
    },
  },
});
received.push((await withHook("POST /upload", { body: blob }))[0]);
const after = await peakRss();

// A stream body is not kept for the hook at all: it sees the body used.
let pieces = 0;
const stream = new ReadableStream<Uint8Array>({
  pull(controller) {
    if (pieces++ < BODY_BYTES / CHUNK) controller.enqueue(piece.slice());
    else controller.close();
  },
});
let streamBodyUsed: boolean | undefined;
const withStreamHook = createGrab(base, {
  retry: 0,
  timeout: 60_000,
  hooks: {
    afterResponse(request) {
      streamBodyUsed = request.bodyUsed;
    },
  },
});
received.push((await withStreamHook("POST /upload", { body: stream }))[0]);
const afterStream = await peakRss();

await server.shutdown();
await report({
  received,
  hooked,
  streamBodyUsed,
  bodyBytes: BODY_BYTES,
  before,
  after,
  afterStream,
});
