/**
 * The async-iteration and stream protocols of grab's live bodies and of
 * `paginate`, used as careless or clever callers use them.
 *
 * @module
 */

import { assertEquals, assertStrictEquals } from "@std/assert";
import createGrab, { type GrabStream, paginate } from "../mod.ts";
import { settles } from "./_bounds.ts";
import { startServer } from "./_server.ts";
import { type Tap, tap, tapped, tapServer } from "./_streams.ts";

Deno.test("iter: concurrent next() calls on an SSE stream settle in order", async () => {
  await using server = tapServer("text/event-stream");
  const grab = createGrab(server.url);
  const [events] = await grab("GET /", { responseType: "sse" });
  const it = (events as GrabStream<{ data: string }>)[Symbol.asyncIterator]();
  const pulls = [it.next(), it.next(), it.next(), it.next()];
  const body = await tapped(server.taps, 1);
  body.write("data: a\n\n");
  body.write("data: b\n\n");
  body.close();
  const got = await settles(Promise.all(pulls));
  assertEquals(got.map((r) => r.done ? "done" : r.value.data), [
    "a",
    "b",
    "done",
    "done",
  ]);
  assertEquals(await settles(it.next()), { done: true, value: undefined });
});

Deno.test("iter: concurrent next() then the caller aborts", async () => {
  await using server = tapServer("application/x-ndjson");
  const grab = createGrab(server.url);
  const controller = new AbortController();
  const [rows] = await grab("GET /", {
    responseType: "ndjson",
    signal: controller.signal,
  });
  const stream = rows as GrabStream<number>;
  const it = stream[Symbol.asyncIterator]();
  const body = await tapped(server.taps, 1);
  body.write("1\n");
  const pulls = [it.next(), it.next(), it.next()];
  assertEquals(await settles(pulls[0]!), { done: false, value: 1 });
  controller.abort();
  assertEquals(await settles(pulls[1]!), { done: true, value: undefined });
  assertEquals(await settles(pulls[2]!), { done: true, value: undefined });
  assertEquals(stream.error?.kind, "abort");
  await settles(body.cancelled);
});

/**
 * `return()` or `throw()` called while `next()` calls are pending: each
 * answer comes in the order it was asked for, as a generator's (and a
 * `ReadableStream`'s iterator's) do, and the body is released at once.
 */
Deno.test("iter: return() and throw() settle after the next() calls made before them", async (t) => {
  const ends: [string, (it: AsyncIterator<unknown>) => Promise<unknown>][] = [
    ["return()", (it) => it.return!()],
    ["throw()", (it) => it.throw!(new Error("thrown in"))],
  ];
  for (const [name, end] of ends) {
    await t.step(name, async () => {
      await using server = tapServer("text/event-stream");
      const grab = createGrab(server.url);
      const [events] = await grab("GET /", { responseType: "sse" });
      const it = (events as GrabStream<unknown>)[Symbol.asyncIterator]();
      const order: string[] = [];
      const note = (what: string) => () => void order.push(what);
      const asked = [
        it.next().then(note("next 1")),
        it.next().then(note("next 2")),
      ];
      const body = await tapped(server.taps, 1);
      asked.push(end(it).then(note(name), note(name)));
      asked.push(end(it).then(note(`${name} again`), note(`${name} again`)));
      await settles(Promise.all(asked));
      assertEquals(order, ["next 1", "next 2", name, `${name} again`]);
      await settles(body.cancelled);
      assertEquals(await settles(it.next()), { done: true, value: undefined });
    });
  }
});

Deno.test("iter: byte stream getReader, releaseLock, then for-await", async () => {
  await using server = tapServer("application/octet-stream");
  const grab = createGrab(server.url);
  const [data] = await grab("GET /", { responseType: "stream" });
  const stream = data as ReadableStream<Uint8Array>;
  const body = await tapped(server.taps, 1);
  body.write("ab");
  const reader = stream.getReader();
  const first = await settles(reader.read());
  assertEquals(new TextDecoder().decode(first.value), "ab");
  reader.releaseLock();
  body.write("cd");
  body.close();
  let rest = "";
  for await (const chunk of stream) rest += new TextDecoder().decode(chunk);
  assertEquals(rest, "cd");
});

Deno.test("iter: byte stream tee, both branches read to the end", async () => {
  await using server = tapServer("application/octet-stream");
  const grab = createGrab(server.url);
  const [data] = await grab("GET /", { responseType: "stream" });
  const [left, right] = (data as ReadableStream<Uint8Array>).tee();
  const body = await tapped(server.taps, 1);
  body.write("ab");
  body.write("cd");
  body.close();
  const [l, r] = await settles(
    Promise.all([new Response(left).text(), new Response(right).text()]),
  );
  assertEquals([l, r], ["abcd", "abcd"]);
});

Deno.test("iter: byte stream tee, both branches cancelled, releases body", async () => {
  await using server = tapServer("application/octet-stream");
  const grab = createGrab(server.url);
  const [data] = await grab("GET /", { responseType: "stream" });
  const [left, right] = (data as ReadableStream<Uint8Array>).tee();
  const body = await tapped(server.taps, 1);
  await settles(Promise.all([left.cancel("l"), right.cancel("r")]));
  await settles(body.cancelled);
});

Deno.test("iter: byte stream piped to a sink that errors releases the body", async () => {
  await using server = tapServer("application/octet-stream");
  const grab = createGrab(server.url);
  const [data] = await grab("GET /", { responseType: "stream" });
  const body = await tapped(server.taps, 1);
  body.write("ab");
  const sink = new WritableStream({
    write() {
      throw new Error("sink broke");
    },
  });
  const piped = await settles(
    (data as ReadableStream).pipeTo(sink).catch((e) => e.message),
  );
  assertEquals(piped, "sink broke");
  await settles(body.cancelled);
});

Deno.test("iter: byte stream with attemptTimeout between chunks errors the stream", async () => {
  await using server = tapServer("application/octet-stream");
  const grab = createGrab(server.url);
  const [data] = await grab("GET /", {
    responseType: "stream",
    // Long enough for the first chunk on a loaded machine.
    attemptTimeout: 1_000,
  });
  const body = await tapped(server.taps, 1);
  body.write("ab");
  const reader = (data as ReadableStream<Uint8Array>).getReader();
  await settles(reader.read());
  const second = await settles(
    reader.read().then(() => "resolved", (e) => e.kind),
  );
  assertEquals(second, "timeout");
  await settles(body.cancelled);
});

Deno.test("iter: paginate: a break, two loops over one walk, an abort mid-walk", async () => {
  let port = 0;
  await using server = startServer((req) => {
    const n = Number(new URL(req.url).searchParams.get("p") ?? "1");
    return Response.json([n], {
      headers: { link: `<http://127.0.0.1:${port}/?p=${n + 1}>; rel="next"` },
    });
  });
  port = Number(new URL(server.url).port);
  const grab = createGrab(server.url);
  for await (const [page] of paginate(grab, "GET /")) {
    assertEquals(page, [1]);
    break;
  }
  assertEquals(server.requests.length, 1);
  // concurrent for-await on one paginate result
  const pages = paginate<number[]>(grab, "GET /", { limit: 4 });
  const seen: number[] = [];
  const loop = async () => {
    for await (const [p] of pages) seen.push(p[0]!);
  };
  await settles(Promise.all([loop(), loop()]));
  assertEquals(seen.sort(), [1, 2, 3, 4]);
  // abort mid-walk
  const controller = new AbortController();
  const walk = paginate<number[]>(grab, "GET /", { signal: controller.signal });
  const it = walk[Symbol.asyncIterator]();
  await it.next();
  controller.abort();
  const err = await settles(it.next().then(() => null, (e) => e.kind));
  assertEquals(err, "abort");
  assertEquals(await it.next(), { done: true, value: undefined });
});

Deno.test("iter: paginate over NDJSON pages, each read in the loop", async () => {
  let port = 0;
  const taps: Tap[] = [];
  await using server = startServer((req) => {
    const n = Number(new URL(req.url).searchParams.get("p") ?? "1");
    const t = tap();
    taps.push(t);
    t.write(`${n}\n`);
    t.close();
    return new Response(t.body, {
      headers: {
        "content-type": "application/x-ndjson",
        link: `<http://127.0.0.1:${port}/?p=${n + 1}>; rel="next"`,
      },
    });
  });
  port = Number(new URL(server.url).port);
  const grab = createGrab(server.url);
  const all: number[] = [];
  for await (
    const [rows] of paginate<number>(grab, "GET /", {
      responseType: "ndjson",
      limit: 3,
    })
  ) {
    for await (const row of rows as unknown as GrabStream<number>) {
      all.push(row);
    }
  }
  assertEquals(all, [1, 2, 3]);
});

Deno.test("iter: SSE stream iterated twice: second gets nothing after a break", async () => {
  await using server = tapServer("text/event-stream");
  const grab = createGrab(server.url);
  const [events] = await grab("GET /", { responseType: "sse" });
  const stream = events as GrabStream<{ data: string }>;
  const body = await tapped(server.taps, 1);
  body.write("data: a\n\ndata: b\n\n");
  for await (const e of stream) {
    assertStrictEquals(e.data, "a");
    break;
  }
  const again: string[] = [];
  for await (const e of stream) again.push(e.data);
  assertEquals(again, []);
  await settles(body.cancelled);
});

Deno.test("iter: attemptTimeout between SSE chunks, and an abort while a schema checks an event, end the loop", async () => {
  await using server = tapServer("text/event-stream");
  const grab = createGrab(server.url);
  const [events] = await grab("GET /", {
    responseType: "sse",
    // Long enough for the first chunk on a loaded machine.
    attemptTimeout: 1_000,
  });
  const stream = events as GrabStream<{ data: string }>;
  const body = await tapped(server.taps, 1);
  body.write("data: a\n\n");
  const got: string[] = [];
  await settles((async () => {
    for await (const e of stream) got.push(e.data);
  })());
  assertEquals(got, ["a"]);
  assertEquals(stream.error?.kind, "timeout");
  await settles(body.cancelled);
  const controller = new AbortController();
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const schema = {
    "~standard": {
      version: 1,
      vendor: "t",
      validate: async (v: unknown) => {
        controller.abort();
        await gate;
        return { value: v };
      },
    },
  };
  const [ev2] = await grab(
    "GET /",
    { responseType: "sse", schema, signal: controller.signal } as never,
  );
  const s2 = ev2 as unknown as GrabStream<unknown>;
  const b2 = await tapped(server.taps, 2);
  b2.write("data: 1\n\ndata: 2\n\n");
  const seen: unknown[] = [];
  await settles((async () => {
    for await (const e of s2) seen.push(e);
  })());
  release();
  assertEquals(seen, []);
  assertEquals(s2.error?.kind, "abort");
  await settles(b2.cancelled);
});

Deno.test("iter: a body broken off under concurrent pulls; a byte stream left by break or cancel", async () => {
  await using server = tapServer("application/x-ndjson");
  const grab = createGrab(server.url, { retry: 0 });
  const [rows] = await grab("GET /", { responseType: "ndjson" });
  const stream = rows as GrabStream<number>;
  const it = stream[Symbol.asyncIterator]();
  const pulls = [it.next(), it.next(), it.next()];
  const body = await tapped(server.taps, 1);
  body.write("1\n2");
  // The first line is in before the body breaks off: an error drops what
  // the server has not sent yet.
  assertEquals(await settles(pulls[0]!), { done: false, value: 1 });
  body.fail();
  const got = await settles(Promise.all(pulls.slice(1)));
  assertEquals(got, [
    { done: true, value: undefined },
    { done: true, value: undefined },
  ]);
  assertEquals(stream.error?.kind, "network");
  const [bytes] = await grab("GET /", { responseType: "stream" });
  const b2 = await tapped(server.taps, 2);
  b2.write("x");
  for await (const _ of bytes as ReadableStream<Uint8Array>) break;
  await settles(b2.cancelled);
  const [bytes3] = await grab("GET /", { responseType: "stream" });
  const b3 = await tapped(server.taps, 3);
  const reader = (bytes3 as ReadableStream<Uint8Array>).getReader();
  const pending = reader.read();
  await settles(reader.cancel("enough"));
  assertEquals((await settles(pending)).done, true);
  await settles(b3.cancelled);
});
