/**
 * Every body grab lets go of before its end gives its connection back: the
 * server sees its socket closed, whichever `fetch` grab was handed. A raw
 * TCP server sends a body that never ends (or stalls) and tells when the
 * client closes the socket; each case waits for that, failing past an
 * overall deadline rather than on any timing threshold.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import createGrab, { type GrabCallOptions, type GrabOptions } from "../mod.ts";

type Fetch = NonNullable<GrabOptions["fetch"]>;

function load(specifier: string): Promise<Record<string, unknown>> {
  return import(specifier);
}

// npm undici's own `fetch` is left out: it closes the socket in every case
// below, and the timer it keeps for all its connections trips the sanitizer.
const [nodeFetch3, crossFetch, makeFetchHappen] = await Promise.all([
  load("npm:node-fetch@3.3.2"),
  load("npm:cross-fetch@4.1.0"),
  load("npm:make-fetch-happen@16.0.1"),
]);

const FETCHES: [string, Fetch | undefined][] = [
  ["Deno's fetch", undefined],
  ["node-fetch v3", nodeFetch3!.default as Fetch],
  ["cross-fetch v4 (node-fetch v2)", crossFetch!.default as Fetch],
  ["make-fetch-happen", makeFetchHappen!.default as Fetch],
];

const encoder = new TextEncoder();

/** How the raw server answers: the head, then what it sends and how. */
interface Answer {
  status?: number;
  type: string;
  /** A declared length; chunked otherwise. */
  length?: number;
  /** Sent once, first. */
  first?: string;
  /** Sent again and again after `first`, unless the body stalls. */
  repeat?: string;
  /** Stop sending after `first` (the connection stays open). */
  stall?: boolean;
}

/** A raw TCP server that tells when each of its connections is closed. */
function rawServer(answer: (index: number) => Answer) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const closes: Promise<void>[] = [];
  const conns = new Set<Deno.Conn>();
  let accepted = 0;
  let tellAccepted: () => void = () => {};
  const serving = (async () => {
    for await (const conn of listener) {
      conns.add(conn);
      const index = accepted++;
      const closed = serve(conn, answer(index)).finally(() => {
        conns.delete(conn);
        try {
          conn.close();
        } catch {
          // Already closed.
        }
      });
      closes.push(closed);
      tellAccepted();
    }
  })();
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    /** Resolves once connection `index` is accepted and then closed by the client. */
    async closed(index: number): Promise<void> {
      while (closes.length <= index) {
        await new Promise<void>((resolve) => tellAccepted = resolve);
      }
      await closes[index];
    },
    get accepted() {
      return accepted;
    },
    async [Symbol.asyncDispose]() {
      listener.close();
      for (const conn of conns) {
        try {
          conn.close();
        } catch {
          // Already closed.
        }
      }
      await serving.catch(() => {});
      await Promise.allSettled(closes);
    },
  };
}

/** Answers one request on `conn`; resolves once the client closes it. */
async function serve(conn: Deno.Conn, answer: Answer): Promise<void> {
  const buffer = new Uint8Array(16 * 1024);
  let head = "";
  while (!head.includes("\r\n\r\n")) {
    const n = await conn.read(buffer).catch(() => null);
    if (n === null) return;
    head += new TextDecoder().decode(buffer.subarray(0, n));
  }
  const chunked = answer.length === undefined;
  const status = answer.status ?? 200;
  await conn.write(encoder.encode(
    `HTTP/1.1 ${status} X\r\ncontent-type: ${answer.type}\r\n` +
      (chunked
        ? "transfer-encoding: chunked\r\n"
        : `content-length: ${answer.length}\r\n`) +
      "\r\n",
  ));
  const frame = (text: string) =>
    encoder.encode(
      chunked
        ? `${encoder.encode(text).byteLength.toString(16)}\r\n${text}\r\n`
        : text,
    );
  // The client closing shows as a read of null (or an error).
  const readClosed = (async () => {
    for (;;) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) return;
    }
  })();
  let closed = false;
  void readClosed.then(() => closed = true);
  try {
    if (answer.first !== undefined) await conn.write(frame(answer.first));
    if (!answer.stall && answer.repeat !== undefined) {
      const chunk = frame(answer.repeat);
      while (!closed) await conn.write(chunk);
    }
  } catch {
    // The client closed the socket as it was written to.
  }
  await readClosed;
}

/** Fails the test unless `closing` settles within an overall deadline. */
async function closesWithin(closing: Promise<void>, what: string) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), 8_000);
  });
  try {
    const outcome = await Promise.race([closing.then(() => "closed"), late]);
    assertEquals(outcome, "closed", `${what}: the socket was never closed`);
  } finally {
    clearTimeout(timer);
  }
}

const LINE = `{"n":1}\n`;
const EVENT = "data: 1\n\n";
const FILLER = "x".repeat(1024);

/** A body let go of: what the server sends, how grab is asked, what it gives. */
interface Case {
  name: string;
  answer: (index: number) => Answer;
  /** The factory's options besides `fetch`. @default {{ retry: 0 }} */
  factory?: GrabOptions;
  /** The call's options, made afresh for each call. */
  call?: () => GrabCallOptions;
  /**
   * What the caller does with the body it was given: break out of its loop
   * after one item, loop to its end, or read once and cancel.
   */
  leave?: "break" | "drain" | "cancel";
  /** The kind of the grab's error; `true` for any error, `null` for none. */
  error?: string | true | null;
  /** The kind of the error the body's loop ends with. */
  ended?: string;
  /** The connection that is let go of. */
  index?: number;
}

/** The body as a loop that tells the error it ended with. */
type Items = AsyncIterable<unknown> & { error?: { kind?: string } | null };

/** Grabs as `c` says, leaves the body as it says, and checks what grab gave. */
async function run(url: string, fetch: Fetch | undefined, c: Case) {
  const [data, error] = await createGrab(url, {
    fetch,
    retry: 0,
    ...c.factory,
  })("GET /", c.call?.());
  if (c.leave === "break") { for await (const _ of data as Items) break; }
  if (c.leave === "drain") {
    for await (const _ of data as Items) {
      /* none */
    }
  }
  if (c.leave === "cancel") {
    const reader = (data as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
  }
  if (c.error === null) assertEquals(error, null);
  else if (c.error === true) assert(error !== null);
  else if (c.error !== undefined) {
    assertEquals((error as { kind?: string } | null)?.kind, c.error);
  }
  if (c.ended !== undefined) assertEquals((data as Items).error?.kind, c.ended);
}

/** A retried 503 whose first answer is `first`, then a 200 with `{}`. */
function retried503(
  name: string,
  first: Omit<Answer, "status" | "type">,
): Case {
  return {
    name,
    answer: (index) =>
      index === 0
        ? { status: 503, type: "text/plain", ...first }
        : { type: "application/json", length: 2, first: "{}" },
    factory: { retry: { limit: 1, backoff: () => 0 } },
    error: null,
  };
}

const CASES: Case[] = [
  {
    name: "a break out of an sse loop",
    answer: () => ({ type: "text/event-stream", first: EVENT, repeat: EVENT }),
    call: () => ({ responseType: "sse" }),
    leave: "break",
  },
  {
    name: "a break out of an ndjson loop",
    answer: () => ({ type: "application/x-ndjson", first: LINE, repeat: LINE }),
    call: () => ({ responseType: "ndjson" }),
    leave: "break",
  },
  {
    name: "maxBodyBytes passed by a body of no declared length",
    answer: () => ({ type: "application/json", first: "[", repeat: FILLER }),
    call: () => ({ maxBodyBytes: 4096 }),
    error: "too-large",
  },
  {
    name: "maxBodyBytes passed by a declared length",
    answer: () => ({
      type: "application/json",
      length: 1e9,
      first: "[",
      repeat: FILLER,
    }),
    call: () => ({ maxBodyBytes: 4096 }),
    error: "too-large",
  },
  {
    name: "an sse event over the cap",
    answer: () => ({
      type: "text/event-stream",
      first: "data: ",
      repeat: FILLER,
    }),
    call: () => ({ responseType: "sse", maxBodyBytes: 4096 }),
    leave: "drain",
    ended: "too-large",
  },
  {
    name: "an ndjson line that does not parse",
    answer: () => ({
      type: "application/x-ndjson",
      first: "{oops\n",
      repeat: LINE,
    }),
    call: () => ({ responseType: "ndjson" }),
    leave: "drain",
    ended: "parse",
  },
  {
    name: "an error body over its cap",
    answer: () => ({
      status: 500,
      type: "text/plain",
      first: "oops",
      repeat: FILLER,
    }),
    call: () => ({ maxBodyBytes: 4096 }),
    error: true,
  },
  {
    name: "a stream body the caller cancels",
    answer: () => ({
      type: "application/octet-stream",
      first: "a",
      repeat: FILLER,
    }),
    call: () => ({ responseType: "stream" }),
    leave: "cancel",
  },
  {
    name: "the caller's signal aborting mid-body",
    answer: () => ({ type: "application/json", first: "[", stall: true }),
    call() {
      const controller = new AbortController();
      return {
        signal: controller.signal,
        onDownloadProgress: ({ loaded }) => {
          if (loaded > 0) controller.abort();
        },
      };
    },
    error: "abort",
  },
  {
    name: "attemptTimeout mid-body",
    answer: () => ({ type: "application/json", first: "[", stall: true }),
    call: () => ({ attemptTimeout: 300 }),
    error: "timeout",
  },
  {
    name: "idleTimeout mid-body",
    answer: () => ({ type: "text/event-stream", first: EVENT, stall: true }),
    call: () => ({ responseType: "sse", idleTimeout: 300 }),
    leave: "drain",
    ended: "timeout",
  },
  retried503("a retried 503 whose short body stalls", {
    length: 100,
    first: "busy",
    stall: true,
  }),
  retried503("a retried 503 whose body never ends", {
    first: "busy",
    repeat: FILLER,
  }),
];

for (const [fetchName, fetch] of FETCHES) {
  for (const c of CASES) {
    Deno.test(`let go: ${fetchName}: ${c.name} closes the socket`, async () => {
      await using server = rawServer(c.answer);
      await run(server.url, fetch, c);
      await closesWithin(
        server.closed(c.index ?? 0),
        `${fetchName}, ${c.name}`,
      );
    });
  }
}
