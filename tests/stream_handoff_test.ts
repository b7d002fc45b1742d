/**
 * What programs do with a live `"stream"` body once grab hands it over: read
 * it with a BYOB reader as they would a `fetch` body, hand it to a Worker,
 * pipe it into a destination that fails or that grab's own failure must
 * reach, and tee it.
 *
 * @module
 */

import {
  assertEquals,
  assertInstanceOf,
  assertStrictEquals,
} from "@std/assert";
import createGrab, { GrabTransportError } from "../mod.ts";
import { settles } from "./_bounds.ts";
import { startServer } from "./_server.ts";
import { paced, tapServer, watchedSource } from "./_streams.ts";

const decoder = new TextDecoder();

Deno.test("responseType stream read with a BYOB reader", async (t) => {
  await using server = startServer(() =>
    new Response(paced(["abcdefgh", "ijk", "lmnopq"]))
  );
  const grab = createGrab(server.url);

  await t.step("fills the caller's buffers, a chunk over several", async () => {
    const [body, error] = await grab("GET /", { responseType: "stream" });
    assertStrictEquals(error, null);
    const reader = body!.getReader({ mode: "byob" });
    let text = "";
    for (let reads = 0; reads < 50; reads++) {
      const { done, value } = await settles(
        reader.read(new Uint8Array(5)),
        "a BYOB read",
      );
      if (done) break;
      text += decoder.decode(value);
    }
    assertEquals(text, "abcdefghijklmnopq");
  });

  await t.step("takes a reader's byte counts: readAtLeast", async () => {
    const [body] = await grab("GET /", { responseType: "stream" });
    const reader = body!.getReader({ mode: "byob" });
    const { value } = await settles(
      reader.read(new Uint8Array(16), { min: 16 }),
      "a BYOB read",
    );
    assertEquals(decoder.decode(value), "abcdefghijklmnop");
    await reader.cancel();
  });
});

Deno.test("responseType stream from a custom fetch's empty chunks", async () => {
  // No server sends an empty chunk: only a custom fetch's body holds one.
  const parts = ["", "ab", "", "", "c", ""];
  const grab = createGrab("http://127.0.0.1:9", {
    fetch: () => Promise.resolve(new Response(paced(parts))),
  });
  const [body, error] = await grab("GET /", { responseType: "stream" });
  assertStrictEquals(error, null);
  assertEquals(await settles(new Response(body).text(), "the body"), "abc");
});

Deno.test("responseType stream handed to a Worker", async (t) => {
  await t.step("the Worker's cancel reaches the server", async () => {
    const source = watchedSource();
    await using server = startServer(() => new Response(source.body));
    const [body] = await createGrab(server.url)("GET /", {
      responseType: "stream",
    });
    const worker = new Worker(
      new URL("./_stream_handoff_worker.ts", import.meta.url),
      { type: "module" },
    );
    try {
      const done = Promise.withResolvers<{ done?: true; bytes: number }>();
      worker.onmessage = (event) => {
        if (event.data.done || event.data.failed) done.resolve(event.data);
      };
      worker.postMessage({ stream: body, chunks: 3, then: "cancel" }, [body!]);
      assertEquals(await settles(done.promise, "the Worker"), {
        done: true,
        bytes: 24,
      });
      await settles(source.cancelled, "the server's cancel");
    } finally {
      worker.terminate();
    }
  });
});

Deno.test("responseType stream piped", async (t) => {
  await t.step("a destination that fails cancels the body", async () => {
    const source = watchedSource();
    await using server = startServer(() => new Response(source.body));
    const [body] = await createGrab(server.url)("GET /", {
      responseType: "stream",
    });
    let writes = 0;
    const full = new Error("disk full");
    const failed = await settles(
      body!.pipeTo(
        new WritableStream({
          write() {
            if (++writes === 3) throw full;
          },
        }),
      ).catch((error) => error),
      "the pipe",
    );
    assertStrictEquals(failed, full);
    await settles(source.cancelled, "the server's cancel");
  });

  await t.step(
    "a stall past idleTimeout reaches the destination as grab's error",
    async () => {
      await using server = tapServer("application/octet-stream");
      const [body] = await createGrab(server.url)("GET /", {
        responseType: "stream",
        idleTimeout: 20,
      });
      server.taps[0]!.write("first");
      let aborted: unknown;
      const failed = await settles(
        body!.pipeThrough(new TextDecoderStream()).pipeTo(
          new WritableStream({ abort: (reason) => void (aborted = reason) }),
        ).catch((error) => error),
        "the pipe",
      );
      assertInstanceOf(failed, GrabTransportError);
      assertEquals(failed.kind, "timeout");
      assertStrictEquals(aborted, failed);
      await settles(server.taps[0]!.cancelled, "the server's cancel");
    },
  );

  await t.step("both branches of a tee cancelled cancel the body", async () => {
    const source = watchedSource();
    await using server = startServer(() => new Response(source.body));
    const [body] = await createGrab(server.url)("GET /", {
      responseType: "stream",
    });
    const [left, right] = body!.tee();
    const reader = left.getReader();
    await reader.read();
    await settles(
      Promise.all([reader.cancel("left"), right.cancel("right")]),
      "the cancels",
    );
    await settles(source.cancelled, "the server's cancel");
  });
});
