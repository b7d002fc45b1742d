/**
 * Child process of back_pressure_test.ts (run with `--v8-flags=--expose-gc`
 * and `--allow-all`, which reading /proc/self for the peak needs).
 *
 * `slow <type> <item> <reads> <pause> [flags]`: a raw TCP server writes a
 * live body of `item`-byte events or lines as fast as the socket takes it,
 * up to 200 MB, while the client reads `reads` items (or chunks, for
 * `"stream"`) with `pause` ms before each. `type` `raw` reads with `fetch`
 * and a reader, decoding the text as a hand-written client would. Flags:
 * `progress`, `idle` (an `idleTimeout` of 300 ms), `schema`, `reader`
 * (`next()` by hand rather than `for await`), `relay` (the `"stream"` body
 * handed on through a `Response`), `stop` (the caller holds the iterator
 * unread for a second after its first item).
 *
 * `held <type> <how>`: the body brings one event or line of 40 MB, never
 * ended; the caller ends the stream while it is being built (`cancel`, its
 * `signal`, or a `maxBodyBytes` of 32 MB that the item passes), keeps the
 * stream, and reports the heap still held. `type` `raw` reads as far with
 * `fetch` and cancels.
 *
 * Both report one JSON line.
 *
 * @module
 */

import createGrab, { type GrabStream } from "../mod.ts";
import { collectGarbage, peakRss, report } from "./_memory.ts";

const [task, type = "raw", ...rest] = Deno.args;
const CAP = 200 * 1024 * 1024;
const PART = 40 * 1024 * 1024;
const encoder = new TextEncoder();
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const schema = {
  "~standard": {
    version: 1,
    vendor: "test",
    validate: (value: unknown) => ({ value }),
  },
} as const;

/**
 * Serves one connection: a head, then `block` written again and again as
 * fast as the socket takes it while `more()` says so; then it stalls until
 * the client lets go. Returns the port and the bytes written so far.
 */
function serve(head: Uint8Array, block: Uint8Array, more: () => boolean) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const counts = { written: 0 };
  const done = (async () => {
    const conn = await listener.accept();
    listener.close();
    try {
      // The request head, read and ignored.
      await conn.read(new Uint8Array(65_536));
      await conn.write(head);
      while (more()) {
        let left = block;
        while (left.byteLength > 0) {
          left = left.subarray(await conn.write(left));
        }
        counts.written += block.byteLength;
      }
      // Stalls: a read ends when the client closes the connection.
      await conn.read(new Uint8Array(1));
    } catch {
      // The client let go.
    } finally {
      conn.close();
    }
  })();
  return { port: (listener.addr as Deno.NetAddr).port, counts, done };
}

function headOf(ndjson: boolean): Uint8Array {
  const contentType = ndjson ? "application/x-ndjson" : "text/event-stream";
  return encoder.encode(
    `HTTP/1.1 200 OK\r\ncontent-type: ${contentType}\r\nconnection: close\r\n\r\n`,
  );
}

async function slow(): Promise<void> {
  const [itemArg, readsArg, pauseArg, ...flags] = rest;
  const size = Number(itemArg);
  const reads = Number(readsArg);
  const pause = Number(pauseArg);
  const has = (flag: string) => flags.includes(flag);
  const ndjson = type === "ndjson";
  const fill = "x".repeat(size);
  const item = encoder.encode(ndjson ? `"${fill}"\n` : `data: "${fill}"\n\n`);
  // Writes of about 64 KB, or of one item when it is larger.
  const perWrite = Math.max(1, Math.floor(65_536 / item.byteLength));
  const block = new Uint8Array(perWrite * item.byteLength);
  for (let i = 0; i < perWrite; i++) block.set(item, i * item.byteLength);
  const server = serve(
    headOf(ndjson),
    block,
    () => server.counts.written < CAP,
  );
  const base = `http://127.0.0.1:${server.port}`;

  let read = 0;
  let failure: string | null = null;
  const stopAfterFirst = async () => {
    if (has("stop") && read === 1) await wait(1_000);
  };
  if (type === "raw" || type === "stream") {
    let body: ReadableStream<Uint8Array>;
    if (type === "raw") body = (await fetch(`${base}/live`)).body!;
    else {
      const [data, error] = await createGrab(base, { retry: 0 })(
        "GET /live",
        {
          responseType: "stream",
          ...(has("progress") ? { onDownloadProgress: () => {} } : {}),
          ...(has("idle") ? { idleTimeout: 300 } : {}),
        },
      );
      if (error !== null) throw error;
      body = data!;
    }
    // Handed on, as a relay does.
    if (has("relay")) body = new Response(body).body!;
    const reader = body.getReader();
    // A raw reader splits its own items: `reads` items, as grab's do.
    const decoder = new TextDecoder();
    let items = 0;
    // The pause comes before each item: a raw reader's chunk may end none.
    let paused = -1;
    while (items < reads) {
      if (paused < items) await wait(pause);
      paused = items;
      const { done, value } = await reader.read();
      if (done) break;
      if (type === "raw") {
        const text = decoder.decode(value, { stream: true });
        items += text.split(ndjson ? "\n" : "\n\n").length - 1;
      } else items++;
      read = items;
      await stopAfterFirst();
    }
    await reader.cancel();
  } else {
    const [data, error] = await createGrab(base, { retry: 0 })(
      "GET /live",
      {
        responseType: ndjson ? "ndjson" : "sse",
        ...(has("progress") ? { onDownloadProgress: () => {} } : {}),
        ...(has("idle") ? { idleTimeout: 300 } : {}),
        ...(has("schema") ? { schema } : {}),
      },
    );
    if (error !== null) throw error;
    const stream = data as GrabStream<unknown>;
    if (has("reader")) {
      const iterator = stream[Symbol.asyncIterator]();
      while (read < reads) {
        await wait(pause);
        if ((await iterator.next()).done) break;
        read++;
        await stopAfterFirst();
      }
      await iterator.return!();
    } else {
      for await (const _ of stream) {
        read++;
        await stopAfterFirst();
        if (read >= reads) break;
        await wait(pause);
      }
    }
    if (stream.error !== null) failure = stream.error.message;
  }
  const ahead = server.counts.written - read * item.byteLength;
  await server.done;
  await collectGarbage();
  await report({
    read,
    ahead,
    heap: Deno.memoryUsage().heapUsed,
    peak: await peakRss(),
    failure,
  });
}

async function held(): Promise<void> {
  const [how] = rest;
  const ndjson = type === "ndjson";
  const block = encoder.encode("x".repeat(65_536));
  const head = headOf(ndjson);
  const start = encoder.encode(ndjson ? '"' : "data: ");
  const opening = new Uint8Array(head.byteLength + start.byteLength);
  opening.set(head);
  opening.set(start, head.byteLength);
  // The opening of the item, then its bytes, up to a little past PART.
  const server = serve(
    opening,
    block,
    () => server.counts.written < PART + 8 * 65_536,
  );
  const base = `http://127.0.0.1:${server.port}`;
  await collectGarbage();
  const before = Deno.memoryUsage().heapUsed;
  // Kept to the end, as a caller keeps a stream to read its `error`.
  let kept: unknown;
  let kind: string | null = null;
  if (type === "raw") {
    const response = await fetch(`${base}/live`);
    const reader = response.body!.getReader();
    let loaded = 0;
    while (loaded < PART) {
      const { done, value } = await reader.read();
      if (done) break;
      loaded += value.byteLength;
    }
    await reader.cancel();
    kept = response;
  } else {
    const controller = new AbortController();
    let ending = false;
    const [data, error] = await createGrab(base, { retry: 0 })(
      "GET /live",
      {
        responseType: ndjson ? "ndjson" : "sse",
        signal: controller.signal,
        maxBodyBytes: how === "too-large" ? PART - 8 * 1024 * 1024 : Infinity,
        onDownloadProgress: ({ loaded }) => {
          if (loaded < PART - 65_536 || how === "too-large" || ending) return;
          ending = true;
          // Once this read is done with.
          setTimeout(() => {
            if (how === "cancel") stream.cancel();
            else controller.abort();
          });
        },
      },
    );
    if (error !== null) throw error;
    const stream = data as GrabStream<unknown>;
    for await (const _ of stream) {
      throw new Error("the item was never ended, so none is served");
    }
    kind = stream.error?.kind ?? null;
    kept = stream;
  }
  await server.done;
  await collectGarbage();
  const retained = Deno.memoryUsage().heapUsed - before;
  await report({ retained, kind, kept: kept !== undefined });
}

if (task === "slow") await slow();
else await held();
