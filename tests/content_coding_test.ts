/**
 * Content-coded responses as a hostile or sloppy server sends them (RFC
 * 9110, 8.4): a body that its `Content-Encoding` does not describe, a
 * compressed error body whose drain is capped once decoded, and events
 * flushed one by one through a compressor.
 *
 * @module
 */

import { assert, assertEquals, assertMatch } from "@std/assert";
import type { Buffer } from "node:buffer";
import zlib from "node:zlib";
import createGrab from "../mod.ts";
import { assertHttp, assertTransport, settles } from "./_bounds.ts";
import { startServer } from "./_server.ts";

const encoder = new TextEncoder();
const JSON_TYPE = { "content-type": "application/json" };
const PLAIN = encoder.encode(JSON.stringify({ a: "hello world ".repeat(200) }));

function gzip(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(zlib.gzipSync(bytes));
}

Deno.test("a body its Content-Encoding does not describe is not retried as the network's failure", async (t) => {
  const packed = gzip(PLAIN);
  // The gzip trailer's CRC, its last 8 bytes' first half, made wrong.
  const badCrc = packed.slice();
  badCrc[badCrc.length - 8] = ~packed[packed.length - 8]! & 0xff;
  const bodies: Record<`/${string}`, [Uint8Array<ArrayBuffer>, string]> = {
    "/not-gzip": [PLAIN, "gzip"],
    "/bad-crc": [badCrc, "gzip"],
    "/not-br": [PLAIN, "br"],
  };
  await using server = startServer((_request, seen) => {
    const [body, coding] = bodies[seen.url.pathname as `/${string}`]!;
    return new Response(body, {
      headers: { ...JSON_TYPE, "content-encoding": coding },
    });
  });
  const grab = createGrab(server.url, { retry: 2 });

  for (const path of Object.keys(bodies) as `/${string}`[]) {
    for (const responseType of ["json", "text", "bytes"] as const) {
      await t.step(
        `${path}, ${responseType}: one attempt, and what to do`,
        async () => {
          const before = server.requests.length;
          const error = assertTransport(
            await settles(grab(`GET ${path}`, { responseType })),
            "network",
          );
          assertEquals(server.requests.length - before, 1, "attempts");
          assertMatch(error.message, /Content-Encoding/);
          assertMatch(error.message, /fix the server/);
          assert(
            error.cause instanceof Error,
            "the runtime's error is the cause",
          );
        },
      );
    }
  }

  await t.step(
    "an error status stays a GrabError with a null body",
    async () => {
      await using failing = startServer(() =>
        new Response(PLAIN, {
          status: 404,
          headers: { ...JSON_TYPE, "content-encoding": "gzip" },
        })
      );
      const error = assertHttp(
        await settles(createGrab(failing.url)("GET /x")),
        404,
      );
      assertEquals(error.body, null);
      assertEquals(failing.requests.length, 1);
    },
  );
});

Deno.test("a retried status's compressed body is let go once past the drain's cap decoded", async () => {
  // 32 MiB of zeros, some 32 KiB on the wire: a length the drain reads.
  const bomb = gzip(new Uint8Array(32 * 1024 * 1024));
  assert(bomb.byteLength < 64 * 1024, "the bomb is short on the wire");
  let attempts = 0;
  await using server = startServer(() =>
    ++attempts === 1
      ? new Response(bomb, {
        status: 503,
        headers: {
          ...JSON_TYPE,
          "content-encoding": "gzip",
          "content-length": String(bomb.byteLength),
          "retry-after": "0",
        },
      })
      : Response.json({ ok: true })
  );
  const grab = createGrab(server.url, { retry: 1 });
  const [data, error] = await settles(grab("GET /x"));
  assertEquals(error, null);
  assertEquals(data, { ok: true });
  assertEquals(attempts, 2);
});

Deno.test("SSE and NDJSON through a compressor: each item arrives as it is flushed", async (t) => {
  for (const coding of ["gzip", "br"] as const) {
    for (const type of ["sse", "ndjson"] as const) {
      await t.step(`${coding}, ${type}`, async () => {
        const item = (n: number) =>
          type === "sse" ? `data: ${n}\n\n` : `{"n":${n}}\n`;
        // The second item is written only once the first was delivered: a
        // grab that waited for the end of the body would never end.
        let delivered!: () => void;
        const first = new Promise<void>((resolve) => delivered = resolve);
        await using server = startServer(() => {
          const packer = coding === "gzip"
            ? zlib.createGzip()
            : zlib.createBrotliCompress();
          const flush = coding === "gzip"
            ? zlib.constants.Z_SYNC_FLUSH
            : zlib.constants.BROTLI_OPERATION_FLUSH;
          const body = new ReadableStream<Uint8Array>({
            start(controller) {
              packer.on(
                "data",
                (bytes: Buffer) => controller.enqueue(new Uint8Array(bytes)),
              );
              packer.on("end", () => controller.close());
              packer.write(item(1));
              packer.flush(flush);
              first.then(() => packer.end(item(2)));
            },
            cancel() {
              packer.destroy();
            },
          });
          return new Response(body, {
            headers: {
              "content-type": type === "sse"
                ? "text/event-stream"
                : "application/x-ndjson",
              "content-encoding": coding,
            },
          });
        });
        const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
        const [stream, error] = await settles(
          grab("GET /live", { responseType: type }),
        );
        assertEquals(error, null);
        const seen: unknown[] = [];
        for await (const each of stream!) {
          seen.push(type === "sse" ? (each as { data: string }).data : each);
          delivered();
        }
        assertEquals(stream!.error, null);
        assertEquals(
          seen,
          type === "sse" ? ["1", "2"] : [{ n: 1 }, { n: 2 }],
        );
      });
    }
  }
});
