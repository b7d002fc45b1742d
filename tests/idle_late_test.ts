/**
 * `idleTimeout` when its timer fires late: the program's own code kept the
 * event loop busy while a read waited, and the server's bytes arrived in
 * the meantime. The server was not idle, so the body lives on. The server
 * runs in a Worker, whose event loop the test's hold does not stop.
 *
 * @module
 */

import { assertEquals } from "@std/assert";
import createGrab, { type GrabStream } from "../mod.ts";
import { setImmediate } from "node:timers";
import { settles } from "./_bounds.ts";

const IDLE = 200;
/** How long the program's own code holds the event loop: several idles. */
const BUSY = 4 * IDLE;
const EVENTS = 8;
const EVERY = 50;

/** Holds the event loop for `ms`, as a synchronous computation would. */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // The program's own work.
  }
}

/**
 * Holds the event loop for `BUSY` soon, from where a program's own work
 * runs: an immediate, or the answer to another request (an I/O callback).
 * The promise settles once the hold is over.
 */
function holdSoon(from: "immediate" | "answer", url: string): Promise<void> {
  if (from === "immediate") {
    return new Promise((resolve) => setImmediate(() => resolve(busy(BUSY))));
  }
  return fetch(url).then((answer) => {
    busy(BUSY);
    return answer.body?.cancel();
  });
}

/**
 * A server in a Worker that sends `EVENTS` items of `type`, one every
 * `EVERY` ms, then ends the body: it goes on sending while the test holds
 * its own event loop.
 */
async function tickingServer(type: string) {
  const worker = new Worker(
    new URL("./_idle_late_worker.ts", import.meta.url),
    { type: "module" },
  );
  const next = () =>
    settles(
      new Promise<unknown>((resolve, reject) => {
        worker.onmessage = ({ data }) => resolve(data);
        worker.onerror = (event) => {
          event.preventDefault();
          reject(event.error ?? new Error(event.message));
        };
      }),
      "the server's worker",
    );
  worker.postMessage({ type, count: EVENTS, every: EVERY });
  const port = await next().catch((error) => {
    worker.terminate();
    throw error;
  });
  return {
    url: `http://127.0.0.1:${port}`,
    [Symbol.asyncDispose]: async () => {
      worker.postMessage("stop");
      try {
        await next();
      } finally {
        worker.terminate();
      }
    },
  };
}

const sseServer = () => tickingServer("text/event-stream");
const ndjsonServer = () => tickingServer("application/x-ndjson");

const ALL = Array.from({ length: EVENTS }, (_, i) => String(i + 1));

/** Every item's text, and the stream's error kind. */
async function readAll(
  items: GrabStream<unknown>,
  each: (n: number) => void = () => {},
): Promise<{ seen: string[]; error: string | undefined }> {
  const seen: string[] = [];
  await settles(
    (async () => {
      for await (const item of items) {
        seen.push(
          typeof item === "object" && item !== null && "data" in item
            ? String(item.data)
            : String(item),
        );
        each(seen.length);
      }
    })(),
    "the loop",
  );
  return { seen, error: items.error?.kind };
}

Deno.test("idleTimeout: a busy loop inside the for await body costs nothing", async () => {
  await using server = await sseServer();
  const [events] = await settles(
    createGrab(server.url)("GET /", { responseType: "sse", idleTimeout: IDLE }),
  );
  const got = await readAll(events!, (n) => n === 2 && busy(BUSY));
  assertEquals(got, { seen: ALL, error: undefined });
});

for (const from of ["immediate", "answer"] as const) {
  const where = from === "immediate"
    ? "in an immediate"
    : "in the answer to another request";
  Deno.test(`idleTimeout does not end a live body whose bytes came while the program was busy ${where}`, async (t) => {
    for (const type of ["sse", "ndjson"] as const) {
      await t.step(`a read of ${type} waits through the hold`, async () => {
        await using server =
          await (type === "sse" ? sseServer() : ndjsonServer());
        const [items] = await settles(
          createGrab(server.url)("GET /", {
            responseType: type,
            idleTimeout: IDLE,
          }),
        );
        // The loop asks for the next item, then the program's own code runs.
        let held: Promise<void> | undefined;
        const got = await readAll(items!, (n) => {
          if (n === 2) held = holdSoon(from, server.url);
        });
        await settles(held!, "the hold");
        assertEquals(got, { seen: ALL, error: undefined });
      });
    }

    await t.step(
      "the first read of an event stream waits through the hold",
      async () => {
        await using server = await sseServer();
        const [events] = await settles(
          createGrab(server.url)("GET /", {
            responseType: "sse",
            idleTimeout: IDLE,
          }),
        );
        const held = holdSoon(from, server.url);
        const got = await readAll(events!);
        await settles(held, "the hold");
        assertEquals(got, { seen: ALL, error: undefined });
      },
    );

    await t.step('a read of a "stream" waits through the hold', async () => {
      await using server = await ndjsonServer();
      const [body] = await settles(
        createGrab(server.url)("GET /", {
          responseType: "stream",
          idleTimeout: IDLE,
        }),
      );
      const reader = body!.getReader();
      const decoder = new TextDecoder();
      let text = "";
      let held: Promise<void> | undefined;
      let failure: unknown;
      await settles(
        (async () => {
          try {
            for (let reads = 0;; reads++) {
              const reading = reader.read();
              if (reads === 1) held = holdSoon(from, server.url);
              const { done, value } = await reading;
              if (done) break;
              text += decoder.decode(value, { stream: true });
            }
          } catch (error) {
            failure = error;
          }
        })(),
        "the reads",
      );
      await settles(held!, "the hold");
      assertEquals(failure, undefined);
      assertEquals(text.split("\n").filter(Boolean), ALL);
    });
  });
}

/** One turn of the event loop. */
const turn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * A wrapping `fetch` that hands each chunk of the body on a few turns of the
 * event loop after it arrived, as a pacer or a meter in its pipe may: bytes
 * that came during a hold reach the read only some turns after it ends.
 */
const pacing: typeof fetch = async (input, init) => {
  const response = await fetch(input, init);
  const paced = response.body!.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      async transform(chunk, controller) {
        for (let i = 0; i < 3; i++) await turn();
        controller.enqueue(chunk);
      },
    }),
  );
  return new Response(paced, response);
};

Deno.test("idleTimeout does not end a live body whose bytes came during a hold and reach the read some turns after it", async () => {
  await using server = await sseServer();
  const [events] = await settles(
    createGrab(server.url, { fetch: pacing })("GET /", {
      responseType: "sse",
      idleTimeout: IDLE,
    }),
  );
  let held: Promise<void> | undefined;
  const got = await readAll(events!, (n) => {
    if (n === 2) held = holdSoon("immediate", server.url);
  });
  await settles(held!, "the hold");
  assertEquals(got, { seen: ALL, error: undefined });
});
