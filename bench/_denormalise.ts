/**
 * The JSON:API denormaliser comparison: grab's `denormalise` (with and without
 * camelCase) against jsona and kitsu-core, on pre-parsed synthetic compound
 * documents, with `JSON.parse` of the same text as the yardstick.
 *
 * @module
 */

import Jsona from "npm:jsona@1.14.0";
import { deserialise } from "npm:kitsu-core@11.1.0";
import { denormalise } from "../src/jsonapi/denormalise.ts";
import { compoundDocument } from "./_documents.ts";
import { median, rotate, settle, slope } from "./_stats.ts";
import { codecFor } from "../src/format.ts";

// The JSON:API modules take the core's helpers as the codec loads.
await codecFor("json-api");

/** One contender: `run` works on a fresh pre-parsed copy of the document. */
interface Contender {
  name: string;
  /** The yardstick parses the text itself; the others get a parsed copy. */
  yardstick?: true;
  run: (document: unknown, text: string) => unknown;
  /** Whether the library can do it at all (jsona/kitsu-core camelCase). */
  unsupported?: string;
}

const jsona = new Jsona();

const CONTENDERS: Contender[] = [
  { name: "JSON.parse", yardstick: true, run: (_, text) => JSON.parse(text) },
  { name: "grab", run: (doc) => denormalise(doc) },
  {
    name: "grab camelCase",
    run: (doc) => denormalise(doc, { casing: "camelCase" }),
  },
  {
    name: "jsona",
    // deno-lint-ignore no-explicit-any
    run: (doc) => jsona.deserialize(doc as any),
  },
  {
    name: "jsona camelCase",
    run: () => undefined,
    unsupported: "n/a: jsona has no key-casing option",
  },
  { name: "kitsu-core", run: (doc) => deserialise(doc) },
  {
    name: "kitsu-core camelCase",
    run: () => undefined,
    unsupported:
      "n/a: kitsu-core's deserialise has no casing option (only a camel(string) helper)",
  },
];

/** Contender names in table order. */
export const DENORMALISE_NAMES: readonly string[] = CONTENDERS.map((c) =>
  c.name
);

/**
 * One cell: a median, its ratio to JSON.parse (medians), the lowest and
 * highest ratio of one run to JSON.parse in the same run, or why there is
 * none.
 */
export type Cell =
  | { ms: number; ratio: number; ratioRange: [number, number]; runs: number }
  | { skipped: string };

/** Every cell by N, then by contender name. */
export interface DenormaliseResults {
  sizes: number[];
  /** Bytes of the document text per N. */
  textBytes: Record<number, number>;
  cells: Record<number, Record<string, Cell>>;
  /** Least-squares slope of log(ms) against log(N): grab and JSON.parse. */
  grabExponent: Record<string, number>;
}

/** Options of {@linkcode runDenormalise}. */
export interface DenormaliseOptions {
  sizes: number[];
  /** Runs per N (at least 5). */
  runs: (n: number) => number;
  /** A contender whose predicted run passes this many ms is skipped. */
  capMs: number;
  log: (line: string) => void;
}

function sanityCheck(n: number, name: string, out: unknown): void {
  let data: unknown = out;
  if (name.startsWith("grab")) data = (out as { data: unknown }).data;
  else if (name === "kitsu-core") data = (out as { data: unknown }).data;
  if (!Array.isArray(data) || data.length !== n) {
    throw new Error(`${name} did not return ${n} articles`);
  }
}

/**
 * Measures every contender at every size. Each run rotates the contenders'
 * order; each contender gets its own fresh `JSON.parse` copy (not timed).
 * Small documents are timed in batches so one timing lasts a few ms.
 */
export async function runDenormalise(
  options: DenormaliseOptions,
): Promise<DenormaliseResults> {
  const { sizes, capMs, log } = options;
  const results: DenormaliseResults = {
    sizes,
    textBytes: {},
    cells: {},
    grabExponent: {},
  };
  // The last measured N and median per contender, to predict the next size.
  const last: Record<string, { n: number; ms: number; exponent: number }> = {};
  for (const n of sizes) {
    const text = JSON.stringify(compoundDocument(n));
    results.textBytes[n] = new TextEncoder().encode(text).byteLength;
    const batch = Math.max(1, Math.ceil(10_000 / n));
    const runs = options.runs(n);
    const cells: Record<string, Cell> = {};
    const active: Contender[] = [];
    for (const c of CONTENDERS) {
      if (c.unsupported !== undefined) {
        cells[c.name] = { skipped: c.unsupported };
        continue;
      }
      const prev = last[c.name];
      if (prev !== undefined) {
        const exponent = Math.max(1, prev.exponent);
        const predicted = prev.ms * (n / prev.n) ** exponent;
        if (predicted > capMs) {
          const kind = exponent > 1.5 ? "quadratic" : "too slow";
          cells[c.name] = {
            skipped: `skipped: ${kind} (exponent ${
              exponent.toFixed(2)
            } from N=${prev.n.toLocaleString("en-US")}), > ${
              (capMs / 1000).toFixed(0)
            } s per run at N=${n.toLocaleString("en-US")} (predicted ${
              (predicted / 1000).toFixed(0)
            } s)`,
          };
          continue;
        }
      }
      // Correctness once, untimed.
      if (c.yardstick === undefined) {
        sanityCheck(n, c.name, c.run(JSON.parse(text), text));
      }
      active.push(c);
    }
    const times: Record<string, number[]> = {};
    for (const c of active) times[c.name] = [];
    for (let r = 0; r < runs; r++) {
      for (const c of rotate(active, r)) {
        const copies: unknown[] = [];
        if (c.yardstick === undefined) {
          for (let b = 0; b < batch; b++) copies.push(JSON.parse(text));
        }
        await settle();
        const t0 = performance.now();
        for (let b = 0; b < batch; b++) c.run(copies[b], text);
        times[c.name]!.push((performance.now() - t0) / batch);
      }
    }
    const yardTimes = times["JSON.parse"]!;
    const yard = median(yardTimes);
    for (const c of active) {
      const m = median(times[c.name]!);
      const perRun = times[c.name]!.map((t, r) => t / yardTimes[r]!);
      cells[c.name] = {
        ms: m,
        ratio: m / yard,
        ratioRange: [Math.min(...perRun), Math.max(...perRun)],
        runs,
      };
      const prev = last[c.name];
      last[c.name] = {
        n,
        ms: m,
        exponent: prev === undefined
          ? 1
          : Math.log(m / prev.ms) / Math.log(n / prev.n),
      };
    }
    results.cells[n] = cells;
    log(
      `  N=${n.toLocaleString("en-US")}: ${
        active.map((c) => c.name).join(", ")
      } measured (${runs} runs, batch ${batch})`,
    );
  }
  for (const name of ["JSON.parse", "grab", "grab camelCase"]) {
    const xs: number[] = [];
    const ys: number[] = [];
    for (const n of sizes) {
      const cell = results.cells[n]?.[name];
      if (cell === undefined || "skipped" in cell) continue;
      xs.push(Math.log(n));
      ys.push(Math.log(cell.ms));
    }
    if (xs.length >= 2) results.grabExponent[name] = slope(xs, ys);
  }
  return results;
}
