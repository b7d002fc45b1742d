/**
 * Child process of bounds_size_test.ts: serves a JSON body of 16 Ki bytes,
 * each byte in a chunk of its own, then a 500 with an error body sent the
 * same way, and reports what each grab gave with the process's peak
 * resident set size. Deno hands each chunk over as a view of a 64 KiB
 * buffer, so a byte kept as it came would hold 64 KiB.
 *
 * @module
 */

import createGrab from "../mod.ts";
import { head, startFaultServer, write } from "./_faults.ts";
import { peakRss, report } from "./_memory.ts";

const BODY_BYTES = 16 * 1024;
const BATCH = 1024;

/** `text` as chunks of one byte each. */
function oneByteChunks(text: string): string {
  let out = "";
  for (const char of text) out += `1\r\n${char}\r\n`;
  return out;
}

const json = "[" + " ".repeat(BODY_BYTES - 2) + "]";
const results: unknown[] = [];
{
  await using server = startFaultServer(async (conn, request) => {
    await write(
      conn,
      head(request === 1 ? "200 OK" : "500 Internal Server Error", {
        "content-type": "application/json",
        connection: "close",
        "transfer-encoding": "chunked",
      }),
    );
    for (let at = 0; at < json.length; at += BATCH) {
      await write(conn, oneByteChunks(json.slice(at, at + BATCH)));
    }
    await write(conn, "0\r\n\r\n");
  });
  const grab = createGrab(server.url, { timeout: 60_000, retry: 0 });
  for (const path of ["/ok", "/failed"] as const) {
    const [data, error] = await grab(`GET ${path}`);
    results.push({
      data,
      error: error?.name ?? null,
      body: error !== null && "body" in error ? error.body : null,
    });
  }
}

await report({ results, bodyBytes: BODY_BYTES, peak: await peakRss() });
