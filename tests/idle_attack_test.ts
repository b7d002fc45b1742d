/**
 * `idleTimeout` refused at compile time with a whole-body type, and under a
 * long stream of small chunks: one timer serves every read rather than one
 * set and cleared per read, and a read that begins late in that timer's
 * span still waits its whole `idleTimeout`.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import createGrab, {
  type GrabCallOptions,
  type GrabStream,
  type ServerSentEvent,
} from "../mod.ts";
import { settles, sleep } from "./_bounds.ts";
import { type Row, rowSchema as schema, same } from "./_types.ts";
import { tapped, tapServer } from "./_streams.ts";

Deno.test("idleTimeout sets no timer per read of a live body", async () => {
  await using server = tapServer("text/event-stream");
  const grab = createGrab(server.url);
  // Told apart from every other timer by its delay.
  const idleTimeout = 60_000;
  const [events] = await settles(
    grab("GET /events", { responseType: "sse", idleTimeout }),
  );
  const live = await tapped(server.taps, 1);
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
        for await (const { data } of events!) {
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
  assertEquals(events!.error, null);
  assert(timers <= 2, `${timers} idle timers for ${count} reads`);
});

Deno.test(
  "a read that begins late in the idle timer's span waits its whole idleTimeout",
  async () => {
    await using server = tapServer("text/event-stream");
    const grab = createGrab(server.url);
    const idleTimeout = 500;
    const [events] = await settles(
      grab("GET /events", { responseType: "sse", idleTimeout }),
    );
    const live = await tapped(server.taps, 1);
    live.write("data: 1\n\n");
    const iterator = events![Symbol.asyncIterator]();
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
    assertEquals(events!.error, null);
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
  const [json] = await grab<Row>("GET /x", { idleTimeout: false });
  same<typeof json, Row | null>(true);
  // A factory's is for its live grabs; its live default takes one.
  const live = createGrab(base, { responseType: "sse", idleTimeout: 100 });
  const [fromFactory] = await live("GET /x", { idleTimeout: 50 });
  same<typeof fromFactory, GrabStream<ServerSentEvent> | null>(true);
  // Options typed as any call's still compile: the run time decides.
  const options: GrabCallOptions = { idleTimeout: 100 };
  await grab("GET /x", options);
}
