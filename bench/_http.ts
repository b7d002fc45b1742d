/**
 * The HTTP client comparison: raw `fetch` + `res.json()`, grab, ky, ofetch,
 * wretch and up-fetch, each with its defaults, over loopback (sequential and
 * 64 in flight) and in process (a fake `fetch` that returns a ready
 * `Response`); and ofetch once more with a 30 s `timeout`, the promise grab
 * keeps by default.
 *
 * Beside raw, two floors: what any client must pay to keep grab's promises.
 * `raw+timeout` passes a shared 30 s timeout signal and an `accept` header;
 * `raw-stream` (custom `fetch` only) reads the body with a reader loop under
 * a size cap, since a custom `fetch`'s `Content-Length` cannot be trusted.
 *
 * @module
 */

import ky from "npm:ky@2.1.0";
import { ofetch } from "npm:ofetch@1.5.1";
import wretch from "npm:wretch@3.0.9";
import { up } from "npm:up-fetch@2.6.1";
import { createGrab } from "../mod.ts";
import { BODY_OBJECT, BODY_TEXT } from "./_server.ts";
import {
  median,
  rotate,
  seededRandom,
  settle,
  SHUFFLE_SEED,
  shuffled,
} from "./_stats.ts";

/** A `fetch` replacement. */
export type FetchLike = (
  input: Request | string | URL,
  init?: RequestInit,
) => Promise<Response>;

/** One client under test: one GET of `/item`, resolving to the parsed body. */
export interface Client {
  /** The name in the tables. */
  name: string;
  /** Performs one GET and resolves to the parsed JSON body. */
  get: () => Promise<unknown>;
}

/** grab and its peers, in table order. */
const PEER_NAMES = [
  "grab",
  "ky",
  "ofetch",
  "ofetch+timeout",
  "wretch",
  "up-fetch",
] as const;

/** The clients over loopback, in table order; `raw` first. */
export const CLIENT_NAMES = ["raw", "raw+timeout", ...PEER_NAMES] as const;

/** The clients with a custom `fetch` (in process), in table order. */
export const CUSTOM_FETCH_NAMES = [
  "raw",
  "raw+timeout",
  "raw-stream",
  ...PEER_NAMES,
] as const;

/** The size cap the reader-loop floors count against (grab's default). */
export const FLOOR_CAP = 64 * 1024 * 1024;

/** How long one shared timeout signal is handed out (grab's window). */
const SHARE_MS = 15;

/**
 * A source of 30 s timeout signals: one is shared by the calls that start
 * within {@linkcode SHARE_MS} of its creation, then a new one is made, as a
 * client with a default timeout can share the platform's timeout signal.
 */
export function sharedTimeout(): () => AbortSignal {
  let current = { signal: AbortSignal.timeout(30_000), at: performance.now() };
  return () => {
    const now = performance.now();
    if (now - current.at > SHARE_MS) {
      current = { signal: AbortSignal.timeout(30_000), at: now };
    }
    return current.signal;
  };
}

/**
 * Reads `body` to the end with a reader, counting its bytes against `cap`
 * (rejects past it, after cancelling), and joins the chunks once (a single
 * chunk is returned as it is): the floor of a capped read of a body whose
 * length is not known or not trusted.
 */
export async function readCapped(
  body: ReadableStream<Uint8Array> | null,
  cap: number = FLOOR_CAP,
): Promise<Uint8Array> {
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > cap) {
      await reader.cancel();
      throw new RangeError(`body over ${cap} bytes`);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

const decoder = new TextDecoder();

/** Decodes UTF-8 bytes in one call, with one shared decoder. */
export function decode(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/**
 * Builds every client for `base`, in the order of {@linkcode CLIENT_NAMES}.
 * With `fetchImpl`, each client is given it instead of the global `fetch`
 * (grab's `fetch` option, ky's `fetch`, ofetch's global `fetch`, wretch's
 * `fetchPolyfill`, up-fetch's first argument), and the `raw-stream` floor is
 * added (the order of {@linkcode CUSTOM_FETCH_NAMES}).
 */
export function makeClients(base: string, fetchImpl?: FetchLike): Client[] {
  const url = `${base}/item`;
  const doFetch: FetchLike = fetchImpl ?? ((input, init) => fetch(input, init));
  const timeout = sharedTimeout();
  const grab = createGrab(base, fetchImpl ? { fetch: fetchImpl } : {});
  const kyApi = ky.create(
    fetchImpl ? { baseUrl: base, fetch: fetchImpl } : { baseUrl: base },
  );
  const ofetchApi = ofetch.create(
    { baseURL: base },
    fetchImpl ? { fetch: fetchImpl } : {},
  );
  // ofetch keeps the promise of grab's default timeout only when asked.
  const ofetchTimed = ofetch.create(
    { baseURL: base, timeout: 30_000 },
    fetchImpl ? { fetch: fetchImpl } : {},
  );
  const wretchApi = fetchImpl
    ? wretch(base).fetchPolyfill(fetchImpl)
    : wretch(base);
  const upfetch = up(fetchImpl ?? fetch, () => ({ baseUrl: base }));
  const floors: Client[] = [
    {
      name: "raw+timeout",
      get: async () => {
        const res = await doFetch(url, {
          signal: timeout(),
          headers: { accept: "application/json" },
        });
        return await res.json();
      },
    },
  ];
  if (fetchImpl !== undefined) {
    floors.push({
      name: "raw-stream",
      get: async () =>
        JSON.parse(decode(await readCapped((await doFetch(url)).body))),
    });
  }
  return [
    {
      name: "raw",
      get: async () => {
        const res = await doFetch(url);
        return await res.json();
      },
    },
    ...floors,
    {
      name: "grab",
      get: async () => {
        const [data, error] = await grab("GET /item");
        if (error) throw error;
        return data;
      },
    },
    { name: "ky", get: () => kyApi.get("item").json() },
    { name: "ofetch", get: () => ofetchApi("/item") },
    { name: "ofetch+timeout", get: () => ofetchTimed("/item") },
    { name: "wretch", get: () => wretchApi.get("/item").json() },
    { name: "up-fetch", get: () => upfetch("/item") },
  ];
}

/** Throws unless every client reads the expected body. */
export async function checkClients(clients: readonly Client[]): Promise<void> {
  const expected = JSON.stringify(BODY_OBJECT);
  for (const client of clients) {
    const got = JSON.stringify(await client.get());
    if (got !== expected) {
      throw new Error(`${client.name} read ${got.slice(0, 80)}`);
    }
  }
}

/** `total` GETs with at most `inFlight` at a time; resolves to milliseconds. */
export async function timeGets(
  client: Client,
  total: number,
  inFlight: number,
): Promise<number> {
  let started = 0;
  const worker = async () => {
    while (started < total) {
      started++;
      await client.get();
    }
  };
  const t0 = performance.now();
  const workers = [];
  for (let w = 0; w < Math.min(inFlight, total); w++) workers.push(worker());
  await Promise.all(workers);
  return performance.now() - t0;
}

/** The medians and paired ratios of one interleaved measurement. */
export interface Comparison {
  /** Median milliseconds per client over the rounds. */
  medianMs: Record<string, number>;
  /** Median over rounds of (client time / raw time in the same round). */
  ratioToRaw: Record<string, number>;
  /** Lowest and highest per-round ratio to raw (the spread over rounds). */
  ratioRange: Record<string, [number, number]>;
  /** Rounds measured (the warm-up round is not counted). */
  rounds: number;
  /** Each client's time per round, in milliseconds, in round order. */
  times: Record<string, number[]>;
}

/**
 * The median over rounds of (`name`'s time / `baseline`'s time in the same
 * round), and the lowest and highest of those ratios.
 */
export function pairedRatio(
  c: Comparison,
  name: string,
  baseline: string,
): { ratio: number; range: [number, number] } {
  const a = c.times[name];
  const b = c.times[baseline];
  if (a === undefined || b === undefined || a.length === 0) {
    return { ratio: NaN, range: [NaN, NaN] };
  }
  const ratios = a.map((t, i) => t / b[i]!);
  return {
    ratio: median(ratios),
    range: [Math.min(...ratios), Math.max(...ratios)],
  };
}

/**
 * Sequential GETs in `rounds` rounds after one warm-up round, the clients
 * taking turns request by request (in an order drawn afresh for every
 * request, from a fixed seed), each request timed on its own and summed per
 * client and round.
 * Batches of one client after another drift apart (one batch leaves the
 * next its garbage to collect, the machine's load changes between them);
 * turns request by request share every such change.
 */
export function compareAlternating(
  clients: readonly Client[],
  rounds: number,
  requests: number,
  onRound?: (round: number) => void,
): Promise<Comparison> {
  // A fresh order for every request: a fixed one (a rotation) has each
  // client mostly follow the same other, and pay for what that one leaves
  // behind (its garbage, its work still running after it resolved).
  return compareInTurns(clients, rounds, requests, async (c) => {
    const t0 = performance.now();
    await c.get();
    return performance.now() - t0;
  }, onRound);
}

/**
 * Runs `measure` for every client in `rounds` interleaved rounds after one
 * warm-up round. Each round runs every client once, in an order rotated by
 * one place per round.
 */
export async function compare(
  clients: readonly Client[],
  rounds: number,
  measure: (client: Client) => Promise<number>,
  onRound?: (round: number) => void,
): Promise<Comparison> {
  const times: Record<string, number[]> = {};
  for (const c of clients) times[c.name] = [];
  for (const c of clients) await measure(c); // warm-up
  for (let r = 0; r < rounds; r++) {
    const got: Record<string, number> = {};
    for (const c of rotate(clients, r)) {
      await settle();
      got[c.name] = await measure(c);
    }
    for (const c of clients) times[c.name]!.push(got[c.name]!);
    onRound?.(r + 1);
  }
  return summarise(clients, times, rounds);
}

/**
 * Like {@linkcode compare}, but each round is cut into `turns`: in every
 * turn each client runs `measure` once, in an order drawn afresh for the
 * turn (the seeded shuffle of {@linkcode compareAlternating}), and a
 * client's round is the sum of its turns. Whole rounds of one client after
 * another drift apart with the machine's load and the garbage one leaves
 * the next; short turns share those changes.
 */
export async function compareInTurns(
  clients: readonly Client[],
  rounds: number,
  turns: number,
  measure: (client: Client) => Promise<number>,
  onRound?: (round: number) => void,
): Promise<Comparison> {
  const random = seededRandom(SHUFFLE_SEED);
  const oneRound = async () => {
    const total: Record<string, number> = {};
    for (const c of clients) total[c.name] = 0;
    for (let t = 0; t < turns; t++) {
      for (const c of shuffled(clients, random)) {
        total[c.name]! += await measure(c);
      }
    }
    return total;
  };
  await oneRound(); // warm-up
  const times: Record<string, number[]> = {};
  for (const c of clients) times[c.name] = [];
  for (let r = 0; r < rounds; r++) {
    await settle();
    const got = await oneRound();
    for (const c of clients) times[c.name]!.push(got[c.name]!);
    onRound?.(r + 1);
  }
  return summarise(clients, times, rounds);
}

/** Medians, and each client's per-round ratios to raw in the same round. */
function summarise(
  clients: readonly Client[],
  times: Record<string, number[]>,
  rounds: number,
): Comparison {
  const medianMs: Record<string, number> = {};
  const ratioToRaw: Record<string, number> = {};
  const ratioRange: Record<string, [number, number]> = {};
  const raw = times["raw"]!;
  for (const c of clients) {
    const ratios = times[c.name]!.map((t, r) => t / raw[r]!);
    medianMs[c.name] = median(times[c.name]!);
    ratioToRaw[c.name] = median(ratios);
    ratioRange[c.name] = [Math.min(...ratios), Math.max(...ratios)];
  }
  return { medianMs, ratioToRaw, ratioRange, rounds, times };
}

// The same headers as the loopback server sends.
const JSON_HEADERS = {
  "content-type": "application/json",
  "content-length": String(new TextEncoder().encode(BODY_TEXT).byteLength),
};

/**
 * A fake `fetch` that resolves at once to a ready JSON `Response`, with the
 * loopback server's headers (`content-type`, `content-length`).
 */
export const fakeFetch: FetchLike = (): Promise<Response> =>
  Promise.resolve(new Response(BODY_TEXT, { headers: JSON_HEADERS }));

/** Times `iterations` sequential calls of `client.get`; milliseconds. */
export async function timeCalls(
  client: Client,
  iterations: number,
): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < iterations; i++) await client.get();
  return performance.now() - t0;
}
