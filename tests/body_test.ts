import { assertEquals, assertRejects, assertStrictEquals } from "@std/assert";
import createGrab from "../mod.ts";
import { cancelBody, readBody, TOO_LARGE } from "../src/body.ts";
import { startServer } from "./_server.ts";

const encoder = new TextEncoder();

/**
 * A body that hands out `chunks` one per read (never ahead of a read), and
 * records how many reads it served and whether it was cancelled.
 */
function trackedBody(chunks: Uint8Array[]) {
  const state = { pulls: 0, cancelled: false };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[state.pulls++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
    cancel() {
      state.cancelled = true;
    },
  }, { highWaterMark: 0 });
  return { stream, state };
}

/** The bytes of `text` cut into single-byte chunks. */
function bytewise(text: string): Uint8Array[] {
  return [...encoder.encode(text)].map((byte) => new Uint8Array([byte]));
}

Deno.test("readBody()", async (t) => {
  await t.step("a HEAD response is null and cancelled unread", async () => {
    const { stream, state } = trackedBody([encoder.encode("{}")]);
    const text = await readBody(new Response(stream), "HEAD", Infinity);
    assertStrictEquals(text, null);
    assertEquals(state, { pulls: 0, cancelled: true });
  });

  await t.step("204 and 205 from a server are null", async () => {
    await using server = startServer((_request, seen) =>
      new Response(null, { status: Number(seen.url.pathname.slice(1)) })
    );
    for (const status of [204, 205]) {
      const response = await fetch(`${server.url}/${status}`);
      assertStrictEquals(await readBody(response, "GET", Infinity), null);
    }
  });

  await t.step("a null body is null", async () => {
    assertStrictEquals(
      await readBody(new Response(null), "GET", Infinity),
      null,
    );
  });

  await t.step("an empty body is null", async () => {
    const { stream } = trackedBody([]);
    assertStrictEquals(
      await readBody(new Response(stream), "GET", Infinity),
      null,
    );
    assertStrictEquals(await readBody(new Response(""), "GET", Infinity), null);
    const empties = trackedBody([new Uint8Array(0), new Uint8Array(0)]);
    assertStrictEquals(
      await readBody(new Response(empties.stream), "GET", Infinity),
      null,
    );
  });

  await t.step("one chunk is decoded as UTF-8", async () => {
    const response = new Response(encoder.encode('{"name":"Zoë"}'));
    assertEquals(await readBody(response, "GET", Infinity), '{"name":"Zoë"}');
  });

  const text = '"é € 😀 — ok"';
  await t.step("multi-byte characters split across chunks", async () => {
    const { stream, state } = trackedBody(bytewise(text));
    assertStrictEquals(
      await readBody(new Response(stream), "GET", Infinity),
      text,
    );
    assertEquals(state.cancelled, false);
  });

  await t.step("a four-byte character split 1 + 3 and 3 + 1", async () => {
    const bytes = encoder.encode("😀😀");
    const chunks = [
      bytes.subarray(0, 1),
      bytes.subarray(1, 4),
      bytes.subarray(4, 7),
      bytes.subarray(7),
    ];
    const { stream } = trackedBody(chunks);
    assertEquals(await readBody(new Response(stream), "GET", Infinity), "😀😀");
  });

  await t.step("a leading BOM is stripped", async () => {
    const bom = [0xef, 0xbb, 0xbf];
    const whole = new Uint8Array([...bom, ...encoder.encode("[1]")]);
    assertEquals(await readBody(new Response(whole), "GET", Infinity), "[1]");
    const split = trackedBody([...whole].map((b) => new Uint8Array([b])));
    assertEquals(
      await readBody(new Response(split.stream), "GET", Infinity),
      "[1]",
    );
  });

  await t.step("a body of only a BOM is empty", async () => {
    const bom = new Uint8Array([0xef, 0xbb, 0xbf]);
    assertStrictEquals(
      await readBody(new Response(bom), "GET", Infinity),
      null,
    );
  });

  await t.step("a BOM later in the body is kept", async () => {
    const body = "[1]\uFEFF";
    const { stream } = trackedBody(bytewise(body));
    assertStrictEquals(
      await readBody(new Response(stream), "GET", Infinity),
      body,
    );
    // A chunk that starts with U+FEFF mid-body keeps it.
    const chunked = trackedBody([
      encoder.encode('"a'),
      encoder.encode('\uFEFFb"'),
    ]);
    assertEquals(
      await readBody(new Response(chunked.stream), "GET", Infinity),
      '"a\uFEFFb"',
    );
    // Only the first of two leading BOMs is a BOM.
    const twice = trackedBody([
      encoder.encode("\uFEFF"),
      encoder.encode("\uFEFF1"),
    ]);
    assertEquals(
      await readBody(new Response(twice.stream), "GET", Infinity),
      "\uFEFF1",
    );
  });

  await t.step(
    "a declared length over the cap is cancelled unread",
    async () => {
      const { stream, state } = trackedBody([encoder.encode("x".repeat(100))]);
      const response = new Response(stream, {
        headers: { "content-length": "100" },
      });
      assertStrictEquals(await readBody(response, "GET", 99), TOO_LARGE);
      assertEquals(state, { pulls: 0, cancelled: true });
    },
  );

  await t.step("a declared length equal to the cap is read", async () => {
    const response = new Response("x".repeat(10), {
      headers: { "content-length": "10" },
    });
    assertStrictEquals(await readBody(response, "GET", 10), "x".repeat(10));
  });

  await t.step("a stream past the cap is cancelled at once", async () => {
    const chunk = encoder.encode("0123456789");
    const { stream, state } = trackedBody([chunk, chunk, chunk, chunk, chunk]);
    assertStrictEquals(
      await readBody(new Response(stream), "GET", 25),
      TOO_LARGE,
    );
    assertEquals(state, { pulls: 3, cancelled: true });
  });

  await t.step("a stream exactly at the cap is read", async () => {
    const chunk = encoder.encode("0123456789");
    const { stream, state } = trackedBody([chunk, chunk, chunk]);
    assertEquals(
      await readBody(new Response(stream), "GET", 30),
      "012345678901234567890123456789",
    );
    assertEquals(state.cancelled, false);
  });

  await t.step("a failing stream rejects and releases its lock", async () => {
    const failure = new TypeError("connection reset");
    let sent = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent) return controller.error(failure);
        sent = true;
        controller.enqueue(encoder.encode("[1,"));
      },
    });
    const response = new Response(stream);
    // A finite cap and no Content-Length: the library's own reader loop.
    const error = await assertRejects(() => readBody(response, "GET", 1024));
    assertStrictEquals(error, failure);
    assertEquals(stream.locked, false);
  });

  await t.step("a server's chunks split inside characters", async () => {
    await using server = startServer(() => {
      const chunks = bytewise(text);
      return new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            const chunk = chunks.shift();
            if (chunk === undefined) controller.close();
            else controller.enqueue(chunk);
          },
        }),
      );
    });
    const [data, error] = await createGrab(server.url)("GET /");
    assertStrictEquals(error, null);
    assertStrictEquals(data, JSON.parse(text));
  });
});

Deno.test("cancelBody()", async (t) => {
  await t.step("cancels an unread body", async () => {
    const { stream, state } = trackedBody([encoder.encode("x")]);
    await cancelBody(new Response(stream));
    assertEquals(state, { pulls: 0, cancelled: true });
  });

  await t.step("ignores a used, a locked and a null body", async () => {
    const used = new Response("x");
    await used.text();
    await cancelBody(used);
    const locked = new Response("x");
    const reader = locked.body!.getReader();
    await cancelBody(locked);
    await reader.cancel();
    await cancelBody(new Response(null));
  });
});
