/**
 * `idleTimeout`: a live body whose server stalls ends with kind "timeout"
 * and lets go of its connection, while one that keeps sending lives on, and
 * the caller's own time between reads does not count.
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
  type GrabStream,
  GrabTransportError,
  type ServerSentEvent,
} from "../mod.ts";
import { assertOk, assertValidation, settles, sleep } from "./_bounds.ts";
import { json, startServer } from "./_server.ts";
import { tapped, tapServer } from "./_streams.ts";

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
      await using server = tapServer("text/event-stream");
      const grab = createGrab(server.url);
      const [events] = await settles(
        grab("GET /events", { responseType: "sse", idleTimeout: IDLE }),
      );
      const live = await tapped(server.taps, 1);
      live.write("data: 1\n\n");
      assertEquals(await dataOf(events!), ["1"]);
      assertIdle(events!.error, 9);
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
      await using server = tapServer("text/event-stream");
      const grab = createGrab(server.url);
      // Each event comes 20 ms after the last was read: 30 of them take
      // longer than the idleTimeout, each read far shorter.
      const idleTimeout = 300;
      const [events] = await settles(
        grab("GET /events", { responseType: "sse", idleTimeout }),
      );
      const live = await tapped(server.taps, 1);
      const started = performance.now();
      live.write("data: 0\n\n");
      const seen: string[] = [];
      await settles(
        (async () => {
          for await (const { data } of events!) {
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
      assertEquals(events!.error, null);
    },
  );

  await t.step(
    "the caller's time between reads does not count",
    async () => {
      await using server = tapServer("text/event-stream");
      const grab = createGrab(server.url);
      const [events] = await settles(
        grab("GET /events", { responseType: "sse", idleTimeout: IDLE }),
      );
      const live = await tapped(server.taps, 1);
      live.write("data: 1\n\n");
      const iterator = events![Symbol.asyncIterator]();
      const first = await settles(iterator.next(), "the first event");
      assertEquals(first.value?.data, "1");
      // Three idle timeouts with no read pending: nothing is waiting.
      await sleep(3 * IDLE);
      live.write("data: 2\n\n");
      const second = await settles(iterator.next(), "the second event");
      assertEquals(second.value?.data, "2");
      live.close();
      assertEquals((await settles(iterator.next(), "the end")).done, true);
      assertEquals(events!.error, null);
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
