/**
 * A live stream cancelled while a read of it is pending: the pending step
 * ends the loop, with no error, and what the body held then (a line not yet
 * ended, cut off by the cancel) is never served as an item. The reason a
 * live body is cancelled with reaches the body's own cancel.
 *
 * @module
 */

import { assertEquals, assertStrictEquals } from "@std/assert";
import createGrab, { type GrabStream } from "../mod.ts";
import { settles } from "./_bounds.ts";
import { tapServer } from "./_streams.ts";

/** Lets the client take in what was written. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

const ENDS: [
  string,
  (stream: GrabStream<unknown>, it: AsyncIterator<unknown>) => Promise<unknown>,
][] = [
  ["cancel()", (stream) => stream.cancel()],
  ["the iterator's return()", (_stream, it) => it.return!()],
];

/**
 * Ends `stream` with `end` while a read is pending: the read ends with no
 * item and no error, and the server sees the body cancelled.
 */
async function endWhilePending(
  stream: GrabStream<unknown>,
  it: AsyncIterator<unknown>,
  end: (typeof ENDS)[number][1],
  body: { cancelled: Promise<unknown> },
): Promise<void> {
  const pending = it.next();
  await settle();
  await end(stream, it);
  assertEquals(await pending, { done: true, value: undefined });
  assertEquals(stream.error, null);
  await body.cancelled;
}

Deno.test("an NDJSON stream cancelled while a read is pending", async (t) => {
  await using server = tapServer("application/x-ndjson");
  const grab = createGrab(server.url);
  for (const [how, end] of ENDS) {
    for (
      const [what, partial] of [["not JSON yet", '{"n":2'], [
        "JSON so far",
        "12",
      ]]
    ) {
      await t.step(
        `${how}, the last line ${what}: no item, no error`,
        async () => {
          const [stream] = await grab("GET /", { responseType: "ndjson" });
          const body = server.taps.at(-1)!;
          body.write(`{"n":1}\n${partial}`);
          const it = stream![Symbol.asyncIterator]();
          assertEquals(await it.next(), { done: false, value: { n: 1 } });
          await endWhilePending(stream!, it, end, body);
        },
      );
    }
  }
});

Deno.test("an SSE stream cancelled while a read is pending", async (t) => {
  await using server = tapServer("text/event-stream");
  const grab = createGrab(server.url);
  for (const [how, end] of ENDS) {
    await t.step(`${how}: no event, no error`, async () => {
      const [stream] = await grab("GET /", { responseType: "sse" });
      const body = server.taps.at(-1)!;
      body.write("data: 1\n\ndata: 2\n");
      const it = stream![Symbol.asyncIterator]();
      assertEquals((await it.next()).value, {
        event: "message",
        data: "1",
        id: "",
      });
      await endWhilePending(stream!, it, end, body);
    });
  }
});

/**
 * A schema that passes item 1 at once and, from item 2 on, tells `checking`
 * and answers with what `hold` gives.
 */
function holdingSecondItem(
  checking: PromiseWithResolvers<void>,
  hold: (value: unknown) => Promise<{ value: unknown }>,
) {
  return {
    "~standard": {
      version: 1 as const,
      vendor: "test",
      validate: (value: unknown) => {
        if ((value as { n: number }).n === 1) return { value };
        checking.resolve();
        return hold(value);
      },
    },
  };
}

Deno.test("an NDJSON stream cancelled while its schema checks an item", async (t) => {
  await using server = tapServer("application/x-ndjson");
  const grab = createGrab(server.url);
  for (const [how, end] of ENDS) {
    await t.step(`${how}: that item is not served`, async () => {
      const checking = Promise.withResolvers<void>();
      let release = () => {};
      const schema = holdingSecondItem(checking, (value) =>
        // Held until the test lets it go, after the cancel.
        new Promise((resolve) => {
          release = () => resolve({ value });
        }));
      const [stream] = await grab("GET /", { responseType: "ndjson", schema });
      const body = server.taps.at(-1)!;
      body.write('{"n":1}\n{"n":2}\n');
      const it = stream![Symbol.asyncIterator]();
      assertEquals(await it.next(), { done: false, value: { n: 1 } });
      const pending = it.next();
      await checking.promise;
      await end(stream!, it);
      release();
      assertEquals(await pending, { done: true, value: undefined });
      assertEquals(stream!.error, null);
      await body.cancelled;
    });
  }
});

Deno.test("a live stream cancelled while its schema never settles ends its loop", async (t) => {
  const cases = [
    ["ndjson", "application/x-ndjson", '{"n":1}\n{"n":2}\n'],
    ["sse", "text/event-stream", 'data: {"n":1}\n\ndata: {"n":2}\n\n'],
  ] as const;
  for (const [responseType, mediaType, text] of cases) {
    await t.step(responseType, async () => {
      await using server = tapServer(mediaType);
      const grab = createGrab(server.url);
      const checking = Promise.withResolvers<void>();
      // The caller's check hangs: only the cancel can end the step.
      const schema = holdingSecondItem(checking, () => new Promise(() => {}));
      const controller = new AbortController();
      const [stream] = await grab("GET /", {
        responseType,
        schema,
        signal: controller.signal,
      });
      server.taps.at(-1)!.write(text);
      const it = (stream as GrabStream<unknown>)[Symbol.asyncIterator]();
      assertEquals((await it.next()).done, false);
      const pending = it.next();
      await checking.promise;
      await stream!.cancel();
      assertEquals(await settles(pending, "the pending step"), {
        done: true,
        value: undefined,
      });
      assertEquals(stream!.error, null);
      // A later step, and the caller's signal, find the stream ended.
      controller.abort();
      assertEquals(await settles(it.next(), "a later step"), {
        done: true,
        value: undefined,
      });
      await server.taps.at(-1)!.cancelled;
    });
  }
});

/**
 * A custom `fetch` that hands the body on through a stream of its own (as
 * one that logs or decodes would), and the reasons its cancel was given.
 */
function wrappingFetch(): { fetch: typeof fetch; reasons: unknown[] } {
  const reasons: unknown[] = [];
  const wrap: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const body = response.body!.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        cancel: (reason) => void reasons.push(reason),
      }),
    );
    return new Response(body, response);
  };
  return { fetch: wrap, reasons };
}

Deno.test("the reason a live body is cancelled with reaches the body", async (t) => {
  const reason = new Error("the caller's reason");
  const ways: [
    string,
    "stream" | "sse" | "ndjson",
    (data: unknown, abort: AbortController) => Promise<unknown>,
  ][] = [
    [
      "stream: cancel(reason)",
      "stream",
      (data) => (data as ReadableStream).cancel(reason),
    ],
    [
      "stream: a reader's cancel(reason)",
      "stream",
      (data) => (data as ReadableStream).getReader().cancel(reason),
    ],
    ["stream: pipeTo whose signal aborts", "stream", (data, abort) => {
      const piping = (data as ReadableStream).pipeTo(new WritableStream(), {
        signal: abort.signal,
      }).catch(() => {});
      abort.abort(reason);
      return piping;
    }],
    [
      "sse: cancel(reason)",
      "sse",
      (data) => (data as GrabStream<unknown>).cancel(reason),
    ],
    [
      "ndjson: cancel(reason)",
      "ndjson",
      (data) => (data as GrabStream<unknown>).cancel(reason),
    ],
    ["ndjson: the caller's signal aborting", "ndjson", (_data, abort) => {
      abort.abort(reason);
      return Promise.resolve();
    }],
  ];
  for (const [name, responseType, end] of ways) {
    await t.step(name, async () => {
      await using server = tapServer(typeOf(responseType));
      const wrapped = wrappingFetch();
      const grab = createGrab(server.url, { fetch: wrapped.fetch });
      const abort = new AbortController();
      const [data, error] = await grab("GET /", {
        responseType,
        signal: abort.signal,
      });
      assertEquals(error, null);
      await settles(end(data, abort));
      await server.taps[0]!.cancelled;
      assertEquals(wrapped.reasons, [reason]);
    });
  }
});

Deno.test("a GrabStream ended by an error thrown into a loop that delegates to it", async (t) => {
  for (const responseType of ["sse", "ndjson"] as const) {
    const first = responseType === "sse" ? "data: 1\n\n" : "1\n";
    await t.step(
      `${responseType}: an error thrown through yield* is the caller's, the body released`,
      async () => {
        await using server = tapServer(typeOf(responseType));
        const grab = createGrab(server.url);
        const [stream] = await grab("GET /", { responseType });
        async function* relay() {
          yield* stream!;
        }
        const loop = relay();
        server.taps[0]!.write(first);
        assertEquals((await loop.next()).done, false);
        const mine = new Error("the caller's own");
        const thrown = await settles(loop.throw(mine).catch((error) => error));
        assertStrictEquals(thrown, mine);
        assertEquals(stream!.error, null);
        await settles(server.taps[0]!.cancelled);
      },
    );
  }
});

/** The media type a server labels a body of `responseType` with. */
function typeOf(responseType: "stream" | "sse" | "ndjson"): string {
  return responseType === "sse" ? "text/event-stream" : "text/plain";
}
