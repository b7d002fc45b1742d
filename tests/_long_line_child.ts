/**
 * Child process of bounds_streams_test.ts: serves an NDJSON line and an SSE
 * event of 128 Ki characters each, every byte in a chunk of its own (the
 * event as one long `data:` line, then as many one-character `data:`
 * lines), and reports, for each, how many bytes the heap held once the
 * whole of it but its end had arrived, with what the stream then gave. Run
 * with `--v8-flags=--expose-gc`.
 *
 * @module
 */

import createGrab from "../mod.ts";
import { head, startFaultServer, write } from "./_faults.ts";
import { report } from "./_memory.ts";

const CHARS = 128 * 1024;
const BATCH = 4096;

const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) throw new Error("Run with --v8-flags=--expose-gc");

/** `text` as chunks of one byte each. */
function oneByteChunks(text: string): string {
  let out = "";
  for (const char of text) out += `1\r\n${char}\r\n`;
  return out;
}

// The first two load the live bodies' modules, which the heap then holds.
const BODIES: Record<string, [type: string, body: string, end: string]> = {
  "/warm-ndjson": ["application/x-ndjson", "1", "\n"],
  "/warm-sse": ["text/event-stream", "data:x", "\n\n"],
  "/line": ["application/x-ndjson", `"${"x".repeat(CHARS - 2)}"`, "\n"],
  "/event": ["text/event-stream", `data:${"x".repeat(CHARS)}`, "\n\n"],
  "/lines": ["text/event-stream", "data:x\n".repeat(CHARS / 7), "\n"],
};

function heapUsed(): number {
  gc!();
  return Deno.memoryUsage().heapUsed;
}

const results: Record<string, unknown> = {};
{
  let path = "";
  await using server = startFaultServer(async (conn) => {
    const [type, body, end] = BODIES[path]!;
    await write(
      conn,
      head("200 OK", {
        "content-type": type,
        connection: "close",
        "transfer-encoding": "chunked",
      }),
    );
    for (let at = 0; at < body.length; at += BATCH) {
      await write(conn, oneByteChunks(body.slice(at, at + BATCH)));
    }
    await write(conn, `${end.length.toString(16)}\r\n${end}\r\n0\r\n\r\n`);
  });
  const grab = createGrab(server.url, { timeout: 60_000, retry: 0 });
  for (const [name, [type, body]] of Object.entries(BODIES)) {
    path = name;
    const before = heapUsed();
    let held = 0;
    const options = {
      onDownloadProgress: ({ loaded }: { loaded: number }) => {
        if (loaded === body.length) held = heapUsed() - before;
      },
    };
    const endpoint = `GET ${name}` as `GET /${string}`;
    const [stream, error] = type === "text/event-stream"
      ? await grab(endpoint, { ...options, responseType: "sse" })
      : await grab(endpoint, { ...options, responseType: "ndjson" });
    const lengths: number[] = [];
    for await (const item of stream ?? []) {
      lengths.push(
        typeof item === "string"
          ? item.length
          : (item as { data?: string }).data?.length ?? -1,
      );
    }
    results[name] = {
      error: error?.message ?? stream?.error?.message ?? null,
      lengths,
      held,
    };
  }
}

await report({ chars: CHARS, results });
