import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertRejects,
  assertStrictEquals,
} from "@std/assert";
import createGrab, {
  Call,
  GrabError,
  GrabTransportError,
  GrabValidationError,
  orThrow,
  type Progress,
  type ResponseType,
} from "../mod.ts";
import { startServer } from "./_server.ts";

const encoder = new TextEncoder();

/** A body sent in pieces with no `Content-Length`. */
function chunked(
  ...parts: (string | Uint8Array)[]
): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) {
        controller.enqueue(
          typeof part === "string" ? encoder.encode(part) : part,
        );
      }
      controller.close();
    },
  });
}

const PLAIN = "compressible ".repeat(2000);
const BYTES = new Uint8Array([0, 1, 2, 250, 255, 0x7b, 0x0a]);

function routes() {
  return startServer({
    "/csv": () =>
      new Response("\ufeffa,b\n1,2\n", {
        headers: { "content-type": "text/csv; charset=utf-8" },
      }),
    "/csv-chunked": () =>
      new Response(chunked("\ufeffa,", "b\n1", ",2\n"), {
        headers: { "content-type": "text/csv" },
      }),
    "/not-json": () => new Response("<html>hi</html>"),
    "/empty": () => new Response(""),
    "/no-content": () => new Response(null, { status: 204 }),
    "/bytes": () =>
      new Response(BYTES, { headers: { "content-type": "Image/PNG" } }),
    "/bytes-chunked": () =>
      new Response(chunked(BYTES.subarray(0, 3), BYTES.subarray(3))),
    "/one-chunk": () => new Response(chunked(new Uint8Array(16 * 1024))),
    "/small-chunks": () =>
      new Response(chunked(new Uint8Array(6000), new Uint8Array(4000))),
    "/missing": () => Response.json({ message: "gone" }, { status: 404 }),
    "/missing-text": () => new Response("gone away", { status: 410 }),
    "/big": () => new Response("x".repeat(5000)),
    "/big-chunked": () =>
      new Response(chunked("x".repeat(3000), "y".repeat(3000))),
    "/json": () => Response.json({ user_id: 1 }),
    "/accept": (request) =>
      new Response(request.headers.get("accept") ?? "none", {
        headers: { "content-type": "text/event-stream" },
      }),
    "/identity": () =>
      new Response("x".repeat(5000), {
        headers: { "content-encoding": "Identity" },
      }),
    "/gzip": async () => {
      const packed = new Blob([PLAIN]).stream().pipeThrough(
        new CompressionStream("gzip"),
      );
      return new Response(await new Response(packed).arrayBuffer(), {
        headers: { "content-encoding": "gzip" },
      });
    },
  });
}

Deno.test("responseType reads a 2xx body as text, bytes or a blob", async (t) => {
  await using server = routes();
  const grab = createGrab(server.url);

  await t.step(
    "text: UTF-8, the leading BOM removed, on both paths",
    async () => {
      for (const path of ["/csv", "/csv-chunked"] as const) {
        const [text, error] = await grab(`GET ${path}`, {
          responseType: "text",
        });
        assertEquals(error, null);
        assertEquals(text, "a,b\n1,2\n");
      }
    },
  );

  await t.step(
    "text: a body that is not JSON is data, not a parse failure",
    async () => {
      const [text, error] = await grab("GET /not-json", {
        responseType: "text",
      });
      assertEquals(error, null);
      assertEquals(text, "<html>hi</html>");
    },
  );

  await t.step(
    'text: an empty body is "", a 204 and a HEAD are null',
    async () => {
      assertEquals((await grab("GET /empty", { responseType: "text" }))[0], "");
      assertEquals(
        (await grab("GET /no-content", { responseType: "text" }))[0],
        null,
      );
      const [head, error] = await grab("HEAD /csv", { responseType: "text" });
      assertEquals(error, null);
      assertEquals(head, null);
    },
  );

  await t.step("bytes: the exact bytes, on both paths", async () => {
    for (const path of ["/bytes", "/bytes-chunked"] as const) {
      const [bytes, error] = await grab(`GET ${path}`, {
        responseType: "bytes",
      });
      assertEquals(error, null);
      assertInstanceOf(bytes, Uint8Array);
      assertEquals([...bytes], [...BYTES]);
    }
    const [none] = await grab("GET /empty", { responseType: "bytes" });
    assertEquals(none, new Uint8Array(0));
  });

  await t.step(
    "bytes: an array of their own, its buffer exactly the body",
    async () => {
      // One chunk of 16 KiB, which the platform hands over as a view of a
      // larger buffer; and bytes in blocks, the last one part filled.
      for (const path of ["/one-chunk", "/small-chunks"] as const) {
        const [bytes, error] = await grab(`GET ${path}`, {
          responseType: "bytes",
          maxBodyBytes: 1 << 20,
        });
        assertEquals(error, null);
        const size = path === "/one-chunk" ? 16 * 1024 : 10_000;
        assertEquals(bytes?.byteLength, size);
        assertEquals(bytes?.byteOffset, 0);
        assertEquals(bytes?.buffer.byteLength, size);
      }
      // A custom fetch's body may hand over an array it keeps (a cache):
      // the caller's bytes are a copy, not that array.
      const cached = new Uint8Array(8 * 1024).fill(1);
      const caching = createGrab(server.url, {
        fetch: () =>
          Promise.resolve(
            new Response(
              new ReadableStream({
                start(controller) {
                  controller.enqueue(cached);
                  controller.close();
                },
              }),
            ),
          ),
      });
      const [bytes] = await caching("GET /cached", { responseType: "bytes" });
      assertEquals(bytes, cached);
      bytes!.fill(2);
      assertEquals(cached[0], 1);
    },
  );

  await t.step("blob: its bytes, its type from Content-Type", async () => {
    const [blob, error] = await grab("GET /bytes", { responseType: "blob" });
    assertEquals(error, null);
    assertInstanceOf(blob, Blob);
    assertEquals(blob.type, "image/png");
    assertEquals([...new Uint8Array(await blob.arrayBuffer())], [...BYTES]);
    const [csv] = await grab("GET /csv-chunked", { responseType: "blob" });
    assertEquals(csv?.type, "text/csv");
    // The blob keeps every byte, the byte order mark included.
    assertEquals(
      new Uint8Array(await csv!.arrayBuffer()),
      encoder.encode("\ufeffa,b\n1,2\n"),
    );
  });

  await t.step(
    "an error body is read as before, whatever the type",
    async () => {
      const [data, error] = await grab("GET /missing", {
        responseType: "bytes",
      });
      assertEquals(data, null);
      assertInstanceOf(error, GrabError);
      assertEquals(error.statusCode, 404);
      assertEquals(error.body, { message: "gone" });
      const [, text] = await grab("GET /missing-text", {
        responseType: "blob",
      });
      assertInstanceOf(text, GrabError);
      assertEquals(text.body, "gone away");
    },
  );

  await t.step("maxBodyBytes bounds text, bytes and blobs", async () => {
    for (const responseType of ["text", "bytes", "blob"] as const) {
      for (const path of ["/big", "/big-chunked"] as const) {
        const [data, error] = await grab(`GET ${path}`, {
          responseType,
          maxBodyBytes: 4096,
        });
        assertEquals(data, null);
        assertInstanceOf(error, GrabTransportError);
        assertEquals(error.kind, "too-large");
      }
    }
  });

  await t.step("a factory default, overridden per call", async () => {
    const texts = createGrab(server.url, { responseType: "text" });
    const [text] = await texts("GET /json");
    assertEquals(text, '{"user_id":1}');
    const [value] = await texts("GET /json", { responseType: "json" });
    assertEquals(value, { user_id: 1 });
  });

  await t.step(
    "Accept follows the response type; the caller's wins",
    async () => {
      const sent = async (responseType: ResponseType, headers = {}) => {
        const [data] = await grab("GET /accept", { responseType, headers });
        if (data instanceof ReadableStream) await data.cancel();
        else if (
          typeof data === "object" && data !== null && "cancel" in data
        ) {
          await (data as { cancel(): Promise<void> }).cancel();
        }
        return server.requests.at(-1)!.headers.get("accept");
      };
      assertEquals(await sent("json"), "application/json");
      assertEquals(await sent("sse"), "text/event-stream");
      assertEquals(await sent("ndjson"), "application/x-ndjson");
      for (const type of ["text", "bytes", "blob", "stream"] as const) {
        assertEquals(await sent(type), "*/*", type);
      }
      assertEquals(await sent("sse", { accept: "text/plain" }), "text/plain");
      // JSON:API servers may refuse another type: its own stays on every
      // read but the streams, and none is set when its headers are off.
      const jsonApi = createGrab(server.url, { format: "json-api" });
      await jsonApi("GET /accept", { responseType: "text" });
      assertEquals(
        server.requests.at(-1)!.headers.get("accept"),
        "application/vnd.api+json",
      );
      const silent = createGrab(server.url, {
        format: "json-api",
        jsonApi: { headers: false },
      });
      const [events] = await silent("GET /accept", { responseType: "sse" });
      await events?.cancel();
      assertEquals(server.requests.at(-1)!.headers.get("accept"), "*/*");
    },
  );

  await t.step("a schema checks the text", async () => {
    const seen: unknown[] = [];
    const schema = {
      "~standard": {
        version: 1 as const,
        vendor: "test",
        validate: (value: unknown) => {
          seen.push(value);
          return { value: String(value).length };
        },
      },
    };
    const [length] = await grab("GET /not-json", {
      responseType: "text",
      schema,
    });
    assertEquals(seen, ["<html>hi</html>"]);
    assertEquals(length, 15);
  });

  await t.step("orThrow and Call.send carry the type", async () => {
    const [text] = await orThrow(grab("GET /csv", { responseType: "text" }));
    assertEquals(text?.split("\n")[0], "a,b");
    const outcome = await new Call("GET /bytes", server.url).send({
      responseType: "bytes",
    });
    assert(outcome.ok);
    assert(outcome.body instanceof Uint8Array);
    assertEquals(outcome.body.byteLength, BYTES.byteLength);
  });

  await t.step(
    "an unknown responseType is refused before any request",
    async () => {
      const before = server.requests.length;
      const error = await assertRejects(
        () => grab("GET /csv", { responseType: "xml" as "text" }),
        GrabValidationError,
      );
      assert(error.message.includes('"responseType"'), error.message);
      assertEquals(server.requests.length, before);
    },
  );
});

Deno.test("onDownloadProgress follows the bytes read", async (t) => {
  await using server = routes();
  const grab = createGrab(server.url);

  await t.step("with a Content-Length, the total is known", async () => {
    const seen: Progress[] = [];
    const [text] = await grab("GET /big", {
      responseType: "text",
      onDownloadProgress: (progress) => void seen.push({ ...progress }),
    });
    assertEquals(text?.length, 5000);
    assert(seen.length >= 1);
    assertEquals(seen.at(-1), { loaded: 5000, total: 5000 });
    for (let i = 1; i < seen.length; i++) {
      assert(seen[i]!.loaded > seen[i - 1]!.loaded, "loaded only grows");
    }
  });

  await t.step("chunked, the total is unknown", async () => {
    const seen: Progress[] = [];
    const [bytes] = await grab("GET /big-chunked", {
      responseType: "bytes",
      onDownloadProgress: (progress) => void seen.push({ ...progress }),
    });
    assertEquals(bytes?.byteLength, 6000);
    assertEquals(seen.at(-1), { loaded: 6000, total: undefined });
  });

  await t.step(
    "JSON bodies report progress too, and the data is unchanged",
    async () => {
      const seen: Progress[] = [];
      const [value] = await grab("GET /json", {
        onDownloadProgress: (progress) => void seen.push({ ...progress }),
      });
      assertEquals(value, { user_id: 1 });
      assertEquals(seen.at(-1), { loaded: 13, total: 13 });
    },
  );

  await t.step("bytes past the declared length drop the total", async () => {
    // As a browser reads a compressed cross-origin body whose encoding it
    // hides: a custom fetch gives a body longer than its Content-Length.
    const seen: Progress[] = [];
    const longer: typeof fetch = () =>
      Promise.resolve(
        new Response(chunked("12345", "67890", "abcde"), {
          headers: { "content-length": "10" },
        }),
      );
    const [text] = await createGrab(server.url, { fetch: longer })("GET /x", {
      responseType: "text",
      onDownloadProgress: (progress) => void seen.push({ ...progress }),
    });
    assertEquals(text, "1234567890abcde");
    assertEquals(seen, [
      { loaded: 5, total: 10 },
      { loaded: 10, total: 10 },
      { loaded: 15, total: undefined },
    ]);
  });

  await t.step(
    "a compressed body: the bytes read, the total unknown",
    async () => {
      const seen: Progress[] = [];
      const [text] = await grab("GET /gzip", {
        responseType: "text",
        onDownloadProgress: (progress) => void seen.push({ ...progress }),
      });
      assertEquals(text, PLAIN);
      assertEquals(seen.at(-1), { loaded: PLAIN.length, total: undefined });
    },
  );

  await t.step("Content-Encoding identity: the total is known", async () => {
    const seen: Progress[] = [];
    const [text] = await grab("GET /identity", {
      responseType: "text",
      onDownloadProgress: (progress) => void seen.push({ ...progress }),
    });
    assertEquals(text?.length, 5000);
    assertEquals(seen.at(-1), { loaded: 5000, total: 5000 });
  });

  await t.step(
    "a callback that throws rejects the grab with its error",
    async () => {
      const oops = new RangeError("progress bar broke");
      const error = await assertRejects(() =>
        grab("GET /big-chunked", {
          responseType: "text",
          onDownloadProgress: () => {
            throw oops;
          },
        })
      );
      assertStrictEquals(error, oops);
    },
  );

  await t.step("a callback that is not a function is refused", async () => {
    await assertRejects(
      () =>
        grab("GET /big", {
          onDownloadProgress: 5 as unknown as () => void,
        }),
      GrabValidationError,
      "onDownloadProgress",
    );
  });
});

Deno.test("onDownloadProgress and onUploadProgress: an async callback that rejects is not waited for, and leaves no unhandled rejection", async (t) => {
  await using server = routes();
  const grab = createGrab(server.url);
  let calls = 0;
  const late = async () => {
    calls++;
    await Promise.resolve();
    throw new Error("late");
  };

  await t.step("download, read whole", async () => {
    const [text, error] = await grab("GET /big-chunked", {
      responseType: "text",
      onDownloadProgress: late,
    });
    assertEquals(error, null);
    assertEquals(text?.length, 6000);
  });

  await t.step("download, live", async () => {
    const [stream] = await grab("GET /big-chunked", {
      responseType: "stream",
      onDownloadProgress: late,
    });
    let size = 0;
    for await (const chunk of stream!) size += chunk.byteLength;
    assertEquals(size, 6000);
  });

  await t.step("upload", async () => {
    const [, error] = await grab("POST /json", {
      body: new Blob(["x".repeat(1000)]),
      onUploadProgress: late,
    });
    assertEquals(error, null);
  });

  assert(calls >= 4, `the callbacks ran (${calls})`);
  // Their rejections settle now; an unhandled one would fail this test.
  await new Promise((resolve) => setTimeout(resolve, 0));
});
