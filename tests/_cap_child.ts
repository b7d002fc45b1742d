/**
 * Child process of bounds_size_test.ts: serves a 128 MiB chunked body that
 * also says `Content-Length: 10`, grabs it with `maxBodyBytes: 1 MiB`, and
 * reports the result with the process's peak resident set size. The body is
 * generated lazily from one 64 KiB chunk, so the server holds little.
 *
 * @module
 */

import createGrab from "../mod.ts";
import { head, startFaultServer, write } from "./_faults.ts";
import { peakRss, report } from "./_memory.ts";

const BODY_BYTES = 128 * 1024 * 1024;
const chunk = new TextEncoder().encode(
  `10000\r\n${"x".repeat(0x10000)}\r\n`,
);

let name: string | null = null;
let kind: string | null = null;
{
  await using server = startFaultServer(async (conn) => {
    await write(
      conn,
      head("200 OK", {
        "content-type": "application/json",
        connection: "close",
        "content-length": "10",
        "transfer-encoding": "chunked",
      }),
    );
    for (let sent = 0; sent < BODY_BYTES; sent += 0x10000) {
      await write(conn, chunk);
    }
    await write(conn, "0\r\n\r\n");
  });
  const grab = createGrab(server.url, {
    maxBodyBytes: 1024 * 1024,
    timeout: 60_000,
    retry: 0,
  });
  const [, error] = await grab("GET /huge");
  if (error !== null) {
    name = error.name;
    kind = "kind" in error ? error.kind : null;
  }
}

await report({ name, kind, bodyBytes: BODY_BYTES, peak: await peakRss() });
