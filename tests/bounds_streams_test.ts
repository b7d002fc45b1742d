/**
 * Bounds of live bodies (`responseType` "stream", "sse", "ndjson") and the
 * buffered types next to them, against a hostile server, a hostile custom
 * `fetch` (only where a server cannot produce the case) and a careless
 * caller: read-ahead is bounded, memory is bounded, every grab and every
 * loop settles, and nothing is left open.
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
import createGrab, {
  type GrabCallOptions,
  GrabError,
  type GrabStream,
  GrabTransportError,
  type ServerSentEvent,
} from "../mod.ts";
import { assertPeakStep, runChild, settles, sleep } from "./_bounds.ts";
import { head, startFaultServer, write } from "./_faults.ts";
import { startServer } from "./_server.ts";
import { NUMBERS, paced, type Tap, tap } from "./_streams.ts";

const MIB = 1024 * 1024;
const encoder = new TextEncoder();
const SSE = { "content-type": "text/event-stream" };
const NDJSON = { "content-type": "application/x-ndjson" };

// ---------------------------------------------------------------------------
// Helpers

/** Polls `done` every 5 ms; fails after `capMs` of real time (a hang guard). */
async function waitFor(
  done: () => boolean,
  what: string,
  capMs = 10_000,
): Promise<void> {
  const started = performance.now();
  while (!done()) {
    if (performance.now() - started > capMs) {
      throw new Error(`waited ${capMs} ms for ${what}`);
    }
    await sleep(5);
  }
}

/**
 * Waits until `value()` has not changed for `checks` consecutive polls
 * `everyMs` apart, or `capMs` passed; returns the last value. A bounded real
 * wait, never an assertion on time.
 */
async function untilStill(
  value: () => number,
  { checks = 8, everyMs = 50, capMs = 10_000 } = {},
): Promise<number> {
  const started = performance.now();
  let last = value();
  let still = 0;
  while (still < checks && performance.now() - started < capMs) {
    await sleep(everyMs);
    const now = value();
    if (now === last) still++;
    else {
      still = 0;
      last = now;
    }
  }
  return last;
}

/** A body produced only as it is pulled, counting what it produced. */
interface Producer {
  body(): ReadableStream<Uint8Array>;
  readonly produced: number;
  readonly bytes: number;
  readonly cancelled: Promise<void>;
  readonly isCancelled: boolean;
}

/**
 * `first` once, then `next(i)` for i = 0, 1, … up to `max` pieces, each
 * produced when the consumer (the server's writer) pulls.
 */
function producer(
  next: (i: number) => string | Uint8Array,
  max: number,
  first?: string,
): Producer {
  let produced = 0;
  let bytes = 0;
  let isCancelled = false;
  let onCancel!: () => void;
  const cancelled = new Promise<void>((resolve) => (onCancel = resolve));
  let started = false;
  return {
    body: () =>
      new ReadableStream<Uint8Array>({
        pull(controller) {
          if (!started && first !== undefined) {
            started = true;
            const chunk = encoder.encode(first);
            bytes += chunk.byteLength;
            controller.enqueue(chunk);
            return;
          }
          if (produced >= max) return controller.close();
          const piece = next(produced++);
          const chunk = typeof piece === "string"
            ? encoder.encode(piece)
            : piece;
          bytes += chunk.byteLength;
          controller.enqueue(chunk);
        },
        cancel() {
          isCancelled = true;
          onCancel();
        },
      }, { highWaterMark: 0 }),
    get produced() {
      return produced;
    },
    get bytes() {
      return bytes;
    },
    cancelled,
    get isCancelled() {
      return isCancelled;
    },
  };
}

/** A server whose every request gets the next tap, with `headers`. */
function tapServer(headers: HeadersInit = SSE, status = 200) {
  const taps: Tap[] = [];
  const server = startServer(() => {
    const next = tap();
    taps.push(next);
    return new Response(next.body, { status, headers });
  });
  const shutdown = server[Symbol.asyncDispose].bind(server);
  return Object.assign(server, {
    taps,
    // A failed step may leave a body open: the taps end before shutdown
    // waits for them, so a failure never turns into a hang.
    async [Symbol.asyncDispose]() {
      for (const open of taps) open.close();
      await shutdown();
    },
    async tapped(count: number): Promise<Tap> {
      await waitFor(() => taps.length >= count, `request ${count}`);
      return taps[count - 1]!;
    },
  });
}

/** Every item of a stream, the loop bounded by the hang guard. */
async function drain<T>(stream: GrabStream<T>): Promise<T[]> {
  const items: T[] = [];
  await settles(
    (async () => {
      for await (const item of stream) items.push(item);
    })(),
    "the loop",
  );
  return items;
}

/** The data of every event of an SSE stream. */
async function dataOf(stream: GrabStream<ServerSentEvent>): Promise<string[]> {
  return (await drain(stream)).map((event) => event.data);
}

/** Options of a hostile custom body, which a server cannot produce. */
interface HostileBody {
  /** Chunks given at the start (any value: a hostile body may give any). */
  chunks?: unknown[];
  /** After the chunks: never end (pull never settles), or end. */
  end?: "never" | "close";
  /** cancel(): settles at once, or never. */
  cancel?: "settles" | "never";
}

/** A custom body, and whether its cancel was asked. */
function hostileBody({
  chunks = [],
  end = "never",
  cancel = "settles",
}: HostileBody) {
  const state = { cancelAsked: false };
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk as Uint8Array);
      if (end === "close") controller.close();
    },
    pull() {
      // Never settles: the body ignores everything, the signal included.
      return new Promise<void>(() => {});
    },
    cancel() {
      state.cancelAsked = true;
      return cancel === "never" ? new Promise<void>(() => {}) : undefined;
    },
  }, { highWaterMark: 0 });
  return Object.assign(state, { body });
}

type Fetch = (input: Request | string, init?: RequestInit) => Promise<Response>;

/** A custom fetch answering with `response()`. */
function fetchOf(response: () => Response) {
  return (_input: Request | string, _init?: RequestInit) =>
    Promise.resolve(response());
}

/** gzip of `bytes`. */
async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const compressed = new Response(
    new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
      new CompressionStream("gzip"),
    ),
  );
  return new Uint8Array(await compressed.arrayBuffer());
}

// ---------------------------------------------------------------------------
// Task A: read-ahead, memory and a growing event

const EVENTS = 20_000;
const PAD = "x".repeat(1000);

Deno.test("bounded read-ahead: a reader that stops stops the server", async (t) => {
  for (const type of ["sse", "ndjson"] as const) {
    await t.step(
      `${type}: ≈1 KB items produced as fast as pulled, one read, then a pause`,
      async () => {
        const source = producer(
          (i) =>
            type === "sse"
              ? `id: ${i}\ndata: ${i} ${PAD}\n\n`
              : `{"n":${i},"pad":"${PAD}"}\n`,
          EVENTS,
        );
        await using server = startServer(() =>
          new Response(source.body(), {
            headers: type === "sse" ? SSE : NDJSON,
          })
        );
        const grab = createGrab(server.url);
        const [stream, error] = await settles(
          grab("GET /items", { responseType: type }),
        );
        assertEquals(error, null);
        const iterator = (stream as GrabStream<unknown>)[
          Symbol.asyncIterator
        ]();
        const first = await settles(iterator.next());
        assertEquals(first.done, false);
        // The reader stops; whatever the server still produces fills only
        // the buffers between the two (measured: about 4,000 of 20,000).
        const produced = await untilStill(() => source.produced);
        assert(
          produced < EVENTS / 2,
          `the server produced ${produced} of ${EVENTS} items while the client read one`,
        );
        assert(!source.isCancelled, "nothing cancelled the body yet");
        await settles((stream as GrabStream<unknown>).cancel());
        await settles(source.cancelled, "the server's cancel");
        assertEquals((stream as GrabStream<unknown>).error, null);
        assertEquals((await iterator.next()).done, true);
      },
    );
  }
});

interface NdjsonReport {
  grabError: string | null;
  streamError: string | null;
  count: number;
  expectedCount: number;
  sum: number;
  expectedSum: number;
  idsInOrder: boolean;
  bodyBytes: number;
  peak: number | null;
}

Deno.test("a 100 MiB NDJSON export is read with bounded memory", async (t) => {
  // --allow-all: Deno lets no narrower permission read /proc/self/status.
  // The V8 flags shrink the garbage collector's slack (a 16+ MiB young
  // generation, which alone takes a plain `fetch` read of the same body to
  // about 84 MiB), not what the program holds: with them, reading the body
  // with a bare reader peaks at about 64 MiB and grab at about 68-70 MiB.
  // The old space is capped at 48 MiB, so a client that held the body (or
  // its values) would die of it rather than pass.
  const report = await runChild<NdjsonReport>("./_ndjson_child.ts", [
    "--allow-all",
    "--v8-flags=--max-semi-space-size=2,--max-old-space-size=48",
  ], { guardMs: 120_000 });

  await t.step("every value is read, in order, with no error", () => {
    assertEquals(report.grabError, null);
    assertEquals(report.streamError, null);
    assertEquals(report.count, report.expectedCount);
    assertEquals(report.sum, report.expectedSum);
    assertEquals(report.idsInOrder, true);
    assertEquals(report.bodyBytes, 100 * MIB);
  });

  await assertPeakStep(
    t,
    report,
    100 * MIB,
    `a ${report.bodyBytes / MIB} MiB body`,
  );
});

Deno.test("a line or an event sent a byte a chunk holds about its size, not a node per byte", async (t) => {
  // About 390,000 one-byte chunks: some 10 CPU-seconds, so a minute and more
  // of wall time on cores shared several ways. The guard bounds a hang, as
  // the 100 MiB body's does.
  const report = await runChild<{
    chars: number;
    results: Record<
      string,
      { error: string | null; lengths: number[]; held: number }
    >;
  }>("./_long_line_child.ts", ["--allow-all", "--v8-flags=--expose-gc"], {
    guardMs: 120_000,
  });
  const { chars, results } = report;
  const expected: Record<string, number[]> = {
    "/line": [chars - 2],
    "/event": [chars],
    // One "x" a line, joined by LF, the last line's LF not kept.
    "/lines": [2 * Math.floor(chars / 7) - 1],
  };
  for (const [path, lengths] of Object.entries(expected)) {
    await t.step(`${path}: read whole, held under 8 bytes a byte`, () => {
      const result = results[path]!;
      assertEquals(result.error, null);
      assertEquals(result.lengths, lengths);
      // Appended piece by piece with `+`, 32 bytes a byte or more.
      assert(
        result.held < 8 * chars,
        `${path} held ${result.held} bytes for ${chars}`,
      );
    });
  }
});

Deno.test("one event or line that grows without end: too-large, the body cancelled", async (t) => {
  // 64 MiB at most, in 16 KiB pieces, so a client that never cancels still
  // ends; measured: about 2 MB leave the server before the cancel.
  const PIECE = encoder.encode("x".repeat(16 * 1024));
  for (const type of ["sse", "ndjson"] as const) {
    await t.step(`${type} with maxBodyBytes 64 KiB`, async () => {
      const source = producer(
        () => PIECE,
        4096,
        type === "sse" ? "data: " : '{"a":"',
      );
      await using server = startServer(() =>
        new Response(source.body(), { headers: type === "sse" ? SSE : NDJSON })
      );
      const grab = createGrab(server.url, { maxBodyBytes: 64 * 1024 });
      const [stream] = await settles(
        grab("GET /growing", { responseType: type }),
      );
      const items = await drain(stream as GrabStream<unknown>);
      assertEquals(items, []);
      const failure = (stream as GrabStream<unknown>).error;
      assertInstanceOf(failure, GrabTransportError);
      assertEquals(failure.kind, "too-large");
      await settles(source.cancelled, "the server's cancel");
      assert(
        source.bytes < 16 * MIB,
        `the server sent ${source.bytes} bytes before the client let go`,
      );
    });
  }
});

// ---------------------------------------------------------------------------
// Task B: a careless caller

Deno.test("a careless caller", async (t) => {
  await t.step(
    "a stream nobody iterates is released when the caller's signal aborts",
    async () => {
      await using server = tapServer();
      const grab = createGrab(server.url);
      const controller = new AbortController();
      const [events] = await settles(
        grab("GET /e", { responseType: "sse", signal: controller.signal }),
      );
      const live = await server.tapped(1);
      controller.abort();
      await settles(live.cancelled, "the server's cancel");
      assertEquals(await dataOf(events!), []);
      assertEquals(events!.error?.kind, "abort");
    },
  );

  await t.step(
    "a stream nobody iterates is released when attemptTimeout passes",
    async () => {
      await using server = tapServer();
      const grab = createGrab(server.url);
      const [events] = await settles(
        grab("GET /e", { responseType: "sse", attemptTimeout: 50 }),
      );
      const live = await server.tapped(1);
      await settles(live.cancelled, "the server's cancel");
      assertEquals(await dataOf(events!), []);
      assertEquals(events!.error?.kind, "timeout");
    },
  );

  await t.step(
    "a second loop continues where the first stopped; a third gets nothing",
    async () => {
      await using server = startServer(() =>
        new Response(paced(["data: a\n\n", "data: b\n\n", "data: c\n\n"]), {
          headers: SSE,
        })
      );
      const grab = createGrab(server.url);
      const [events] = await settles(grab("GET /e", { responseType: "sse" }));
      const first = events![Symbol.asyncIterator]();
      assertEquals((await settles(first.next())).value?.data, "a");
      assertEquals(await dataOf(events!), ["b", "c"]);
      assertEquals(await dataOf(events!), []);
      assertEquals((await first.next()).done, true);
      assertEquals(events!.error, null);
    },
  );

  for (const type of ["sse", "ndjson"] as const) {
    await t.step(
      `${type}: three next() calls at once get each item once, in order`,
      async () => {
        await using server = tapServer(type === "sse" ? SSE : NDJSON);
        const grab = createGrab(server.url);
        const [stream] = await settles(grab("GET /e", { responseType: type }));
        const iterator = (stream as GrabStream<unknown>)[
          Symbol.asyncIterator
        ]();
        const steps = [iterator.next(), iterator.next(), iterator.next()];
        const live = await server.tapped(1);
        const item = (n: number) =>
          type === "sse" ? `data: ${n}\n\n` : `${n}\n`;
        live.write(item(1));
        await sleep(5);
        live.write(item(2) + item(3));
        const values = (await settles(
          Promise.all(steps),
          "the third next(), its item already received,",
        )).map((step) =>
          type === "sse"
            ? (step.value as ServerSentEvent).data
            : String(step.value)
        );
        assertEquals(values, ["1", "2", "3"]);
        const fourth = iterator.next();
        live.close();
        assertEquals((await settles(fourth)).done, true);
        assertEquals((stream as GrabStream<unknown>).error, null);
      },
    );
  }

  await t.step(
    "cancel() while next() waits: the next ends, the server sees the cancel",
    async () => {
      await using server = tapServer();
      const grab = createGrab(server.url);
      const [events] = await settles(grab("GET /e", { responseType: "sse" }));
      const live = await server.tapped(1);
      const pending = events![Symbol.asyncIterator]().next();
      await sleep(5);
      const cancels = [events!.cancel(), events!.cancel()];
      assertEquals((await settles(pending)).done, true);
      await settles(Promise.all(cancels));
      await settles(live.cancelled, "the server's cancel");
      assertEquals(events!.error, null);
      assertEquals(await dataOf(events!), []);
    },
  );

  await t.step(
    "the caller's signal aborting after the end changes nothing",
    async () => {
      await using server = startServer(() =>
        new Response(paced(["data: a\n\n"]), { headers: SSE })
      );
      const grab = createGrab(server.url);
      const controller = new AbortController();
      const [events] = await settles(
        grab("GET /e", { responseType: "sse", signal: controller.signal }),
      );
      assertEquals(await dataOf(events!), ["a"]);
      controller.abort();
      assertEquals(events!.error, null);
      assertEquals(await dataOf(events!), []);
      assertEquals(events!.error, null);
    },
  );

  await t.step(
    "a progress callback that throws mid-stream: the loop throws its error, the body is released",
    async () => {
      await using server = tapServer();
      const grab = createGrab(server.url);
      const thrown = new Error("progress bug");
      let calls = 0;
      const [events] = await settles(grab("GET /e", {
        responseType: "sse",
        onDownloadProgress: () => {
          if (++calls === 2) throw thrown;
        },
      }));
      const live = await server.tapped(1);
      const seen: string[] = [];
      const looping = (async () => {
        for await (const { data } of events!) {
          seen.push(data);
          live.write("data: b\n\n");
        }
      })();
      live.write("data: a\n\n");
      const error = await assertRejects(() => settles(looping, "the loop"));
      assertStrictEquals(error, thrown);
      assertEquals(seen, ["a"]);
      await settles(live.cancelled, "the server's cancel");
      assertEquals(await dataOf(events!), []);
    },
  );

  await t.step(
    "a byte stream piped into a writable that fails releases the body",
    async () => {
      await using server = tapServer({});
      const grab = createGrab(server.url);
      const [stream] = await settles(
        grab("GET /e", { responseType: "stream" }),
      );
      const live = await server.tapped(1);
      live.write("abc");
      const piping = stream!.pipeTo(
        new WritableStream({
          write() {
            throw new Error("disk full");
          },
        }),
      );
      await assertRejects(() => settles(piping, "the pipe"));
      await settles(live.cancelled, "the server's cancel");
    },
  );

  await t.step(
    "a byte stream cancelled while a read waits: both settle",
    async () => {
      await using server = tapServer({});
      const grab = createGrab(server.url);
      const [stream] = await settles(
        grab("GET /e", { responseType: "stream" }),
      );
      const live = await server.tapped(1);
      const reader = stream!.getReader();
      const pending = reader.read();
      await sleep(5);
      await settles(reader.cancel());
      assertEquals((await settles(pending)).done, true);
      await settles(live.cancelled, "the server's cancel");
    },
  );

  await t.step(
    "a schema validator that never settles: the caller's signal ends the loop",
    async () => {
      await using server = tapServer(NDJSON);
      const grab = createGrab(server.url);
      const controller = new AbortController();
      const schema = {
        "~standard": {
          version: 1 as const,
          vendor: "test",
          validate: () => new Promise<never>(() => {}),
        },
      };
      const [values] = await settles(grab("GET /e", {
        responseType: "ndjson",
        schema,
        signal: controller.signal,
      }));
      const live = await server.tapped(1);
      live.write("1\n");
      const looping = drain(values!);
      await sleep(20);
      controller.abort();
      assertEquals(await looping, []);
      assertEquals(values!.error?.kind, "abort");
      await settles(live.cancelled, "the server's cancel");
    },
  );

  // The last line, with no line end, is read only once the body has ended.
  for (const ending of ["abort", "timeout"] as const) {
    await t.step(
      `a validator that never settles on the last line: ${ending} ends the loop`,
      async () => {
        await using server = tapServer(NDJSON);
        const grab = createGrab(server.url, { retry: 0 });
        const controller = new AbortController();
        const schema = {
          "~standard": {
            version: 1 as const,
            vendor: "test",
            validate: (value: unknown) =>
              value === 2 ? new Promise<never>(() => {}) : { value },
          },
        };
        const [values] = await settles(grab("GET /e", {
          responseType: "ndjson",
          schema,
          ...ending === "abort"
            ? { signal: controller.signal }
            : { attemptTimeout: 200 },
        }));
        const live = await server.tapped(1);
        live.write("1\n2");
        live.close();
        const looping = drain(values!);
        if (ending === "abort") {
          await sleep(20);
          controller.abort();
        }
        assertEquals(await looping, [1]);
        assertEquals(values!.error?.kind, ending);
      },
    );
  }

  await t.step(
    "a streamed upload with a streamed answer: both counted; an upload callback that throws rejects the grab",
    async () => {
      await using server = startServer((_request, seen) =>
        new Response(`{"got":${seen.body.length}}\n{"n":2}\n`, {
          headers: NDJSON,
        })
      );
      const grab = createGrab(server.url);
      const uploaded: number[] = [];
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new Uint8Array(100_000).fill(97));
          controller.enqueue(new Uint8Array(50_000).fill(98));
          controller.close();
        },
      });
      const [values, error] = await settles(grab("POST /up", {
        body,
        responseType: "ndjson",
        onUploadProgress: ({ loaded }) => void uploaded.push(loaded),
      }));
      assertEquals(error, null);
      assertEquals(await drain(values!), [{ got: 150_000 }, { n: 2 }]);
      assertEquals(uploaded.at(-1), 150_000);
      const thrown = new Error("upload progress bug");
      const rejected = await assertRejects(() =>
        settles(grab("POST /up", {
          body: "x".repeat(200_000),
          responseType: "sse",
          onUploadProgress: ({ loaded }) => {
            if (loaded > 0) throw thrown;
          },
        }))
      );
      assertStrictEquals(rejected, thrown);
    },
  );

  await t.step(
    "the signal aborting inside afterResponse: the grab is an abort",
    async () => {
      await using server = tapServer();
      const grab = createGrab(server.url);
      const controller = new AbortController();
      const result = await settles(grab("GET /e", {
        responseType: "sse",
        signal: controller.signal,
        hooks: {
          afterResponse: async () => {
            await null;
            controller.abort();
          },
        },
      }));
      assertEquals(result[0], null);
      assertEquals((result[1] as GrabTransportError | null)?.kind, "abort");
      await settles((await server.tapped(1)).cancelled, "the server's cancel");
    },
  );
});

// The sanitizers fail a test (not a step) that leaves the attempt's 60 s
// timer behind, so each ending is a test of its own.
const ENDING_BODIES: Record<string, string[]> = {
  "/end": ["1\n", "2\n"],
  "/parse": ["1\n", "nope\n", "3\n"],
  "/schema": ["1\n", '"two"\n', "3\n"],
  "/large": ["1\n", "x".repeat(200)],
  "/any": ["1\n", "2\n", "3\n"],
};
const ENDINGS: [
  string,
  string,
  (values: GrabStream<unknown>) => Promise<unknown>,
][] = [
  ["read to the end", "/end", (values) => drain(values)],
  ["a line that is not JSON", "/parse", (values) => drain(values)],
  ["a value that fails the schema", "/schema", (values) => drain(values)],
  ["a line over the cap", "/large", (values) => drain(values)],
  ["break", "/any", async (values) => {
    for await (const _ of values) break;
  }],
  ["cancel()", "/any", (values) => values.cancel()],
  ["a progress callback that throws", "/end", async (values) => {
    await assertRejects(() => drain(values));
  }],
  ["a byte stream read to the end", "/end", () => Promise.resolve()],
];
for (const [name, path, end] of ENDINGS) {
  Deno.test(`attemptTimeout's timer is let go of: ${name}`, async () => {
    await using server = startServer(() =>
      // All at once: a paced body's own timers would muddle the sanitizer.
      new Response(ENDING_BODIES[path]!.join(""), { headers: NDJSON })
    );
    const grab = createGrab(server.url, {
      attemptTimeout: 60_000,
      maxBodyBytes: 100,
    });
    const stream = name.startsWith("a byte stream");
    const [data, error] = await settles(grab(`GET ${path}` as "GET /end", {
      responseType: stream ? "stream" : "ndjson",
      ...(path === "/schema" ? { schema: NUMBERS } : {}),
      ...(name.startsWith("a progress")
        ? {
          onDownloadProgress: () => {
            throw new Error("progress bug");
          },
        }
        : {}),
    }));
    assertEquals(error, null);
    if (stream) {
      const text = await settles(
        new Response(data as ReadableStream<Uint8Array>).text(),
      );
      assertEquals(text, "1\n2\n");
    } else await settles(end(data as GrabStream<unknown>), name);
  });
}

// ---------------------------------------------------------------------------
// Task B: a hostile custom fetch (cases a server cannot produce)

Deno.test("a hostile custom fetch", async (t) => {
  const via = (fetch: Fetch) =>
    createGrab("http://127.0.0.1:9", { retry: 0, fetch });

  await t.step(
    "a body that never ends and whose cancel never settles: break and cancel() settle",
    async () => {
      const hostile = hostileBody({
        chunks: [encoder.encode("data: a\n\n")],
        cancel: "never",
      });
      const [events] = await settles(
        via(fetchOf(() => new Response(hostile.body)))("GET /e", {
          responseType: "sse",
        }),
      );
      const seen: string[] = [];
      await settles(
        (async () => {
          for await (const { data } of events!) {
            seen.push(data);
            break;
          }
        })(),
        "the loop",
      );
      assertEquals(seen, ["a"]);
      await settles(events!.cancel());
      assert(hostile.cancelAsked);
      assertEquals(events!.error, null);
    },
  );

  await t.step(
    "cancel() concurrent with a next() on a body that never answers",
    async () => {
      const hostile = hostileBody({ cancel: "never" });
      const [values] = await settles(
        via(fetchOf(() => new Response(hostile.body)))("GET /e", {
          responseType: "ndjson",
        }),
      );
      const pending = values![Symbol.asyncIterator]().next();
      await sleep(5);
      await settles(values!.cancel());
      assertEquals((await settles(pending)).done, true);
      assertEquals(values!.error, null);
    },
  );

  await t.step(
    "the caller's signal ends a next() on a body that ignores it",
    async () => {
      const hostile = hostileBody({
        chunks: [encoder.encode('{"n":1}\n')],
        cancel: "never",
      });
      const controller = new AbortController();
      const [values] = await settles(
        via(fetchOf(() => new Response(hostile.body)))("GET /e", {
          responseType: "ndjson",
          signal: controller.signal,
        }),
      );
      const seen: unknown[] = [];
      const looping = settles(
        (async () => {
          for await (const value of values!) {
            seen.push(value);
            setTimeout(() => controller.abort(), 5);
          }
        })(),
        "the loop",
      );
      await looping;
      assertEquals(seen, [{ n: 1 }]);
      assertEquals(values!.error?.kind, "abort");
      assert(hostile.cancelAsked);
    },
  );

  for (const type of ["sse", "ndjson", "stream"] as const) {
    await t.step(
      `${type}: attemptTimeout ends a body that ignores the signal and the cancel`,
      async () => {
        // The limit is to pass after the first item: a machine so busy that
        // the head or that item came later is asked again, a few times at
        // most.
        for (let tries = 1;; tries++) {
          const hostile = hostileBody({
            chunks: [encoder.encode(type === "sse" ? "data: 1\n\n" : "1\n")],
            cancel: "never",
          });
          const [data, error] = await settles(
            via(fetchOf(() => new Response(hostile.body)))("GET /e", {
              responseType: type,
              attemptTimeout: 50,
            }),
          );
          if (tries < 5 && data === null) continue;
          assertEquals(error, null);
          if (type === "stream") {
            const reader = (data as ReadableStream<Uint8Array>).getReader();
            const first = await settles(reader.read()).catch(() => null);
            if (tries < 5 && first === null) continue;
            assertEquals(first?.done, false);
            const failure = await assertRejects(() => settles(reader.read()));
            assertInstanceOf(failure, GrabTransportError);
            assertEquals(failure.kind, "timeout");
          } else {
            const stream = data as GrabStream<unknown>;
            const items = await drain(stream);
            if (tries < 5 && items.length === 0) continue;
            assertEquals(items.length, 1);
            assertEquals(stream.error?.kind, "timeout");
          }
          assert(hostile.cancelAsked);
          break;
        }
      },
    );
  }

  // A body whose chunks come without ever yielding to the event loop keeps
  // timers from firing: a buffered read checks the clock itself
  // (Deadline.due), and lets timers fire now and then, which the caller's
  // signal needs (no timeout of the grab's counts there). The body ends
  // after CHUNKS chunks so that the test ends even where the stream does not
  // check.
  const CHUNKS = 1_000_000;
  const endings: [string, () => GrabCallOptions, string][] = [
    ["attemptTimeout", () => ({ attemptTimeout: 50 }), "timeout"],
    ["the caller's signal", () => ({
      timeout: false,
      maxBodyBytes: Infinity,
      signal: AbortSignal.timeout(50),
    }), "abort"],
  ];
  for (const [ending, options, kind] of endings) {
    for (
      const [type, piece] of [
        ["sse", encoder.encode(":\n\n")],
        ["ndjson", encoder.encode("\n")],
        ["text", new Uint8Array(1)],
      ] as const
    ) {
      await t.step(
        `${type}: ${ending} ends a body whose chunks never yield to the event loop`,
        async () => {
          let pulled = 0;
          const body = () =>
            new ReadableStream<Uint8Array>({
              pull(controller) {
                if (++pulled > CHUNKS) controller.close();
                else controller.enqueue(piece);
              },
            }, { highWaterMark: 0 });
          const [data, error] = await via(
            fetchOf(() => new Response(body())),
          )("GET /e", { responseType: type, ...options() });
          let failure: GrabTransportError | null;
          if (type === "text") failure = error as GrabTransportError | null;
          else {
            const stream = data as GrabStream<unknown>;
            assertEquals(await drain(stream), []);
            failure = stream.error;
          }
          assertEquals(
            failure?.kind,
            kind,
            `the loop read all ${CHUNKS} chunks and ended with ${
              failure?.kind ?? "no error"
            }`,
          );
          assert(pulled < CHUNKS, `${pulled} chunks pulled`);
        },
      );
    }
  }

  await t.step(
    "abort before the head, fetch answering later: the late body is cancelled",
    async () => {
      let answer!: (response: Response) => void;
      const hostile = hostileBody({});
      const controller = new AbortController();
      const result = via(() =>
        new Promise<Response>((resolve) => (answer = resolve))
      )("GET /e", {
        responseType: "sse",
        signal: controller.signal,
      });
      await sleep(5);
      controller.abort();
      const [data, error] = await settles(result);
      assertEquals(data, null);
      assertEquals((error as GrabTransportError).kind, "abort");
      answer(new Response(hostile.body));
      await waitFor(() => hostile.cancelAsked, "the late body's cancel");
    },
  );

  for (const type of ["sse", "ndjson", "stream"] as const) {
    await t.step(
      `${type}: a 200 whose body is null is an empty stream`,
      async () => {
        const [data, error] = await settles(
          via(fetchOf(() => new Response(null, { status: 200 })))("GET /e", {
            responseType: type,
          }),
        );
        assertEquals(error, null);
        if (type === "stream") {
          const reader = (data as ReadableStream<Uint8Array>).getReader();
          assertEquals((await settles(reader.read())).done, true);
        } else {
          const stream = data as GrabStream<unknown>;
          assertEquals(await drain(stream), []);
          assertEquals(stream.error, null);
        }
      },
    );
  }

  for (const type of ["sse", "ndjson", "stream"] as const) {
    await t.step(
      `${type}: chunks that are not Uint8Array end the stream with kind network, never a throw`,
      async () => {
        const hostile = hostileBody({
          chunks: [type === "sse" ? "data: a\n\n" : "1\n", 42],
          end: "close",
        });
        const [data, error] = await settles(
          via(fetchOf(() => new Response(hostile.body)))("GET /e", {
            responseType: type,
          }),
        );
        assertEquals(error, null);
        if (type === "stream") {
          const reader = (data as ReadableStream<Uint8Array>).getReader();
          const failure = await settles(
            reader.read().then(
              (step) => step.value,
              (error: unknown) => error,
            ),
          );
          assertInstanceOf(failure, GrabTransportError);
          assertEquals(failure.kind, "network");
          return;
        }
        const stream = data as GrabStream<unknown>;
        let thrown: unknown = null;
        try {
          await drain(stream);
        } catch (error) {
          thrown = error;
        }
        assertEquals(thrown, null, `the loop threw ${thrown}`);
        assertEquals(stream.error?.kind, "network");
      },
    );
  }

  for (const type of ["sse", "ndjson", "stream"] as const) {
    await t.step(
      `${type}: a response whose body was already read is a network failure, as for json`,
      async () => {
        const used = async () => {
          const response = new Response("data: a\n\n");
          await response.text();
          return response;
        };
        const [, jsonError] = await settles(
          via(used)("GET /e"),
        );
        assertEquals((jsonError as GrabTransportError).kind, "network");
        let result;
        try {
          result = await settles(
            via(used)("GET /e", {
              responseType: type,
            }),
          );
        } catch (error) {
          throw new Error(`the grab rejected with ${error}`);
        }
        assertEquals(result[0], null);
        assertEquals((result[1] as GrabTransportError).kind, "network");
      },
    );
  }

  await t.step(
    "an afterResponse hook replacing the response: the replacement is streamed, the original released",
    async () => {
      await using server = tapServer();
      const local = createGrab(server.url);
      const [events] = await settles(local("GET /e", {
        responseType: "sse",
        hooks: {
          afterResponse: () =>
            new Response(paced(["data: replaced\n\n"]), { headers: SSE }),
        },
      }));
      assertEquals(await dataOf(events!), ["replaced"]);
      assertEquals(events!.error, null);
      await settles(
        (await server.tapped(1)).cancelled,
        "the original's cancel",
      );
    },
  );

  await t.step(
    "an afterResponse replacement that ignores the signal still ends at attemptTimeout",
    async () => {
      await using server = tapServer();
      const local = createGrab(server.url);
      // The limit is to pass after the first event: a machine so busy that
      // the head or that event came later is asked again, a few times at
      // most.
      let data: string[] = [];
      let events = null;
      for (let tries = 0; tries < 5 && data.length === 0; tries++) {
        const hostile = hostileBody({
          chunks: [encoder.encode("data: a\n\n")],
          cancel: "never",
        });
        [events] = await settles(local("GET /e", {
          responseType: "sse",
          attemptTimeout: 50,
          hooks: { afterResponse: () => new Response(hostile.body) },
        }));
        if (events) data = await dataOf(events);
      }
      assertEquals(data, ["a"]);
      assertEquals(events!.error?.kind, "timeout");
      await settles(
        Promise.all(server.taps.map((tap) => tap.cancelled)),
        "the original's cancel",
      );
    },
  );
});

// ---------------------------------------------------------------------------
// Task B: a hostile server

Deno.test("a hostile server", async (t) => {
  await t.step(
    "statuses: 304 is a GrabError, 205 and HEAD null, 206 a stream",
    async () => {
      const routes: Record<string, () => Response> = {
        "/304": () => new Response(null, { status: 304 }),
        "/205": () => new Response(null, { status: 205 }),
        "/206": () =>
          new Response("data: part\n\n", {
            status: 206,
            headers: { ...SSE, "content-range": "bytes 0-11/100" },
          }),
      };
      await using server = startServer((request) =>
        (routes[new URL(request.url).pathname] ??
          (() => new Response("data: x\n\n", { headers: SSE })))()
      );
      const grab = createGrab(server.url);
      const [notModified, error304] = await settles(
        grab("GET /304", { responseType: "sse" }),
      );
      assertEquals(notModified, null);
      assertInstanceOf(error304, GrabError);
      assertEquals(error304.statusCode, 304);
      assertEquals(error304.body, null);
      const [reset, resetError] = await settles(
        grab("GET /205", { responseType: "ndjson" }),
      );
      assertEquals([reset, resetError], [null, null]);
      const [partial] = await settles(
        grab("GET /206", { responseType: "sse" }),
      );
      assertEquals(await dataOf(partial!), ["part"]);
      const [none, noneError] = await settles(
        grab("HEAD /x", { responseType: "sse" }),
      );
      assertEquals([none, noneError], [null, null]);
    },
  );

  await t.step(
    "raw 1xx heads before the 200, a 299 and a 600",
    async () => {
      const answers: Record<string, string> = {
        "/early":
          "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n" +
          head("200 OK", { ...SSE, connection: "close" }) + "data: a\n\n",
        "/299": head("299 Odd", { ...SSE, connection: "close" }) +
          "data: b\n\n",
        "/600": head("600 Odd", { ...SSE, connection: "close" }) +
          "data: c\n\n",
      };
      let at = 0;
      const order = ["/early", "/299", "/600"];
      await using server = startFaultServer(async (conn) => {
        await write(conn, answers[order[at++]!]!);
      });
      const grab = createGrab(server.url, { retry: 0 });
      const [early] = await settles(
        grab("GET /early", { responseType: "sse" }),
      );
      assertEquals(await dataOf(early!), ["a"]);
      assertEquals(early!.error, null);
      const [odd] = await settles(grab("GET /299", { responseType: "sse" }));
      assertEquals(await dataOf(odd!), ["b"]);
      const [beyond, error] = await settles(
        grab("GET /600", { responseType: "sse" }),
      );
      assertEquals(beyond, null);
      assertInstanceOf(error, GrabError);
      assertEquals(error.statusCode, 600);
    },
  );

  await t.step(
    "a non-2xx head whose body never ends: a GrabError within timeout, body null",
    async () => {
      await using server = tapServer(
        { "content-type": "application/json" },
        500,
      );
      const grab = createGrab(server.url, { retry: 0 });
      const result = settles(
        grab("GET /e", { responseType: "sse", timeout: 100 }),
      );
      (await server.tapped(1)).write('{"partial":');
      const [data, error] = await result;
      assertEquals(data, null);
      assertInstanceOf(error, GrabError);
      assertEquals(error.statusCode, 500);
      assertEquals(error.body, null);
      await settles(server.taps[0]!.cancelled, "the server's cancel");
    },
  );

  await t.step(
    "a comment line that grows without end is held to maxBodyBytes: too-large, the body cancelled",
    async () => {
      // Up to 64 MiB of one comment line, then an event never reached.
      const source = producer(
        (i) => i < 4096 ? "c".repeat(16 * 1024) : "\n\ndata: after\n\n",
        4097,
        ":",
      );
      await using server = startServer(() =>
        new Response(source.body(), { headers: SSE })
      );
      const grab = createGrab(server.url, { maxBodyBytes: 64 * 1024 });
      const [events] = await settles(grab("GET /e", { responseType: "sse" }));
      assertEquals(await dataOf(events!), []);
      assertEquals(events!.error?.kind, "too-large");
      await settles(source.cancelled, "the server's cancel");
    },
  );

  await t.step(
    "an event of many short lines and no blank line (LF, CR, CRLF): too-large",
    async () => {
      const bodies: Record<string, string> = {
        "/lf": "data: x\n".repeat(20_000),
        "/cr": "data: x\r".repeat(20_000),
        "/crlf": "data: x\r\n".repeat(20_000),
        "/comments": ": x\n".repeat(40_000),
      };
      await using server = startServer((request) =>
        new Response(
          paced([bodies[new URL(request.url).pathname]!, "\n\n"]),
          { headers: SSE },
        )
      );
      const grab = createGrab(server.url, { maxBodyBytes: 64 * 1024 });
      for (const path of Object.keys(bodies)) {
        const [events] = await settles(
          grab(`GET ${path}` as "GET /lf", { responseType: "sse" }),
        );
        assertEquals(await dataOf(events!), [], path);
        assertEquals(events!.error?.kind, "too-large", path);
      }
    },
  );

  await t.step(
    "ndjson: a line of exactly maxBodyBytes passes, one byte more does not",
    async () => {
      const bodies: Record<string, string> = {
        "/exact": "1234567890\n",
        "/crlf": "1234567890\r\n",
        "/last": "1234567890",
        "/utf8": '"\u00e9\u00e9\u00e9\u00e9"\n',
        "/over": "12345678901\n",
        "/last-over": "12345678901",
        "/utf8-over": '"\u00e9\u00e9\u00e9\u00e9\u00e9"\n',
      };
      await using server = startServer((request) =>
        new Response(paced([bodies[new URL(request.url).pathname]!]), {
          headers: NDJSON,
        })
      );
      const grab = createGrab(server.url, { maxBodyBytes: 10 });
      for (const path of Object.keys(bodies)) {
        const [values] = await settles(
          grab(`GET ${path}` as "GET /exact", { responseType: "ndjson" }),
        );
        const seen = await drain(values!);
        if (path.endsWith("over")) {
          assertEquals([seen, values!.error?.kind], [[], "too-large"], path);
        } else {
          assertEquals(seen.length, 1, path);
          assertEquals(values!.error, null, path);
        }
      }
    },
  );

  await t.step(
    "ndjson: a last line that a cut-off character takes over the cap is an error, not dropped",
    async () => {
      // `"ab` and the first byte of a three-byte character: 4 bytes within
      // the cap of 5, but the body ends there and the stray byte decodes to
      // U+FFFD (3 bytes): the line passes the cap and is not JSON either.
      await using server = startServer(() =>
        new Response(
          paced([
            encoder.encode('1\n"ab'),
            new Uint8Array([0xe2]),
          ]),
          { headers: NDJSON },
        )
      );
      const grab = createGrab(server.url, { maxBodyBytes: 5 });
      const [values] = await settles(
        grab("GET /e", { responseType: "ndjson" }),
      );
      assertEquals(await drain(values!), [1]);
      assertInstanceOf(
        values!.error,
        GrabTransportError,
        "the last line was dropped and the stream ended cleanly",
      );
      assertEquals(values!.error.kind, "too-large");
    },
  );

  await t.step(
    "keep-alive comments, each ended by a blank line, never add up",
    async () => {
      // 2 MiB of ": ping\n\n" against a 64 KiB cap, then an event.
      const pings = ": ping\n\n".repeat(2048);
      const source = producer(
        (i) => i < 128 ? pings : "data: after\n\n",
        129,
      );
      await using server = startServer(() =>
        new Response(source.body(), { headers: SSE })
      );
      const grab = createGrab(server.url, { maxBodyBytes: 64 * 1024 });
      const [events] = await settles(grab("GET /e", { responseType: "sse" }));
      assertEquals(await dataOf(events!), ["after"]);
      assertEquals(events!.error, null);
    },
  );

  await t.step("retry: fields: digits only, the latest kept", async () => {
    await using server = startServer(() =>
      new Response(
        paced([
          "retry: 3000\ndata: a\n\n",
          "retry: x\ndata: b\n\n",
          "retry: -5\nretry:  7\nretry: 1.5\nretry\ndata: c\n\n",
          "retry: 007\ndata: d\n\n",
          "retry: 99999999999999999999\ndata: e\n\n",
        ]),
        { headers: SSE },
      )
    );
    const grab = createGrab(server.url);
    const [events] = await settles(grab("GET /e", { responseType: "sse" }));
    const seen = await drain(events!);
    assertEquals(seen.map((event) => [event.data, event.retry]), [
      ["a", 3000],
      ["b", 3000],
      ["c", 3000],
      ["d", 7],
      ["e", 99999999999999999999],
    ]);
    assertEquals(events!.error, null);
  });

  await t.step("an id with NUL is ignored; an empty id resets", async () => {
    await using server = startServer(() =>
      new Response(
        paced([
          "id: 1\ndata: a\n\n",
          "id: x\0y\ndata: b\n\n",
          "id: 2\0\n\n",
          "id\ndata: c\n\n",
          "id: 3\n\n",
        ]),
        { headers: SSE },
      )
    );
    const grab = createGrab(server.url);
    const [events] = await settles(grab("GET /e", { responseType: "sse" }));
    const seen = await drain(events!);
    assertEquals(seen.map((event) => [event.data, event.id]), [
      ["a", "1"],
      ["b", "1"],
      ["c", ""],
    ]);
    assertEquals(events!.lastEventId, "3");
    assertEquals(events!.error, null);
  });

  await t.step(
    "a connection closed mid-body under a longer Content-Length: items before, then network",
    async () => {
      const answers = [
        head("200 OK", {
          ...SSE,
          connection: "close",
          "content-length": "1000",
        }) + "data: a\n\ndata: b",
        head("200 OK", {
          ...NDJSON,
          connection: "close",
          "content-length": "1000",
        }) + '{"a":1}\n{"b":',
        head("200 OK", {
          ...NDJSON,
          connection: "close",
          "transfer-encoding": "chunked",
        }) + '20\r\n{"a":1}\n{"b":',
        head("200 OK", { connection: "close", "content-length": "1000" }) +
        "abc",
      ];
      let at = 0;
      await using server = startFaultServer(async (conn) => {
        await write(conn, answers[at++]!);
      });
      const grab = createGrab(server.url, { retry: 0 });

      const [events] = await settles(grab("GET /sse", { responseType: "sse" }));
      assertEquals(await dataOf(events!), ["a"]);
      assertEquals(events!.error?.kind, "network");

      for (const path of ["GET /lie", "GET /chunked"]) {
        const [values] = await settles(
          grab(path as "GET /lie", { responseType: "ndjson" }),
        );
        assertEquals(await drain(values!), [{ a: 1 }]);
        assertEquals(values!.error?.kind, "network", path);
      }

      const [stream] = await settles(
        grab("GET /bytes", { responseType: "stream" }),
      );
      const reader = stream!.getReader();
      let text = "";
      const failure = await settles(
        (async () => {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return null;
            text += new TextDecoder().decode(value);
          }
        })().catch((error: unknown) => error),
      );
      assertEquals(text, "abc");
      assertInstanceOf(failure, GrabTransportError);
      assertEquals(failure.kind, "network");
    },
  );

  await t.step(
    "a gzip bomb is held to maxBodyBytes after decoding: bytes, text, blob, sse",
    async () => {
      const bomb = await gzip(new Uint8Array(16 * MIB));
      const oneEvent = await gzip(
        encoder.encode(`data: ${"x".repeat(16 * MIB)}\n\n`),
      );
      const fits = await gzip(new Uint8Array(32 * 1024).fill(7));
      await using server = startServer((request) => {
        const path = new URL(request.url).pathname;
        const body = path === "/event"
          ? oneEvent
          : path === "/fits"
          ? fits
          : bomb;
        return new Response(body as Uint8Array<ArrayBuffer>, {
          headers: {
            "content-encoding": "gzip",
            "content-type": path === "/event"
              ? SSE["content-type"]
              : "application/octet-stream",
          },
        });
      });
      assert(bomb.byteLength < 64 * 1024, "the bomb is small on the wire");
      const grab = createGrab(server.url, {
        maxBodyBytes: 64 * 1024,
        retry: 0,
      });
      for (const type of ["bytes", "text", "blob"] as const) {
        const [data, error] = await settles(
          grab("GET /bomb", { responseType: type }),
        );
        assertEquals(data, null, type);
        assertEquals(
          (error as GrabTransportError | null)?.kind,
          "too-large",
          type,
        );
      }
      const [events] = await settles(
        grab("GET /event", { responseType: "sse" }),
      );
      assertEquals(await dataOf(events!), []);
      assertEquals(events!.error?.kind, "too-large");
      const [bytes, error] = await settles(
        grab("GET /fits", { responseType: "bytes" }),
      );
      assertEquals(error, null);
      assertEquals(bytes, new Uint8Array(32 * 1024).fill(7));
    },
  );

  await t.step(
    "a corrupt gzip body: the stream ends with kind network",
    async () => {
      const good = await gzip(encoder.encode("data: a\n\n".repeat(1000)));
      const corrupt = good.slice();
      corrupt.fill(0xff, 40);
      await using server = startServer(() =>
        new Response(corrupt as Uint8Array<ArrayBuffer>, {
          headers: { ...SSE, "content-encoding": "gzip" },
        })
      );
      const grab = createGrab(server.url, { retry: 0 });
      const [events] = await settles(grab("GET /e", { responseType: "sse" }));
      await dataOf(events!);
      assertEquals(events!.error?.kind, "network");
    },
  );
});
