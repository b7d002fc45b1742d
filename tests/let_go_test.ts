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
import createGrab, { type GrabOptions } from "../mod.ts";

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

interface Case {
  name: string;
  answer: (index: number) => Answer;
  run: (url: string, fetch: Fetch | undefined) => Promise<void>;
  /** The connection that is let go of. */
  index?: number;
}

function grabOf(url: string, fetch: Fetch | undefined, options = {}) {
  return createGrab(url, { fetch, retry: 0, ...options });
}

const CASES: Case[] = [
  {
    name: "a break out of an sse loop",
    answer: () => ({ type: "text/event-stream", first: EVENT, repeat: EVENT }),
    async run(url, fetch) {
      const [data] = await grabOf(url, fetch)("GET /", {
        responseType: "sse",
      });
      for await (const _ of data!) break;
    },
  },
  {
    name: "a break out of an ndjson loop",
    answer: () => ({ type: "application/x-ndjson", first: LINE, repeat: LINE }),
    async run(url, fetch) {
      const [data] = await grabOf(url, fetch)("GET /", {
        responseType: "ndjson",
      });
      for await (const _ of data!) break;
    },
  },
  {
    name: "maxBodyBytes passed by a body of no declared length",
    answer: () => ({ type: "application/json", first: "[", repeat: FILLER }),
    async run(url, fetch) {
      const [, error] = await grabOf(url, fetch)("GET /", {
        maxBodyBytes: 4096,
      });
      assertEquals((error as { kind?: string } | null)?.kind, "too-large");
    },
  },
  {
    name: "maxBodyBytes passed by a declared length",
    answer: () => ({
      type: "application/json",
      length: 1e9,
      first: "[",
      repeat: FILLER,
    }),
    async run(url, fetch) {
      const [, error] = await grabOf(url, fetch)("GET /", {
        maxBodyBytes: 4096,
      });
      assertEquals((error as { kind?: string } | null)?.kind, "too-large");
    },
  },
  {
    name: "an sse event over the cap",
    answer: () => ({
      type: "text/event-stream",
      first: "data: ",
      repeat: FILLER,
    }),
    async run(url, fetch) {
      const [data] = await grabOf(url, fetch)("GET /", {
        responseType: "sse",
        maxBodyBytes: 4096,
      });
      for await (const _ of data!) { /* none */ }
      assertEquals(data!.error?.kind, "too-large");
    },
  },
  {
    name: "an ndjson line that does not parse",
    answer: () => ({
      type: "application/x-ndjson",
      first: "{oops\n",
      repeat: LINE,
    }),
    async run(url, fetch) {
      const [data] = await grabOf(url, fetch)("GET /", {
        responseType: "ndjson",
      });
      for await (const _ of data!) { /* none */ }
      assertEquals(data!.error?.kind, "parse");
    },
  },
  {
    name: "an error body over its cap",
    answer: () => ({
      status: 500,
      type: "text/plain",
      first: "oops",
      repeat: FILLER,
    }),
    async run(url, fetch) {
      const [, error] = await grabOf(url, fetch)("GET /", {
        maxBodyBytes: 4096,
      });
      assert(error !== null);
    },
  },
  {
    name: "a stream body the caller cancels",
    answer: () => ({
      type: "application/octet-stream",
      first: "a",
      repeat: FILLER,
    }),
    async run(url, fetch) {
      const [data] = await grabOf(url, fetch)("GET /", {
        responseType: "stream",
      });
      const reader = data!.getReader();
      await reader.read();
      await reader.cancel();
    },
  },
  {
    name: "the caller's signal aborting mid-body",
    answer: () => ({ type: "application/json", first: "[", stall: true }),
    async run(url, fetch) {
      const controller = new AbortController();
      const grabbing = grabOf(url, fetch)("GET /", {
        signal: controller.signal,
        onDownloadProgress: ({ loaded }) => {
          if (loaded > 0) controller.abort();
        },
      });
      const [, error] = await grabbing;
      assertEquals((error as { kind?: string } | null)?.kind, "abort");
    },
  },
  {
    name: "attemptTimeout mid-body",
    answer: () => ({ type: "application/json", first: "[", stall: true }),
    async run(url, fetch) {
      const [, error] = await grabOf(url, fetch)("GET /", {
        attemptTimeout: 300,
      });
      assertEquals((error as { kind?: string } | null)?.kind, "timeout");
    },
  },
  {
    name: "idleTimeout mid-body",
    answer: () => ({ type: "text/event-stream", first: EVENT, stall: true }),
    async run(url, fetch) {
      const [data] = await grabOf(url, fetch)("GET /", {
        responseType: "sse",
        idleTimeout: 300,
      });
      for await (const _ of data!) { /* wait */ }
      assertEquals(data!.error?.kind, "timeout");
    },
  },
  {
    name: "a retried 503 whose short body stalls",
    answer: (index) =>
      index === 0
        ? {
          status: 503,
          type: "text/plain",
          length: 100,
          first: "busy",
          stall: true,
        }
        : { type: "application/json", length: 2, first: "{}" },
    async run(url, fetch) {
      const [, error] = await createGrab(url, {
        fetch,
        retry: { limit: 1, backoff: () => 0 },
      })("GET /");
      assertEquals(error, null);
    },
  },
  {
    name: "a retried 503 whose body never ends",
    answer: (index) =>
      index === 0
        ? { status: 503, type: "text/plain", first: "busy", repeat: FILLER }
        : { type: "application/json", length: 2, first: "{}" },
    async run(url, fetch) {
      const [, error] = await createGrab(url, {
        fetch,
        retry: { limit: 1, backoff: () => 0 },
      })("GET /");
      assertEquals(error, null);
    },
  },
];

for (const [fetchName, fetch] of FETCHES) {
  for (const { name, answer, run, index = 0 } of CASES) {
    Deno.test(`let go: ${fetchName}: ${name} closes the socket`, async () => {
      await using server = rawServer(answer);
      await run(server.url, fetch);
      await closesWithin(server.closed(index), `${fetchName}, ${name}`);
    });
  }
}
