/**
 * Large bodies over loopback: grab's `responseType: "text"` and `"bytes"`
 * against raw `fetch` + `res.text()` and `res.bytes()`, for a 64 KiB and a
 * 1 MiB body with a `Content-Length`, and the 1 MiB body chunked without
 * one, served by `_server.ts` in its own process. Beside them, the floor of
 * a capped read of a body without a trusted length: `getReader()` to the
 * end, counting the bytes against a 64 MiB cap, the chunks joined once and,
 * for text, decoded once.
 *
 * The reads alternate request by request rather than batch by batch (as
 * `compare` in `_http.ts` does): a batch of 1 MiB reads leaves the next batch
 * its garbage to collect, and two identical raw reads timed in alternating
 * batches differed by up to 10% in their median, against 2–4% when they
 * alternate request by request.
 *
 * @module
 */

import { createGrab } from "../mod.ts";
import {
  type Client,
  type Comparison,
  decode,
  FLOOR_CAP,
  readCapped,
} from "./_http.ts";
import { LARGE_SIZES, largeBody } from "./_server.ts";
import {
  median,
  seededRandom,
  settle,
  SHUFFLE_SEED,
  shuffled,
} from "./_stats.ts";

/** One body the server sends. */
export interface BodyCase {
  /** The label in the tables. */
  name: string;
  /** The path on the benchmark server. */
  path: `/${string}`;
  /** The body's size in bytes. */
  bytes: number;
  /** Sent chunked, without a `Content-Length`. */
  chunked: boolean;
}

const [SMALL, LARGE] = LARGE_SIZES;

/** The bodies measured, in table order. */
export const BODY_CASES: readonly BodyCase[] = [
  {
    name: "64 KiB, Content-Length",
    path: `/bodies/${SMALL}`,
    bytes: SMALL,
    chunked: false,
  },
  {
    name: "1 MiB, Content-Length",
    path: `/bodies/${LARGE}`,
    bytes: LARGE,
    chunked: false,
  },
  {
    name: "1 MiB, chunked, no Content-Length",
    path: `/bodies/${LARGE}/chunked`,
    bytes: LARGE,
    chunked: true,
  },
];

/**
 * The contenders, in table order: each grab read after its raw baseline and
 * the reader-loop floor.
 */
export const BODY_NAMES = [
  "raw .text()",
  "raw reader loop text",
  "grab text",
  "raw .bytes()",
  "raw reader loop bytes",
  "grab bytes",
] as const;

/** The raw read each contender is divided by. */
export const BODY_BASELINE: Record<string, string> = {
  "raw .text()": "raw .text()",
  "raw reader loop text": "raw .text()",
  "grab text": "raw .text()",
  "raw .bytes()": "raw .bytes()",
  "raw reader loop bytes": "raw .bytes()",
  "grab bytes": "raw .bytes()",
};

/**
 * The floor of a contender on a body: for a chunked body (no length to
 * trust) the reader loop of the same kind, else the raw one-call read.
 */
export function bodyFloor(c: BodyCase, name: string): string {
  const text = BODY_BASELINE[name] === "raw .text()";
  if (!c.chunked) return text ? "raw .text()" : "raw .bytes()";
  return text ? "raw reader loop text" : "raw reader loop bytes";
}

/** The measurement of one body. */
export interface BodyCaseResult {
  case: BodyCase;
  /** Sequential GETs per contender per round. */
  requests: number;
  /** Times, and ratios of each contender's time to its baseline's. */
  comparison: Comparison;
}

/** Every body measured. */
export interface BodiesResults {
  cases: BodyCaseResult[];
  rounds: number;
}

/** How the bodies are measured. */
export interface BodiesOptions {
  /** The benchmark server, `http://127.0.0.1:<port>`. */
  base: string;
  rounds: number;
  /** Sequential GETs of a body of `bytes` bytes per contender per round. */
  requests: (bytes: number) => number;
  log: (line: string) => void;
}

function contenders(base: string, path: `/${string}`): Client[] {
  const url = `${base}${path}`;
  const endpoint = `GET ${path}` as const;
  // Defaults: timeout 30 s, retry 2, maxBodyBytes 64 MiB.
  const grab = createGrab(base);
  return [
    {
      name: "raw .text()",
      get: async () => await (await fetch(url)).text(),
    },
    {
      name: "raw reader loop text",
      get: async () =>
        decode(await readCapped((await fetch(url)).body, FLOOR_CAP)),
    },
    {
      name: "grab text",
      get: async () => {
        const [data, error] = await grab(endpoint, {
          responseType: "text",
        });
        if (error) throw error;
        return data;
      },
    },
    {
      name: "raw .bytes()",
      get: async () => await (await fetch(url)).bytes(),
    },
    {
      name: "raw reader loop bytes",
      get: async () => await readCapped((await fetch(url)).body, FLOOR_CAP),
    },
    {
      name: "grab bytes",
      get: async () => {
        const [data, error] = await grab(endpoint, {
          responseType: "bytes",
        });
        if (error) throw error;
        return data;
      },
    },
  ];
}

/**
 * Throws unless the server frames the body as the case says (a
 * `Content-Length` or chunked, never compressed) and every contender reads
 * exactly the body's bytes (or their text).
 */
async function check(
  base: string,
  c: BodyCase,
  clients: readonly Client[],
): Promise<void> {
  const res = await fetch(`${base}${c.path}`);
  await res.body?.cancel();
  const length = res.headers.get("content-length");
  const encoding = res.headers.get("content-encoding");
  const framing = res.headers.get("transfer-encoding");
  const framed = c.chunked
    ? length === null && framing === "chunked"
    : length === String(c.bytes) && framing === null;
  if (!framed || encoding !== null) {
    throw new Error(
      `${c.path}: content-length ${length}, transfer-encoding ${framing}, content-encoding ${encoding}`,
    );
  }
  const expected = largeBody(c.bytes);
  const text = new TextDecoder().decode(expected);
  for (const client of clients) {
    const got = await client.get();
    const same = typeof got === "string"
      ? got === text
      : got instanceof Uint8Array && got.byteLength === expected.byteLength &&
        got.every((b, i) => b === expected[i]);
    if (!same) {
      const what = typeof got === "string"
        ? `${got.length} characters`
        : got instanceof Uint8Array
        ? `${got.byteLength} different bytes`
        : String(got);
      throw new Error(`${client.name} on ${c.path} read ${what}`);
    }
  }
}

/**
 * Times `requests` GETs of every contender, one request at a time, in an
 * order drawn afresh for every request (a seeded shuffle: a fixed order has
 * each read mostly follow the same other and pay for what that one leaves
 * behind). Resolves to each contender's total milliseconds.
 */
async function timeRound(
  clients: readonly Client[],
  requests: number,
  random: () => number,
): Promise<Record<string, number>> {
  const total: Record<string, number> = {};
  for (const c of clients) total[c.name] = 0;
  for (let i = 0; i < requests; i++) {
    for (const client of shuffled(clients, random)) {
      const t0 = performance.now();
      await client.get();
      total[client.name]! += performance.now() - t0;
    }
  }
  return total;
}

/**
 * Measures every case: one warm-up round, then `rounds` rounds; per round
 * each contender's total time, and its ratio to its raw read's total in the
 * same round.
 */
export async function runBodies(o: BodiesOptions): Promise<BodiesResults> {
  const cases: BodyCaseResult[] = [];
  for (const c of BODY_CASES) {
    const clients = contenders(o.base, c.path);
    await check(o.base, c, clients);
    const requests = o.requests(c.bytes);
    o.log(`Bodies, ${c.name}: ${requests} GETs per read x ${o.rounds} rounds`);
    const times: Record<string, number[]> = {};
    const ratios: Record<string, number[]> = {};
    for (const name of BODY_NAMES) {
      times[name] = [];
      ratios[name] = [];
    }
    const random = seededRandom(SHUFFLE_SEED);
    await timeRound(clients, requests, random); // warm-up
    for (let r = 0; r < o.rounds; r++) {
      await settle();
      const got = await timeRound(clients, requests, random);
      for (const name of BODY_NAMES) {
        times[name]!.push(got[name]!);
        ratios[name]!.push(got[name]! / got[BODY_BASELINE[name]!]!);
      }
    }
    const comparison: Comparison = {
      medianMs: {},
      ratioToRaw: {},
      ratioRange: {},
      rounds: o.rounds,
      times,
    };
    for (const name of BODY_NAMES) {
      comparison.medianMs[name] = median(times[name]!);
      comparison.ratioToRaw[name] = median(ratios[name]!);
      comparison.ratioRange[name] = [
        Math.min(...ratios[name]!),
        Math.max(...ratios[name]!),
      ];
    }
    cases.push({ case: c, requests, comparison });
  }
  return { cases, rounds: o.rounds };
}
