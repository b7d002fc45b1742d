/**
 * What only a runtime other than Deno takes: paths that Deno never runs, as
 * its globals differ, shown on Deno by taking away what it has and the other
 * runtime lacks.
 *
 * @module
 */

import { assertEquals, assertInstanceOf } from "@std/assert";
import { startServer } from "./_server.ts";

// `Response.prototype.bytes` is recent (Node 22, Chrome 132, Safari 18):
// without it, a body of bytes is read with `arrayBuffer()`. The module reads
// the method when it loads, so a copy of its own is loaded without it.
async function withoutBytes(): Promise<typeof import("../mod.ts")> {
  const prototype = Response.prototype as { bytes?: unknown };
  const bytes = Object.getOwnPropertyDescriptor(prototype, "bytes");
  delete prototype.bytes;
  try {
    return await import("../mod.ts?without-bytes");
  } finally {
    if (bytes !== undefined) {
      Object.defineProperty(Response.prototype, "bytes", bytes);
    }
  }
}

Deno.test("bytes: a Uint8Array where Response has no bytes()", async () => {
  const sent = new Uint8Array([0, 1, 2, 250, 255]);
  await using server = startServer(() => new Response(sent.slice()));
  const { createGrab } = await withoutBytes();
  const grab = createGrab(server.url, { retry: 0 });
  const [data, error] = await grab("GET /bytes", { responseType: "bytes" });
  assertEquals(error, null);
  assertInstanceOf(data, Uint8Array);
  assertEquals([...data], [...sent]);
});
