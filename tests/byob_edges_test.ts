/**
 * A `"stream"` body read as a byte stream, with a BYOB reader and a default
 * one, held to what a `fetch` body does in the same place: bytes a BYOB
 * read had no room for, the failures that end the body, the caller's
 * buffers, and progress.
 *
 * @module
 */

import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertRejects,
  assertStrictEquals,
} from "@std/assert";
import createGrab, { GrabTransportError } from "../mod.ts";
import { settles } from "./_bounds.ts";
import { startServer } from "./_server.ts";
import { paced, tapServer } from "./_streams.ts";

const decoder = new TextDecoder();

Deno.test("responseType stream: a chunk's rest after the body ended", async (t) => {
  await t.step("is not served after the caller's signal aborted", async () => {
    await using server = tapServer("application/octet-stream");
    const controller = new AbortController();
    const [body] = await createGrab(server.url)("GET /", {
      responseType: "stream",
      signal: controller.signal,
    });
    server.taps[0]!.write("abcdefghijklmnop");
    const reader = body!.getReader({ mode: "byob" });
    const { value } = await settles(
      reader.read(new Uint8Array(4)),
      "a BYOB read",
    );
    assertEquals(decoder.decode(value), "abcd");
    controller.abort();
    await settles(server.taps[0]!.cancelled, "the server's cancel");
    // A fetch body read so far rejects its next read with the abort.
    const failed = await settles(
      reader.read(new Uint8Array(4)).catch((error) => error),
      "the read after the abort",
    );
    assertInstanceOf(failed, GrabTransportError);
    assertEquals(failed.kind, "abort");
    await assertRejects(() => reader.closed);
  });

  await t.step("is not served after attemptTimeout passed", async () => {
    await using server = tapServer("application/octet-stream");
    // The limit is to pass after the first read: a machine so busy that the
    // head or that read came later is asked again, a few times at most.
    let reader: ReadableStreamBYOBReader | undefined;
    for (let tries = 0; tries < 5 && !reader; tries++) {
      const [body] = await createGrab(server.url)("GET /", {
        responseType: "stream",
        attemptTimeout: 50,
      });
      server.taps.at(-1)!.write("abcdefghijklmnop");
      const next = body?.getReader({ mode: "byob" });
      const read = await settles(
        next?.read(new Uint8Array(4)).catch(() => null) ??
          Promise.resolve(null),
        "a BYOB read",
      );
      if (read) reader = next;
    }
    assert(reader, "no BYOB read was served before attemptTimeout, 5 times");
    await settles(
      Promise.all(server.taps.map((tap) => tap.cancelled)),
      "the server's cancel",
    );
    const failed = await settles(
      reader.read(new Uint8Array(4)).catch((error) => error),
      "the read after attemptTimeout",
    );
    assertInstanceOf(failed, GrabTransportError);
    assertEquals(failed.kind, "timeout");
  });
});

Deno.test("responseType stream read as a fetch body is", async (t) => {
  await using server = startServer(() =>
    new Response(paced(["abcdefgh", "ij"]))
  );

  await t.step(
    "a partial element at the end is fetch's TypeError",
    async () => {
      for (const source of ["fetch", "grab"]) {
        const body = source === "fetch"
          ? (await fetch(server.url)).body!
          : (await createGrab(server.url)("GET /", {
            responseType: "stream",
          }))[0]!;
        const reader = body.getReader({ mode: "byob" });
        const failed = await settles(
          (async () => {
            for (let reads = 0; reads < 10; reads++) {
              const { done } = await reader.read(new Float64Array(4));
              if (done) return "done";
            }
          })().catch((error) => error),
          `${source}'s reads`,
        );
        assertInstanceOf(failed, TypeError, source);
      }
    },
  );

  await t.step("progress counts a chunk split over reads once", async () => {
    const seen: number[] = [];
    const [body] = await createGrab(server.url)("GET /", {
      responseType: "stream",
      onDownloadProgress: ({ loaded }) => void seen.push(loaded),
    });
    const reader = body!.getReader({ mode: "byob" });
    let text = "";
    for (let reads = 0; reads < 20; reads++) {
      const { done, value } = await settles(
        reader.read(new Uint8Array(3)),
        "a BYOB read",
      );
      if (done) break;
      text += decoder.decode(value);
    }
    assertEquals(text, "abcdefghij");
    assertEquals(seen.at(-1), 10);
    assertEquals(seen.filter((loaded) => loaded === 8).length, 1);
  });
});

Deno.test("responseType stream keeps a custom fetch's buffers intact", async () => {
  // One buffer given twice, and views into another: only a custom fetch
  // gives these, and a default read must take them from neither.
  const shared = new TextEncoder().encode("abcdef");
  const parts = [shared, shared, shared.subarray(0, 3), shared.subarray(3)];
  const grab = createGrab("http://127.0.0.1:9", {
    fetch: () => Promise.resolve(new Response(paced(parts))),
  });
  const [body, error] = await grab("GET /", { responseType: "stream" });
  assertStrictEquals(error, null);
  assertEquals(
    await settles(new Response(body).text(), "the body"),
    "abcdefabcdefabcdef",
  );
  assertEquals(shared.buffer.byteLength, 6);
  assertEquals(decoder.decode(shared), "abcdef");
});

Deno.test("responseType stream leaves a clone a hook kept whole", async () => {
  const text = "x".repeat(256 * 1024);
  await using server = startServer(() => new Response(text));
  let kept: Response | undefined;
  const grab = createGrab(server.url, {
    hooks: {
      afterResponse: (_request, response) => {
        kept = response.clone();
        return response;
      },
    },
  });
  const [body, error] = await grab("GET /", { responseType: "stream" });
  assertStrictEquals(error, null);
  const [mine, theirs] = await settles(
    Promise.all([new Response(body).text(), kept!.text()]),
    "both bodies",
  );
  assertEquals(mine.length, text.length);
  assertEquals(theirs, text);
});

Deno.test("responseType stream leaves a custom fetch's whole buffer", async () => {
  const bytes = new TextEncoder().encode("abcdef");
  const grab = createGrab("http://127.0.0.1:9", {
    fetch: () => Promise.resolve(new Response(paced([bytes]))),
  });
  const [body] = await grab("GET /", { responseType: "stream" });
  assertEquals(await settles(new Response(body).text(), "the body"), "abcdef");
  assertEquals(decoder.decode(bytes), "abcdef");
});
