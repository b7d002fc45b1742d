/**
 * `maxBodyBytes` holds whatever the framing headers say: a `Content-Length`
 * sent together with a `Transfer-Encoding`, and a compressed body. A 2xx over
 * the cap is kind "too-large"; a non-2xx stays a `GrabError` with a null
 * body. A child process checks that the cap bounds memory, not only the
 * result.
 *
 * @module
 */

import { assert, assertEquals, assertStrictEquals } from "@std/assert";
import { runInNewContext } from "node:vm";
import createGrab, { Call } from "../mod.ts";
import { type Fault, head, startFaultServer, write } from "./_faults.ts";
import { startServer } from "./_server.ts";
import {
  assertHttp,
  assertPeakStep,
  assertTransport,
  runChild,
  settles,
} from "./_bounds.ts";

const MIB = 1024 * 1024;
const CAP = MIB;
const encoder = new TextEncoder();
const CHUNK = encoder.encode(`10000\r\n${"x".repeat(0x10000)}\r\n`);

/**
 * A response that says `Content-Length: 10` and `Transfer-Encoding: te`, then
 * sends `totalBytes` of chunked body (64 KiB chunks) and the last chunk.
 */
function lyingFraming(
  status: string,
  te: string,
  type: string,
  totalBytes: number,
): Fault {
  return async (conn) => {
    await write(
      conn,
      head(status, {
        "content-type": type,
        connection: "close",
        "content-length": "10",
        "transfer-encoding": te,
      }),
    );
    for (let sent = 0; sent < totalBytes; sent += 0x10000) {
      await write(conn, CHUNK);
    }
    await write(conn, "0\r\n\r\n");
  };
}

const VARIANTS = ["chunked", "identity", "CHUNKED", "identity, chunked"];
const FORMATS = [
  { format: "json", type: "application/json" },
  { format: "json-api", type: "application/vnd.api+json" },
] as const;

Deno.test("maxBodyBytes holds against Content-Length with Transfer-Encoding", async (t) => {
  for (const { format, type } of FORMATS) {
    for (const te of VARIANTS) {
      await t.step(
        `${format}: a 2xx with Content-Length: 10 and Transfer-Encoding: ${te} is too-large`,
        async () => {
          await using server = startFaultServer(
            lyingFraming("200 OK", te, type, 4 * MIB),
          );
          const grab = createGrab(server.url, {
            format,
            maxBodyBytes: CAP,
            timeout: 20_000,
            retry: { backoff: () => 0 },
          });
          const result = await settles(grab("GET /big"));
          assertTransport(result, "too-large");
          assertEquals(server.requests.length, 1, "too-large is not retried");
        },
      );
      await t.step(
        `${format}: a 500 with Content-Length: 10 and Transfer-Encoding: ${te} is a GrabError with a null body`,
        async () => {
          await using server = startFaultServer(
            lyingFraming("500 Internal Server Error", te, type, 4 * MIB),
          );
          const grab = createGrab(server.url, {
            format,
            maxBodyBytes: CAP,
            timeout: 20_000,
            retry: 0,
          });
          const result = await settles(grab("GET /big"));
          const error = assertHttp(result, 500);
          assertEquals(error.body, null);
        },
      );
    }
  }

  await t.step("Call.send gives too-large for the same framing", async () => {
    await using server = startFaultServer(
      lyingFraming("200 OK", "chunked", "application/json", 4 * MIB),
    );
    const outcome = await settles(
      new Call("GET /big", server.url).send({
        maxBodyBytes: CAP,
        timeout: 20_000,
        retry: 0,
      }),
    );
    assert(!outcome.ok, "the outcome should be a transport failure");
    assertEquals(outcome.error.kind, "too-large");
  });

  await t.step(
    "a body under the cap with the same framing is read",
    async () => {
      await using server = startFaultServer(async (conn) => {
        const body = '"' + "y".repeat(1000) + '"';
        await write(
          conn,
          head("200 OK", {
            "content-type": "application/json",
            connection: "close",
            "content-length": "10",
            "transfer-encoding": "chunked",
          }) + `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`,
        );
      });
      const grab = createGrab(server.url, { maxBodyBytes: CAP, retry: 0 });
      const [data, error] = await settles(grab("GET /small"));
      assertEquals(error, null);
      assertEquals(data, "y".repeat(1000));
    },
  );
});

Deno.test("maxBodyBytes counts the bytes of a compressed body after decoding", async (t) => {
  const plain = encoder.encode(JSON.stringify("z".repeat(8 * MIB)));
  const gzipped = new Uint8Array(
    await new Response(
      new Blob([plain]).stream().pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer(),
  );
  await using server = startServer((_request, seen) =>
    new Response(gzipped, {
      status: seen.url.pathname === "/error" ? 500 : 200,
      headers: {
        "content-type": "application/json",
        "content-encoding": "gzip",
        "content-length": String(gzipped.byteLength),
      },
    })
  );
  const grab = createGrab(server.url, {
    maxBodyBytes: CAP,
    timeout: 20_000,
    retry: 0,
  });

  await t.step("a 2xx is too-large", async () => {
    assertTransport(await settles(grab("GET /ok")), "too-large");
  });

  await t.step("a 500 is a GrabError with a null body", async () => {
    const error = assertHttp(await settles(grab("GET /error")), 500);
    assertEquals(error.body, null);
  });
});

Deno.test("maxBodyBytes lets through a compressed body that fits once decoded, whatever its length", async () => {
  // Bytes that do not compress: gzip makes them longer than they are.
  let seed = 7;
  const plain = Uint8Array.from({ length: 1000 }, () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed >> 16;
  });
  const gzipped = new Uint8Array(
    await new Response(
      new Blob([plain]).stream().pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer(),
  );
  assert(gzipped.byteLength > plain.byteLength);
  await using server = startServer(() =>
    new Response(gzipped, {
      headers: {
        "content-encoding": "gzip",
        "content-length": String(gzipped.byteLength),
      },
    })
  );
  const grab = createGrab(server.url, { maxBodyBytes: 1000, retry: 0 });
  const [bytes, error] = await settles(
    grab("GET /photo", { responseType: "bytes" }),
  );
  assertEquals(error, null);
  assertEquals(bytes, plain);
  assertTransport(
    await settles(
      grab("GET /photo", { responseType: "bytes", maxBodyBytes: 999 }),
    ),
    "too-large",
  );
});

interface CapReport {
  name: string | null;
  kind: string | null;
  bodyBytes: number;
  peak: number | null;
}

Deno.test("a 128 MiB chunked body with Content-Length: 10 is never held in memory", async (t) => {
  // --allow-all: Deno lets no narrower permission read /proc/self/status.
  const report = await runChild<CapReport>("./_cap_child.ts", ["--allow-all"]);

  await t.step("the grab is too-large", () => {
    assertEquals(report.name, "GrabTransportError");
    assertEquals(report.kind, "too-large");
  });

  await assertPeakStep(
    t,
    report,
    100 * MIB,
    `a ${report.bodyBytes / MIB} MiB body capped at 1 MiB`,
  );
});

Deno.test("a body sent a byte a chunk is held as its bytes, not as the buffers they came in", async (t) => {
  // --allow-all: Deno lets no narrower permission read /proc/self/status.
  const report = await runChild<{
    results: unknown[];
    bodyBytes: number;
    peak: number | null;
  }>("./_tiny_chunks_child.ts", ["--allow-all"]);

  await t.step("the 2xx body is read, the error body kept", () => {
    assertEquals(report.results, [
      { data: [], error: null, body: null },
      { data: null, error: "GrabError", body: [] },
    ]);
  });

  // Kept as they came, the 2 × 16 Ki chunks would hold 2 GiB.
  await assertPeakStep(
    t,
    report,
    200 * MIB,
    `two ${report.bodyBytes / 1024} KiB bodies of one-byte chunks`,
  );
});

Deno.test("an afterResponse hook holds none of a 128 MiB upload: a blob made again, a stream not kept", async (t) => {
  // --allow-all: Deno lets no narrower permission read /proc/self/status.
  const report = await runChild<{
    received: unknown[];
    hooked: number;
    bodyBytes: number;
    streamBodyUsed: boolean | undefined;
    before: number | null;
    after: number | null;
    afterStream: number | null;
  }>("./_hook_upload_child.ts", ["--allow-all"]);
  const sent = { received: report.bodyBytes };

  await t.step("every upload arrived whole; the hook saw a body", () => {
    assertEquals(report.received, [sent, sent, sent]);
    assertEquals(report.hooked, 1);
  });

  await t.step("a stream body is not kept for the hook: it is used", () => {
    assertStrictEquals(report.streamBodyUsed, true);
  });

  await t.step({
    name: "the stream upload with the hook raised the peak RSS by under 64 MiB",
    ignore: report.after === null || report.afterStream === null,
    fn: () => {
      const grew = report.afterStream! - report.after!;
      assert(
        grew < 64 * MIB,
        `peak RSS grew ${(grew / MIB).toFixed(1)} MiB with a stream body`,
      );
    },
  });

  await t.step({
    // A tee holds the whole body: 128 MiB and more. Under half of it leaves
    // room for the collector's timing when other tests run beside it.
    name: "the upload with the hook raised the peak RSS by under 64 MiB",
    ignore: report.before === null || report.after === null,
    fn: () => {
      const grew = report.after! - report.before!;
      assert(
        grew < 64 * MIB,
        `peak RSS grew ${(grew / MIB).toFixed(1)} MiB with the hook`,
      );
    },
  });
});

/** Bytes that claim to be empty: a subclass overriding `byteLength`. */
class Shrunk extends Uint8Array {
  override get byteLength(): number {
    return 0;
  }
}

/** A custom `fetch` whose body is the given chunks, as they are. */
function chunksFetch(...chunks: unknown[]) {
  return () => {
    const body = new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    return Promise.resolve(new Response(body as ReadableStream<Uint8Array>));
  };
}

Deno.test("maxBodyBytes holds against chunks that lie about their size", async (t) => {
  const ones = (n: number) => new Uint8Array(n).fill(49);
  const ownLength = ones(5_000);
  Object.defineProperty(ownLength, "byteLength", { value: 0 });
  const liars: [string, unknown[]][] = [
    ["a subclass whose byteLength is 0", [new Shrunk(5_000).fill(49)]],
    ["an own byteLength of 0", [ownLength]],
    ["a negative length first", [{ byteLength: -Infinity }, ones(5_000)]],
  ];
  for (const [label, chunks] of liars) {
    for (const responseType of ["json", "text", "bytes"] as const) {
      await t.step(`${label} (${responseType})`, async () => {
        const grab = createGrab("http://127.0.0.1:9", {
          fetch: chunksFetch(...chunks),
          maxBodyBytes: 1_024,
          retry: 0,
        });
        const result = await settles(grab("GET /x", { responseType }));
        // Over the cap, or refused as not bytes: never the 5,000 bytes.
        const error = result[1] as { kind?: string } | null;
        assert(
          error?.kind === "too-large" || error?.kind === "network",
          `${label}: ${JSON.stringify(error?.kind)}`,
        );
        assertEquals(result[0], null);
      });
    }
  }

  await t.step("bytes from another realm are bytes (control)", async () => {
    const foreign = runInNewContext(
      `new Uint8Array(${JSON.stringify([...encoder.encode('{"a":1}')])})`,
    ) as Uint8Array;
    assert(!(foreign instanceof Uint8Array));
    const grab = createGrab("http://127.0.0.1:9", {
      fetch: chunksFetch(foreign),
      retry: 0,
    });
    const [data, error] = await settles(grab("GET /x"));
    assertEquals(error, null);
    assertEquals(data, { a: 1 });
  });

  await t.step(
    "an NDJSON line of shrunk chunks is cut at the cap",
    async () => {
      const grab = createGrab("http://127.0.0.1:9", {
        fetch: chunksFetch(new Shrunk(5_000).fill(49)),
        maxBodyBytes: 1_024,
        retry: 0,
      });
      const [stream] = await settles(
        grab("GET /x", { responseType: "ndjson" }),
      );
      const items: unknown[] = [];
      for await (const item of stream!) items.push(item);
      assertEquals(items, []);
      assertEquals(stream!.error?.kind, "too-large");
    },
  );

  for (
    const [label, chunk] of [
      ["a string", "abc"],
      ["a number", 7],
      ["an object dressed as bytes", Object.create(Uint8Array.prototype)],
    ] as const
  ) {
    await t.step(`${label} as a chunk is a network failure`, async () => {
      for (const responseType of ["json", "text", "bytes"] as const) {
        const grab = createGrab("http://127.0.0.1:9", {
          fetch: chunksFetch(chunk),
          retry: 0,
        });
        assertTransport(
          await settles(grab("GET /x", { responseType })),
          "network",
        );
      }
    });
  }
});
