/**
 * Live bodies with `idleTimeout` at scale: hundreds of streams at once on
 * one server, a third ending cleanly on heartbeats, a third stalling, a
 * third broken out of or aborted by the caller, must each end as the README
 * says and leave no timer, body or connection behind; and a slow reader of a
 * fast server never times out.
 *
 * @module
 */

import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertStringIncludes,
} from "@std/assert";
import createGrab, {
  type GrabStream,
  GrabTransportError,
  type ServerSentEvent,
} from "../mod.ts";
import { runChild, settles, sleep } from "./_bounds.ts";

// Heartbeats come 25 times within the idleTimeout: a loaded machine that
// runs other tests beside these 300 streams must not lose the margin.
const IDLE = 500;
const TICK = 20;
const encoder = new TextEncoder();

type Live = "sse" | "ndjson" | "stream";

/** Each type's item, heartbeat and media type. */
const FORMATS: Record<
  Live,
  { item: (i: number) => string; beat: string; type: string }
> = {
  sse: {
    item: (i) => `data: ${i}\n\n`,
    beat: ": hb\n\n",
    type: "text/event-stream",
  },
  ndjson: { item: (i) => `${i}\n`, beat: "\n", type: "application/x-ndjson" },
  stream: {
    item: (i) => `<${i}>`,
    beat: ".",
    type: "application/octet-stream",
  },
};

// Heartbeats between two items of `/beat`: the gap outlasts the idleTimeout.
const BEATS = Math.ceil((IDLE * 1.5) / TICK);

/**
 * A server of live bodies that counts the connections it holds open:
 * `/beat/:n` sends n items, far apart with heartbeats between, and ends;
 * `/stall/:n`
 * sends n items and then nothing, `/endless` sends items until let go.
 */
function liveServer(format: Live) {
  const { item, beat, type } = FORMATS[format];
  let open = 0;
  let served = 0;
  let cancelled = 0;
  // Breaks off the bodies still open, so a failed run does not hang on
  // shutdown.
  const breakers = new Set<() => void>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      const [, mode, count] = new URL(request.url).pathname.split("/");
      const limit = Number(count ?? Infinity);
      let timer: ReturnType<typeof setInterval> | undefined;
      let sent = 0;
      let beats = 0;
      let breaker = () => {};
      const stop = () => {
        clearInterval(timer);
        timer = undefined;
        breakers.delete(breaker);
        open--;
      };
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          open++;
          served++;
          breaker = () => {
            stop();
            controller.error(new Error("the test ends"));
          };
          breakers.add(breaker);
          timer = setInterval(() => {
            if (sent === limit) {
              if (mode === "beat") {
                stop();
                controller.close();
              } else clearInterval(timer);
              return;
            }
            if (mode === "beat" && beats++ % BEATS !== 0) {
              controller.enqueue(encoder.encode(beat));
              return;
            }
            controller.enqueue(encoder.encode(item(sent++)));
          }, TICK);
        },
        cancel() {
          cancelled++;
          stop();
        },
      });
      return new Response(body, { headers: { "content-type": type } });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    get open() {
      return open;
    },
    get served() {
      return served;
    },
    get cancelled() {
      return cancelled;
    },
    shutdown: () => {
      for (const breaker of breakers) breaker();
      return server.shutdown();
    },
  };
}

/** A small seeded generator, so a failing run can be repeated. */
function random(seed: number): () => number {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

/** Waits (bounded) until `done()` holds. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let turn = 0; !done(); turn++) {
    if (turn > 1_000) throw new Error(`${what} never happened`);
    await sleep(10);
  }
}

interface Outcome {
  items: number;
  error: GrabTransportError | null;
}

/** Reads a GrabStream, breaking after `stopAt` items, or aborting then. */
async function readItems(
  items: GrabStream<unknown>,
  stopAt: number,
  abort: (() => void) | undefined,
  pause: number,
): Promise<Outcome> {
  let count = 0;
  for await (const _ of items) {
    count++;
    // The caller's own time between reads does not count.
    if (pause > 0) await sleep(pause);
    if (count === stopAt) {
      if (abort === undefined) break;
      // Lands mid-read: the loop is waiting on the next item then.
      setTimeout(abort, 1 + (count % 7));
    }
  }
  return { items: count, error: items.error };
}

/** Reads a raw byte stream the same way; counts its bytes. */
async function readBytes(
  body: ReadableStream<Uint8Array>,
  stopAt: number,
  abort: (() => void) | undefined,
  pause: number,
): Promise<Outcome> {
  const reader = body.getReader();
  let count = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { items: count, error: null };
      count += value.byteLength;
      if (pause > 0) await sleep(pause);
      if (count >= stopAt && stopAt > 0) {
        stopAt = 0;
        if (abort === undefined) {
          await reader.cancel();
          return { items: count, error: null };
        }
        setTimeout(abort, 1 + (count % 7));
      }
    }
  } catch (error) {
    assertInstanceOf(error, GrabTransportError);
    return { items: count, error };
  }
}

/** `n` streams of `format` at once, a third of each fate. */
async function soak(format: Live, n: number, seed: number): Promise<void> {
  const { item } = FORMATS[format];
  const server = liveServer(format);
  const grab = createGrab(server.url, { retry: 0, idleTimeout: IDLE });
  const next = random(seed);
  try {
    const runs = Array.from({ length: n }, async (_, i) => {
      const fate = i % 3;
      const items = 1 + Math.floor(next() * 5);
      const controller = new AbortController();
      const aborts = fate === 2 && next() < 0.5;
      const path: `/${string}` = fate === 0
        ? `/beat/${items}`
        : fate === 1
        ? `/stall/${items}`
        : "/endless";
      const [data, error] = await grab(`GET ${path}`, {
        responseType: format,
        signal: controller.signal,
      });
      assertEquals(error, null);
      const abort = aborts ? () => controller.abort() : undefined;
      const stopAt = fate === 2 ? items : 0;
      // Some readers take longer between reads than the idleTimeout.
      const pause = fate === 2 && next() < 0.3 ? IDLE * 1.5 : 0;
      const outcome = format === "stream"
        ? await readBytes(
          data as ReadableStream<Uint8Array>,
          stopAt,
          abort,
          pause,
        )
        : await readItems(data as GrabStream<unknown>, stopAt, abort, pause);
      return { fate, items, aborts, outcome };
    });
    const results = await settles(Promise.all(runs), `${n} ${format} loops`);
    for (const { fate, items, aborts, outcome } of results) {
      const { error } = outcome;
      const label = `${format}, fate ${fate}, ${items} items`;
      if (fate === 0) {
        assertEquals(error, null, label);
        if (format !== "stream") assertEquals(outcome.items, items, label);
      } else if (fate === 1) {
        assertInstanceOf(error, GrabTransportError, label);
        assertEquals(error.kind, "timeout", label);
        assertInstanceOf(error.cause, DOMException);
        assertEquals(error.cause.name, "TimeoutError");
        if (format !== "stream") assertEquals(outcome.items, items, label);
        const bytes = Array.from({ length: items }, (_, i) => item(i)).join("");
        assertStringIncludes(
          error.message,
          `the server sent nothing for the idleTimeout (${IDLE} ms) after ${bytes.length} bytes`,
        );
      } else if (aborts) {
        assertInstanceOf(error, GrabTransportError, label);
        assertEquals(error.kind, "abort", label);
      } else {
        assertEquals(error, null, label);
        if (format !== "stream") assertEquals(outcome.items, items, label);
      }
    }
    // Every connection was let go: ended by the server, or cancelled by
    // the client (a stall, a break, an abort).
    await until(() => server.open === 0, "every connection closing");
    assertEquals(server.served, n);
    assertEquals(server.cancelled, n - Math.ceil(n / 3));
  } finally {
    await server.shutdown();
  }
}

Deno.test("300 live streams with idleTimeout at once: heartbeats, stalls, breaks and aborts each end as said and let go", async () => {
  await Promise.all([
    soak("sse", 150, 7),
    soak("ndjson", 75, 11),
    soak("stream", 75, 13),
  ]);
});

Deno.test("a slow reader of a fast server never times out, its gaps longer than idleTimeout", async () => {
  const idleTimeout = 100;
  const EVENTS = 12;
  let open = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        start() {
          open++;
        },
        // As fast as the client takes them.
        pull(controller) {
          if (sent === EVENTS) {
            open--;
            return controller.close();
          }
          controller.enqueue(encoder.encode(`data: ${sent++}\n\n`));
        },
        cancel() {
          open--;
        },
      });
      return new Response(body, {
        headers: { "content-type": "text/event-stream" },
      });
    },
  );
  try {
    const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
      retry: 0,
    });
    const [events] = await grab("GET /fast", {
      responseType: "sse",
      idleTimeout,
    });
    const seen: string[] = [];
    await settles(
      (async () => {
        for await (const { data } of events as GrabStream<ServerSentEvent>) {
          seen.push(data);
          // One event every 50 ms, then one gap of 150 ms.
          await sleep(seen.length === 6 ? 150 : 50);
        }
      })(),
      "the slow loop",
    );
    assertEquals(events!.error, null);
    assertEquals(seen.length, EVENTS);
    await until(() => open === 0, "the connection closing");
  } finally {
    await server.shutdown();
  }
});

interface Memory {
  with: { failures: number; retained: number };
  without: { failures: number; retained: number };
  streams: number;
  dropped: { bodies: number; left: number };
}

Deno.test("short streams with idleTimeout hold no more than without, and a dropped one is collected", async () => {
  const report = await runChild<Memory>("./_mem_idle_child.ts", [
    "--allow-net=127.0.0.1",
    "--v8-flags=--expose-gc",
  ]);
  assertEquals(report.with.failures, 0);
  assertEquals(report.without.failures, 0);
  // A stream held costs some 5.7 KB; the heap's own noise, a few hundred
  // bytes a stream at most.
  const perStream = (retained: number) => Math.round(retained / report.streams);
  const [withIdle, without] = [report.with, report.without].map((run) =>
    perStream(run.retained)
  );
  const retained =
    `${withIdle} bytes a stream retained with idleTimeout, ${without} without`;
  assert(withIdle! < 1024, retained);
  assert(without! < 1024, retained);
  // The timer lapsed: it holds no body. (The last one may still be about.)
  const { bodies, left } = report.dropped;
  assert(left < bodies / 2, `${left} of ${bodies} dropped bodies left`);
});
