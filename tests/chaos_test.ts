// deno-lint-ignore-file no-console
/**
 * Random combinations, seeded and bounded: many grabs, each with a random
 * mix of factory and call hooks, a header function, a custom `fetch`,
 * `timeout`, `attemptTimeout`, retries, the caller's signal aborting at a
 * random moment, a `responseType`, a body and progress callbacks, against a
 * server whose faults are random too.
 *
 * Every grab must settle within a bound taken from its timeout, resolving a
 * well-formed tuple or rejecting only with a `GrabValidationError` or what a
 * callback of the caller's threw; every live body must end once read or
 * cancelled; no hook, header function, custom `fetch` or progress callback
 * (but a live body's download progress) is called after its grab settled;
 * and once all have settled, no abort listener that grab added is left on a
 * signal that has not aborted (the caller's, or a shared timeout signal).
 * The sanitizers check ops and resources. (The server logs each body it
 * breaks off on purpose as "Error: broken".)
 *
 * `GRAB_CHAOS_RUNS` sets the number of grabs (default 160),
 * `GRAB_CHAOS_SEED` the seed, `GRAB_CHAOS_CASE` replays one case alone,
 * `GRAB_CHAOS_STACKS` prints where caller code ran late. A failure prints
 * the seed, the case and its combination.
 *
 * @module
 */

import { assert, assertEquals, assertStrictEquals } from "@std/assert";
import createGrab, {
  GrabError,
  type GrabOptions,
  GrabTransportError,
  GrabValidationError,
  type Hooks,
} from "../mod.ts";
import { RESPONSE_TYPES } from "../src/response_type.ts";
import { startServer } from "./_server.ts";

const RUNS = Number(Deno.env.get("GRAB_CHAOS_RUNS") ?? 160);
const SEED = Number(Deno.env.get("GRAB_CHAOS_SEED") ?? 20_261_123);
const ONLY = Deno.env.get("GRAB_CHAOS_CASE");
const PARALLEL = 8;

/** mulberry32: a small seeded generator. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FAULTS = [
  "ok",
  "slowHead",
  "slowBody",
  "broken",
  "busy",
  "redirect",
  "huge",
  "hugeDeclared",
  "empty",
  "endless",
  "error",
] as const;
const TYPES = RESPONSE_TYPES;
const LIVE = new Set(["stream", "sse", "ndjson"]);

interface Combo {
  fault: (typeof FAULTS)[number];
  busyTimes: number;
  redirectStatus: number;
  retryAfter: string;
  headMs: number;
  chunkMs: number;
  chunks: number;
  type: (typeof TYPES)[number];
  body: "none" | "json" | "bytes" | "stream" | "form";
  method: "GET" | "PUT" | "POST";
  upload: boolean;
  download: boolean;
  progressThrows: boolean;
  where: "factory" | "call" | "both";
  beforeRequest: "none" | "touch" | "replace" | "slow" | "elsewhere" | "throw";
  afterResponse: "none" | "clone" | "replace" | "rewrap" | "fresh" | "throw";
  beforeRetry: "none" | "slow" | "throw";
  headers: "none" | "static" | "sync" | "async" | "slow" | "throw";
  fetch: "platform" | "wrapper" | "slowWrapper" | "deaf" | "synthetic";
  timeout: number | false;
  attemptTimeout: number | undefined;
  retry: number;
  abortAt: number | undefined;
  maxBodyBytes: number | undefined;
  consume: "read" | "cancel" | "first";
}

function combo(next: () => number): Combo {
  const pick = <T>(items: readonly T[]): T =>
    items[Math.floor(next() * items.length)]!;
  const chance = (p: number) => next() < p;
  const body = pick(
    ["none", "none", "json", "bytes", "stream", "form"] as const,
  );
  return {
    fault: pick(FAULTS),
    busyTimes: 1 + Math.floor(next() * 3),
    redirectStatus: pick([301, 302, 303, 307, 308]),
    retryAfter: pick(["0", "0", "1", "soon", "", "3600"]),
    headMs: Math.floor(next() * 300),
    chunkMs: Math.floor(next() * 40),
    chunks: 1 + Math.floor(next() * 6),
    type: pick(TYPES),
    body,
    method: body === "none"
      ? pick(["GET", "GET", "PUT"] as const)
      : pick(["PUT", "POST"] as const),
    upload: chance(0.4),
    download: chance(0.4),
    progressThrows: chance(0.05),
    where: pick(["factory", "call", "both"] as const),
    beforeRequest: pick(
      ["none", "touch", "replace", "slow", "elsewhere", "throw"] as const,
    ),
    afterResponse: pick(
      ["none", "clone", "replace", "rewrap", "fresh", "throw"] as const,
    ),
    beforeRetry: pick(["none", "slow", "throw"] as const),
    headers: pick(
      ["none", "static", "sync", "async", "slow", "throw"] as const,
    ),
    fetch: pick(
      ["platform", "wrapper", "slowWrapper", "deaf", "synthetic"] as const,
    ),
    timeout: chance(0.2) ? false : pick([50, 150, 400, 1_000, 3_000]),
    attemptTimeout: chance(0.5) ? undefined : pick([20, 100, 300, 800]),
    retry: Math.floor(next() * 3),
    abortAt: chance(0.6) ? undefined : Math.floor(next() * 400),
    maxBodyBytes: chance(0.5) ? undefined : pick([0, 64, 4_096]),
    consume: pick(["read", "cancel", "first"] as const),
  };
}

// Throws of the caller's code are rare, so that most grabs run to a result.
function rare(c: Combo, rng: () => number): Combo {
  if (c.beforeRequest === "throw" && rng() < 0.8) c.beforeRequest = "touch";
  if (c.afterResponse === "throw" && rng() < 0.8) c.afterResponse = "clone";
  if (c.beforeRetry === "throw" && rng() < 0.8) c.beforeRetry = "none";
  if (c.headers === "throw" && rng() < 0.8) c.headers = "sync";
  // A body without end is ended only by a bound or the signal.
  if (
    c.fault === "endless" && c.timeout === false &&
    c.attemptTimeout === undefined && c.abortAt === undefined
  ) c.timeout = 1_000;
  // The timeout does not end a live body: the caller stops reading it.
  if (
    c.fault === "endless" && LIVE.has(c.type) && c.consume === "read" &&
    c.attemptTimeout === undefined && c.abortAt === undefined
  ) c.consume = "first";
  return c;
}

const encoder = new TextEncoder();
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The body text for `type`: `count` items, the last `pad` bytes long. */
function payload(type: string, count: number, pad: number): string {
  const item = (n: number) =>
    JSON.stringify({ n, pad: n === count - 1 ? "x".repeat(pad) : "" });
  const items = Array.from({ length: count }, (_, n) => item(n));
  if (type === "sse") return items.map((text) => `data: ${text}\n\n`).join("");
  if (type === "ndjson") return items.map((text) => `${text}\n`).join("");
  return `[${items.join(",")}]`;
}

/**
 * What a broken body fails with. Deno's server logs it, so the message says
 * to whoever reads the test's output that it is meant.
 */
const BROKEN_OFF = new Error("the test server breaks this body off on purpose");

/** Splits `text` into `parts` chunks sent `ms` apart; `broken` errors midway. */
/** The paths whose response body is still being sent, and how many. */
const sending = new Map<string, number>();

function paced(
  text: string,
  parts: number,
  ms: number,
  end: "close" | "error" | "never",
  path: string,
): ReadableStream<Uint8Array> {
  const bytes = encoder.encode(text);
  const size = Math.max(1, Math.ceil(bytes.byteLength / parts));
  let at = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let open = true;
  sending.set(path, (sending.get(path) ?? 0) + 1);
  const done = () => {
    if (!open) return;
    open = false;
    const left = sending.get(path)! - 1;
    if (left === 0) sending.delete(path);
    else sending.set(path, left);
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((resolve) => timer = setTimeout(resolve, ms));
      timer = undefined;
      if (at >= bytes.byteLength) {
        if (end === "close") controller.close();
        else if (end === "error") controller.error(BROKEN_OFF);
        else await new Promise((resolve) => timer = setTimeout(resolve, 50));
        if (end !== "never") done();
        return;
      }
      if (end === "error" && at > 0) {
        controller.error(BROKEN_OFF);
        done();
        return;
      }
      controller.enqueue(bytes.subarray(at, at + size));
      at += size;
    },
    cancel() {
      if (timer !== undefined) clearTimeout(timer);
      done();
    },
  });
}

/** The server: `/c/:id` answers with the fault in the query. */
function handler(): (
  request: Request,
  seen: { url: URL },
) => Promise<Response> {
  const hits = new Map<string, number>();
  return async (_request, { url }) => {
    const q = url.searchParams;
    const fault = q.get("fault")!;
    const type = q.get("type")!;
    const headMs = Number(q.get("headMs"));
    const chunkMs = Number(q.get("chunkMs"));
    const chunks = Number(q.get("chunks"));
    const n = (hits.get(url.pathname) ?? 0) + 1;
    hits.set(url.pathname, n);
    const contentType = type === "sse"
      ? "text/event-stream"
      : type === "ndjson"
      ? "application/x-ndjson"
      : "application/json";
    const headers = { "content-type": contentType };
    if (fault === "slowHead") await delay(headMs);
    switch (fault) {
      case "busy": {
        if (n > Number(q.get("busyTimes"))) break;
        const after = q.get("retryAfter")!;
        return new Response('{"busy":true}', {
          status: 503,
          headers: after === ""
            ? headers
            : { ...headers, "retry-after": after },
        });
      }
      case "redirect": {
        if (n > 1) break;
        const to = new URL(url);
        to.pathname += "r";
        return new Response(null, {
          status: Number(q.get("redirectStatus")),
          headers: { location: to.pathname + to.search },
        });
      }
      case "hugeDeclared":
        return new Response(payload(type, 2, 20_000), { headers });
      case "empty":
        return new Response(null, { status: 204 });
      case "error":
        return new Response(
          paced('{"error":"no"}', chunks, chunkMs, "close", url.pathname),
          {
            status: 500,
            headers,
          },
        );
      case "huge":
        return new Response(
          paced(
            payload(type, 2, 20_000),
            chunks,
            chunkMs,
            "close",
            url.pathname,
          ),
          {
            headers,
          },
        );
      case "slowBody":
      case "broken":
      case "endless":
        return new Response(
          paced(
            payload(type, 3, 10),
            chunks,
            chunkMs,
            fault === "broken"
              ? "error"
              : fault === "endless"
              ? "never"
              : "close",
            url.pathname,
          ),
          { headers },
        );
    }
    return new Response(payload(type, 3, 10), { headers });
  };
}

/** Abort listeners added from src/ to signals, not yet removed. */
class Listeners {
  #live = new Map<AbortSignal, Map<unknown, string>>();
  #add = EventTarget.prototype.addEventListener;
  #remove = EventTarget.prototype.removeEventListener;

  constructor() {
    const live = this.#live;
    const add = this.#add;
    const remove = this.#remove;
    EventTarget.prototype.addEventListener = function (
      this: EventTarget,
      type: string,
      listener: EventListenerOrEventListenerObject | null,
      options?: boolean | AddEventListenerOptions,
    ) {
      if (this instanceof AbortSignal && type === "abort" && listener) {
        const stack = new Error().stack ?? "";
        if (/\/src\/[a-z_]+\.ts/.test(stack)) {
          let map = live.get(this);
          if (!map) live.set(this, map = new Map());
          map.set(listener, stack.split("\n").slice(2, 6).join("\n"));
        }
      }
      return add.call(this, type, listener, options);
    };
    EventTarget.prototype.removeEventListener = function (
      this: EventTarget,
      type: string,
      listener: EventListenerOrEventListenerObject | null,
      options?: boolean | EventListenerOptions,
    ) {
      if (this instanceof AbortSignal && type === "abort") {
        live.get(this)?.delete(listener);
      }
      return remove.call(this, type, listener, options);
    };
  }

  /** Where each listener still on a signal that has not aborted was added. */
  left(): string[] {
    const left: string[] = [];
    for (const [signal, map] of this.#live) {
      if (signal.aborted) continue;
      left.push(...map.values());
    }
    return left;
  }

  restore(): void {
    EventTarget.prototype.addEventListener = this.#add;
    EventTarget.prototype.removeEventListener = this.#remove;
    this.#live.clear();
  }
}

class Thrown extends Error {}

interface Run {
  grab: ReturnType<typeof createGrab>;
  options: Record<string, unknown>;
  thrown: Set<unknown>;
  controller: AbortController | undefined;
  late: Late;
}

/**
 * What an `afterResponse` hook reads of a clone: the whole of it, but not
 * past its grab's end. The clone is the hook's own stream, which grab cannot
 * end; one of an endless body, read on, would hold the connection for good.
 */
async function readClone(response: Response, late: Late): Promise<void> {
  const reader = response.clone().body?.getReader();
  if (reader === undefined) return;
  try {
    while (!late.settled) {
      const read = await Promise.race([reader.read(), delay(50)]);
      if (read !== undefined && (read as { done: boolean }).done) return;
    }
  } catch {
    // Broken off or cancelled: the hook's read ends with it.
  }
  await reader.cancel().catch(() => {});
}

/** Caller code run after its grab settled, by name. */
class Late {
  settled = false;
  calls: string[] = [];
  note(what: string): void {
    if (this.settled) {
      this.calls.push(what);
      if (Deno.env.get("GRAB_CHAOS_STACKS")) {
        Error.stackTraceLimit = 40;
        console.error(what, new Error().stack);
      }
    }
  }
}

function makeHooks(c: Combo, thrown: Set<unknown>, late: Late): Hooks {
  const fail = (what: string) => {
    const error = new Thrown(what);
    thrown.add(error);
    throw error;
  };
  const hooks: Hooks = {};
  if (c.beforeRequest !== "none") {
    hooks.beforeRequest = (request) => {
      late.note("beforeRequest");
      if (c.beforeRequest === "throw") fail("beforeRequest");
      if (c.beforeRequest === "touch") request.headers.set("x-touch", "1");
      if (c.beforeRequest === "replace") return new Request(request);
      if (c.beforeRequest === "slow") return delay(100).then(() => {});
      if (c.beforeRequest === "elsewhere") {
        const url = new URL(request.url);
        url.pathname += "x";
        return new Request(url, request);
      }
    };
  }
  if (c.afterResponse !== "none") {
    hooks.afterResponse = async (_request, response) => {
      late.note("afterResponse");
      if (c.afterResponse === "throw") fail("afterResponse");
      if (c.afterResponse === "clone") {
        await readClone(response, late);
        return;
      }
      if (c.afterResponse === "replace") return response.clone();
      if (c.afterResponse === "fresh") {
        const empty = [204, 205, 304].includes(response.status);
        return new Response(empty ? null : '{"fresh":true}', {
          status: response.status,
          headers: response.headers,
        });
      }
      return new Response(response.body, response);
    };
  }
  if (c.beforeRetry !== "none") {
    hooks.beforeRetry = async () => {
      late.note("beforeRetry");
      if (c.beforeRetry === "throw") fail("beforeRetry");
      await delay(30);
    };
  }
  return hooks;
}

function makeBody(c: Combo): unknown {
  switch (c.body) {
    case "json":
      return { a: 1, b: "two" };
    case "bytes":
      return encoder.encode("some bytes");
    case "stream":
      return new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(encoder.encode("streamed"));
          controller.close();
        },
      });
    case "form": {
      const form = new FormData();
      form.set("name", "Ada");
      form.set("file", new Blob(["content"]), "a.txt");
      return form;
    }
  }
  return undefined;
}

function setUp(c: Combo, base: string): Run {
  const thrown = new Set<unknown>();
  const late = new Late();
  const hooks = makeHooks(c, thrown, late);
  const factory: GrabOptions = { retry: { limit: c.retry, backoff: () => 5 } };
  if (c.headers === "static") factory.headers = { "x-static": "1" };
  if (c.headers === "sync") {
    factory.headers = () => (late.note("headers"), { "x-sync": "1" });
  }
  if (c.headers === "async") {
    factory.headers = async () => {
      await Promise.resolve();
      late.note("headers");
      return { "x-async": "1" };
    };
  }
  if (c.headers === "throw") {
    factory.headers = () => {
      const error = new Thrown("headers");
      thrown.add(error);
      throw error;
    };
  }
  if (c.headers === "slow") {
    factory.headers = () => delay(80).then(() => ({ "x-slow": "1" }));
  }
  if (c.fetch === "wrapper") {
    factory.fetch = (input, init) => (late.note("fetch"), fetch(input, init));
  }
  if (c.fetch === "slowWrapper") {
    factory.fetch = async (input, init) => {
      late.note("fetch");
      await delay(20);
      return fetch(input, init);
    };
  }
  if (c.fetch === "deaf") {
    // Never looks at the signal: the grab must still end on time.
    factory.fetch = (input, init) => {
      late.note("fetch");
      const { signal: _, ...rest } = init ?? {};
      return fetch(input, rest);
    };
  }
  if (c.fetch === "synthetic") {
    // A response whose body is a stream of the caller's, not the platform's.
    factory.fetch = async (input, init) => {
      late.note("fetch");
      const response = await fetch(input, init);
      const body = response.body?.pipeThrough(new TransformStream()) ?? null;
      return new Response(body, response);
    };
  }
  if (c.where !== "call") factory.hooks = hooks;
  const grab = createGrab(base, factory);
  const options: Record<string, unknown> = {
    responseType: c.type,
    timeout: c.timeout,
  };
  if (c.where !== "factory") options.hooks = hooks;
  if (c.attemptTimeout !== undefined) {
    options.attemptTimeout = c.attemptTimeout;
  }
  if (c.maxBodyBytes !== undefined) options.maxBodyBytes = c.maxBodyBytes;
  const body = makeBody(c);
  if (body !== undefined) options.body = body;
  const progress = (what: string) => () => {
    if (what === "upload" || !LIVE.has(c.type)) late.note(what);
    if (c.progressThrows) {
      const error = new Thrown(what);
      thrown.add(error);
      throw error;
    }
  };
  if (c.upload && body !== undefined) {
    options.onUploadProgress = progress("upload");
  }
  if (c.download) options.onDownloadProgress = progress("download");
  let controller: AbortController | undefined;
  if (c.abortAt !== undefined) {
    controller = new AbortController();
    options.signal = controller.signal;
  }
  return { grab, options, thrown, controller, late };
}

/** Reads or cancels a live body as the combination says; bounded. */
async function consume(
  c: Combo,
  data: unknown,
  thrown: Set<unknown>,
): Promise<void> {
  if (data instanceof ReadableStream) {
    const reader = (data as ReadableStream<Uint8Array>).getReader();
    if (c.consume === "cancel") return await reader.cancel();
    try {
      for (let i = 0; i < 20; i++) {
        const { done } = await reader.read();
        if (done) return;
        if (c.consume === "first") break;
      }
    } catch (error) {
      // A raw stream fails its read with a transport error, or with what
      // the caller's progress callback threw.
      assert(
        error instanceof GrabTransportError || thrown.has(error),
        `read: ${String(error)}`,
      );
      return;
    }
    await reader.cancel();
    return;
  }
  const stream = data as AsyncIterable<unknown> & {
    cancel(): Promise<void>;
    error: unknown;
  };
  if (c.consume === "cancel") return await stream.cancel();
  let count = 0;
  try {
    for await (const _ of stream) {
      if (c.consume === "first" || ++count >= 20) break;
    }
  } catch (error) {
    assert(thrown.has(error), `the stream threw ${String(error)}`);
  }
  const error = stream.error;
  assert(
    error === null || error instanceof GrabTransportError,
    `stream.error is ${String(error)}`,
  );
}

/** The worst overshoot of a timeout seen, for the log. */
const worst = { ms: 0, index: -1 };

function overshoot(c: Combo, elapsed: number, index: number): void {
  if (c.timeout === false) return;
  const over = elapsed - c.timeout;
  if (over > worst.ms) Object.assign(worst, { ms: over, index });
}

function bound(c: Combo): number {
  // Every delay the server, a hook or a wrapper adds is finite; a timeout
  // bounds them all, and without one their sum does. The slack is a guard
  // against a hang, not a measure of speed: wide enough for a busy machine.
  return (c.timeout === false ? 12_000 : c.timeout) + 15_000;
}

function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${what} did not settle within ${ms} ms`)),
        ms,
      );
    }),
  ]).finally(() => clearTimeout(timer));
}

function checkTuple(c: Combo, result: unknown): void {
  assert(Array.isArray(result) && result.length === 3, "not a tuple");
  const [data, error, meta] = result as [unknown, unknown, unknown];
  if (error === null) {
    assert(typeof meta === "object" && meta !== null);
    const status = (meta as { statusCode: number }).statusCode;
    assert(status >= 200 && status < 300, `success with status ${status}`);
    return;
  }
  assertStrictEquals(data, null);
  if (error instanceof GrabError) {
    assertEquals(meta, {});
    return;
  }
  assert(error instanceof GrabTransportError, `error is ${String(error)}`);
  assertEquals(meta, { statusCode: 0 });
  if (error.kind === "abort") {
    assert(c.abortAt !== undefined, "an abort without a signal");
  }
}

/** A case as a failure names it, with what it combines. */
function describeCase(index: number): string {
  const rng = random(SEED + index * 7919);
  return `chaos case ${index} (GRAB_CHAOS_SEED=${SEED} GRAB_CHAOS_CASE=${index}): ${
    JSON.stringify(rare(combo(rng), rng))
  }`;
}

async function runCase(index: number, base: string): Promise<string> {
  const rng = random(SEED + index * 7919);
  const c = rare(combo(rng), rng);
  const describe = () =>
    `chaos case ${index} (GRAB_CHAOS_SEED=${SEED} GRAB_CHAOS_CASE=${index}): ${
      JSON.stringify(c)
    }`;
  const run = setUp(c, base);
  const query = new URLSearchParams({
    fault: c.fault,
    type: c.type,
    headMs: String(c.headMs),
    chunkMs: String(c.chunkMs),
    chunks: String(c.chunks),
    busyTimes: String(c.busyTimes),
    redirectStatus: String(c.redirectStatus),
    retryAfter: c.retryAfter,
  });
  const endpoint = `${c.method} /c/${index}?${query}` as "GET /c";
  let abortTimer: ReturnType<typeof setTimeout> | undefined;
  if (run.controller !== undefined) {
    const controller = run.controller;
    if (c.abortAt === 0) controller.abort();
    else abortTimer = setTimeout(() => controller.abort(), c.abortAt);
  }
  try {
    let outcome: string;
    try {
      const started = Date.now();
      const result = await within(
        run.grab(endpoint, run.options).finally(() => run.late.settled = true),
        bound(c),
        "the grab",
      );
      overshoot(c, Date.now() - started, index);
      checkTuple(c, result);
      const [data, error] = result as unknown as [unknown, unknown];
      if (error === null && data !== null && LIVE.has(c.type)) {
        await within(
          consume(c, data, run.thrown),
          5_000 + (c.abortAt ?? 0),
          "the body",
        );
      }
      outcome = error === null
        ? "ok"
        : error instanceof GrabTransportError
        ? error.kind
        : `http ${(error as GrabError).statusCode}`;
    } catch (error) {
      run.late.settled = true;
      if (error instanceof GrabValidationError) outcome = "validation";
      else if (run.thrown.has(error)) outcome = "thrown";
      else throw error;
    }
    // Caller code still running after the grab settled would be caught by
    // the next turns; give it those turns.
    await delay(c.fault === "slowHead" ? c.headMs + 150 : 150);
    assertEquals(run.late.calls, [], "caller code ran after the grab settled");
    return outcome;
  } catch (error) {
    console.error(describe());
    throw error;
  } finally {
    clearTimeout(abortTimer);
  }
}

Deno.test("random combinations of options, hooks and faults all settle and leave nothing behind", async () => {
  const listeners = new Listeners();
  try {
    await using server = startServer(handler());
    const indices = ONLY !== undefined
      ? [Number(ONLY)]
      : Array.from({ length: RUNS }, (_, i) => i);
    const outcomes = new Map<string, number>();
    for (let at = 0; at < indices.length; at += PARALLEL) {
      const batch = indices.slice(at, at + PARALLEL);
      const results = await Promise.all(
        batch.map((index) => runCase(index, server.url)),
      );
      for (const outcome of results) {
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
    }
    // Let aborted requests and cancelled bodies finish in the background;
    // a body still being sent then is one no grab let go of, which would
    // hold the server's shutdown for good.
    for (let waited = 0; sending.size > 0 && waited < 5_000; waited += 50) {
      await delay(50);
    }
    if (sending.size > 0) {
      console.error(
        "response bodies no grab let go of:\n" +
          [...sending.keys()].map((path) =>
            describeCase(Number.parseInt(path.split("/")[2]!))
          ).join("\n"),
      );
    }
    assertEquals(
      [...sending.keys()].map((path) =>
        describeCase(Number(path.split("/")[2]))
      ),
      [],
      "response bodies no grab let go of",
    );
    const left = listeners.left();
    assertEquals(left.length, 0, `abort listeners left:\n${left.join("\n\n")}`);
    console.log(
      `chaos: ${indices.length} grabs (seed ${SEED}):`,
      Object.fromEntries([...outcomes].sort()),
      `worst overshoot of a timeout: ${worst.ms} ms (case ${worst.index})`,
    );
  } finally {
    listeners.restore();
  }
});
