/**
 * `idleTimeout`: a live body whose server stalls ends with kind "timeout"
 * and lets go of its connection, while one that keeps sending lives on, and
 * the caller's own time between reads does not count. One timer serves
 * every read, and a call's `idleTimeout` with a whole-body type does not
 * compile.
 *
 * @module
 */

import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertRejects,
  assertStringIncludes,
} from "@std/assert";
import createGrab, {
  Call,
  type GrabCallOptions,
  type GrabStream,
  GrabTransportError,
  paginate,
  type SendOptions,
  type ServerSentEvent,
} from "../mod.ts";
import { assertOk, assertValidation, settles, sleep } from "./_bounds.ts";
import { json, startServer } from "./_server.ts";
import { tapped, tapServer } from "./_streams.ts";
import { type Row, rowSchema as schema, same } from "./_types.ts";

const IDLE = 100;

/** Every event's data, the loop bounded by the hang guard. */
async function dataOf(events: GrabStream<ServerSentEvent>): Promise<string[]> {
  const seen: string[] = [];
  await settles(
    (async () => {
      for await (const { data } of events) seen.push(data);
    })(),
    "the loop",
  );
  return seen;
}

/**
 * An SSE grab with `idleTimeout` of a server whose body the test writes,
 * and that body; disposing of it shuts the server down.
 */
async function eventsOf(idleTimeout: number) {
  const server = tapServer("text/event-stream");
  const grab = createGrab(server.url);
  const [events] = await settles(
    grab("GET /events", { responseType: "sse", idleTimeout }),
  );
  return {
    events: events!,
    live: await tapped(server.taps, 1),
    [Symbol.asyncDispose]: () => server[Symbol.asyncDispose](),
  };
}

function assertIdle(error: unknown, bytes: number): void {
  assertInstanceOf(error, GrabTransportError);
  assertEquals(error.kind, "timeout");
  assertStringIncludes(
    error.message,
    `the server sent nothing for the idleTimeout (${IDLE} ms) after ${bytes} bytes; raise idleTimeout`,
  );
  assertInstanceOf(error.cause, DOMException);
  assertEquals(error.cause.name, "TimeoutError");
}

Deno.test("idleTimeout bounds each read of a live body", async (t) => {
  await t.step(
    "an event stream that stalls ends with timeout, and its connection is let go",
    async () => {
      await using opened = await eventsOf(IDLE);
      const { events, live } = opened;
      live.write("data: 1\n\n");
      assertEquals(await dataOf(events), ["1"]);
      assertIdle(events.error, 9);
      await settles(live.cancelled, "the server's cancel");
    },
  );

  await t.step("an NDJSON stream that stalls ends the same way", async () => {
    await using server = tapServer("application/x-ndjson");
    const grab = createGrab(server.url);
    const [lines] = await settles(
      grab("GET /rows", { responseType: "ndjson", idleTimeout: IDLE }),
    );
    const live = await tapped(server.taps, 1);
    live.write('{"a":1}\n');
    const seen: unknown[] = [];
    await settles(
      (async () => {
        for await (const line of lines!) seen.push(line);
      })(),
      "the loop",
    );
    assertEquals(seen, [{ a: 1 }]);
    assertIdle(lines!.error, 8);
    await settles(live.cancelled, "the server's cancel");
  });

  await t.step(
    "a raw stream's read rejects with the timeout, and its connection is let go",
    async () => {
      await using server = tapServer("application/octet-stream");
      const grab = createGrab(server.url);
      const [body] = await settles(
        grab("GET /file", { responseType: "stream", idleTimeout: IDLE }),
      );
      const live = await tapped(server.taps, 1);
      live.write("abc");
      const reader = body!.getReader();
      const first = await settles(reader.read(), "the first read");
      assertEquals(new TextDecoder().decode(first.value), "abc");
      const error = await assertRejects(() => settles(reader.read()));
      assertIdle(error, 3);
      await settles(live.cancelled, "the server's cancel");
    },
  );

  await t.step(
    "a stream that keeps sending lives longer than its idleTimeout",
    async () => {
      // Each event comes 20 ms after the last was read: 30 of them take
      // longer than the idleTimeout, each read far shorter.
      const idleTimeout = 300;
      await using opened = await eventsOf(idleTimeout);
      const { events, live } = opened;
      const started = performance.now();
      live.write("data: 0\n\n");
      const seen: string[] = [];
      await settles(
        (async () => {
          for await (const { data } of events) {
            seen.push(data);
            await sleep(20);
            if (seen.length < 30) {
              live.write(`: heartbeat\n\ndata: ${seen.length}\n\n`);
            } else live.close();
          }
        })(),
        "the loop",
      );
      assert(performance.now() - started > idleTimeout, "the test is too fast");
      assertEquals(seen.length, 30);
      assertEquals(events.error, null);
    },
  );

  await t.step(
    "the caller's time between reads does not count",
    async () => {
      await using opened = await eventsOf(IDLE);
      const { events, live } = opened;
      live.write("data: 1\n\n");
      const iterator = events[Symbol.asyncIterator]();
      const first = await settles(iterator.next(), "the first event");
      assertEquals(first.value?.data, "1");
      // Three idle timeouts with no read pending: nothing is waiting.
      await sleep(3 * IDLE);
      live.write("data: 2\n\n");
      const second = await settles(iterator.next(), "the second event");
      assertEquals(second.value?.data, "2");
      live.close();
      assertEquals((await settles(iterator.next(), "the end")).done, true);
      assertEquals(events.error, null);
    },
  );

  await t.step("Infinity and false set no timer", async () => {
    await using server = tapServer("text/event-stream");
    const grab = createGrab(server.url);
    let count = 0;
    for (const idleTimeout of [Infinity, false] as const) {
      const [events] = await settles(
        grab("GET /events", { responseType: "sse", idleTimeout }),
      );
      const live = await tapped(server.taps, ++count);
      const iterator = events![Symbol.asyncIterator]();
      const next = iterator.next();
      // Setting a timer of Infinity would fire it at once.
      await sleep(IDLE);
      live.write("data: late\n\n");
      assertEquals((await settles(next, "the event")).value?.data, "late");
      live.close();
      assertEquals((await settles(iterator.next(), "the end")).done, true);
      assertEquals(events!.error, null);
    }
  });
});

Deno.test("idleTimeout is for live bodies only", async (t) => {
  await using server = startServer(() => json({ ok: true }));

  await t.step(
    "a call's idleTimeout with a whole body is refused",
    async () => {
      const grab = createGrab(server.url);
      for (const responseType of ["json", "text", "bytes", "blob"] as const) {
        const error = await assertValidation(
          // @ts-expect-error: refused at compile time too
          () => grab("GET /x", { responseType, idleTimeout: IDLE }),
          "idleTimeout",
        );
        assertStringIncludes(
          error.message,
          `Cannot use the option "idleTimeout" with responseType "${responseType}"`,
        );
      }
      assertEquals(server.requests.length, 0);
    },
  );

  await t.step("paginate's and Call.send's alike", async () => {
    const grab = createGrab(server.url);
    await assertValidation(async () => {
      // @ts-expect-error: refused at compile time too
      for await (const _ of paginate(grab, "GET /x", { idleTimeout: IDLE })) {
        // No page comes.
      }
    }, "idleTimeout");
    const call = new Call("GET /x", server.url);
    await assertValidation(
      // @ts-expect-error: refused at compile time too
      () => call.send({ responseType: "text", idleTimeout: IDLE }),
      "idleTimeout",
    );
    assertEquals(server.requests.length, 0);
  });

  await t.step("a factory's idleTimeout is for its live grabs", async () => {
    const grab = createGrab(server.url, { idleTimeout: IDLE });
    assertEquals(assertOk(await grab("GET /x")), { ok: true });
    // Turned off for one call, whatever its type.
    assertOk(await grab("GET /x", { idleTimeout: false }));
  });

  await t.step("a value that is no timeout is refused", async () => {
    const grab = createGrab(server.url);
    for (const idleTimeout of [0, -1, Number.NaN, 2 ** 31, "5s", true]) {
      await assertValidation(
        () =>
          grab("GET /x", {
            responseType: "sse",
            idleTimeout: idleTimeout as number,
          }),
        "idleTimeout",
      );
      await assertValidation(
        () => createGrab(server.url, { idleTimeout: idleTimeout as number }),
        "idleTimeout",
      );
    }
  });
});

Deno.test("idleTimeout sets no timer per read of a live body", async () => {
  // Told apart from every other timer by its delay.
  const idleTimeout = 60_000;
  await using opened = await eventsOf(idleTimeout);
  const { events, live } = opened;
  const count = 200;
  let timers = 0;
  const platform = globalThis.setTimeout;
  globalThis.setTimeout = ((run: () => void, ms?: number) => {
    if (ms === idleTimeout) timers++;
    return platform(run, ms);
  }) as typeof setTimeout;
  const seen: string[] = [];
  try {
    // One event per read: the next is sent once the last was served.
    live.write("data: 0\n\n");
    await settles(
      (async () => {
        for await (const { data } of events) {
          seen.push(data);
          if (seen.length < count) live.write(`data: ${seen.length}\n\n`);
          else live.close();
        }
      })(),
      "the loop",
    );
  } finally {
    globalThis.setTimeout = platform;
  }
  assertEquals(seen.length, count);
  assertEquals(events.error, null);
  assert(timers <= 2, `${timers} idle timers for ${count} reads`);
});

Deno.test(
  "a read that begins late in the idle timer's span waits its whole idleTimeout",
  async () => {
    await using opened = await eventsOf(500);
    const { events, live } = opened;
    live.write("data: 1\n\n");
    const iterator = events[Symbol.asyncIterator]();
    assertEquals((await settles(iterator.next())).value?.data, "1");
    // The second read begins 300 ms on and is answered 300 ms later: past
    // the span of a timer set for the first read, within its own.
    await sleep(300);
    const second = iterator.next();
    await sleep(300);
    live.write("data: 2\n\n");
    assertEquals((await settles(second, "the second event")).value?.data, "2");
    live.close();
    assertEquals((await settles(iterator.next(), "the end")).done, true);
    assertEquals(events.error, null);
  },
);

// Compile-time: a call's idleTimeout with a whole-body type does not
// compile, as the run time refuses it; checked by `deno check`, and the
// type of `data` is unchanged.
async function _compileOnly(base: string): Promise<void> {
  const grab = createGrab(base);
  // @ts-expect-error: no idleTimeout with JSON, the default
  await grab("GET /x", { idleTimeout: 100 });
  // @ts-expect-error: no idleTimeout with bytes
  await grab("GET /x", { responseType: "bytes", idleTimeout: 100 });
  // @ts-expect-error: no idleTimeout with text
  await grab("GET /x", { responseType: "text", idleTimeout: 1 });
  const [events] = await grab("GET /x", {
    responseType: "sse",
    idleTimeout: 100,
  });
  same<typeof events, GrabStream<ServerSentEvent> | null>(true);
  const [rows] = await grab<Row>("GET /x", {
    responseType: "ndjson",
    idleTimeout: 100,
  });
  same<typeof rows, GrabStream<Row> | null>(true);
  const [body] = await grab("GET /x", {
    responseType: "stream",
    idleTimeout: 100,
  });
  same<typeof body, ReadableStream<Uint8Array> | null>(true);
  const [checked] = await grab("GET /x", {
    responseType: "sse",
    schema,
    idleTimeout: 100,
  });
  same<typeof checked, GrabStream<ServerSentEvent<Row>> | null>(true);
  // @ts-expect-error: no idleTimeout with a schema read as JSON
  await grab("GET /x", { schema, idleTimeout: 100 });
  // `false` turns it off, whatever the type.
  const [whole] = await grab<Row>("GET /x", { idleTimeout: false });
  same<typeof whole, Row | null>(true);
  // A factory's is for its live grabs; its live default takes one.
  const live = createGrab(base, { responseType: "sse", idleTimeout: 100 });
  const [fromFactory] = await live("GET /x", { idleTimeout: 50 });
  same<typeof fromFactory, GrabStream<ServerSentEvent> | null>(true);
  // Options typed as any call's still compile: the run time decides.
  const options: GrabCallOptions = { idleTimeout: 100 };
  await grab("GET /x", options);
  // paginate and Call.send take it as a grab does.
  // @ts-expect-error: no idleTimeout with JSON pages
  paginate(grab, "GET /x", { idleTimeout: 100 });
  // @ts-expect-error: no idleTimeout with a schema read as JSON
  paginate(grab, "GET /x", { schema, idleTimeout: 100 });
  paginate(grab, "GET /x", { responseType: "ndjson", idleTimeout: 100 });
  paginate(grab, "GET /x", { idleTimeout: false });
  paginate(grab, "GET /x", options);
  const call = new Call("GET /x", base);
  // @ts-expect-error: no idleTimeout with JSON, the default
  await call.send({ idleTimeout: 100 });
  // @ts-expect-error: no idleTimeout with text
  await call.send({ responseType: "text", idleTimeout: 100 });
  const sent = await call.send({ responseType: "sse", idleTimeout: 100 });
  if (sent.ok) {
    same<
      typeof sent.body,
      GrabStream<ServerSentEvent> | string | number | boolean | object | null
    >(true);
  }
  const json = await call.send({ idleTimeout: false });
  if (json.ok) same<typeof json.body, unknown>(true);
  const sendOptions: SendOptions = { idleTimeout: 100 };
  const wide = await call.send(sendOptions);
  if (wide.ok) same<typeof wide.body, unknown>(true);
}
