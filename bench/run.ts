// deno-lint-ignore-file no-console
/**
 * The benchmark suite: HTTP throughput over loopback against a server in its
 * own process, large text and byte bodies over the same loopback, the
 * start-up of a process that makes one GET, in-process
 * call overhead, the heap after many grabs and what a settled grab still
 * holds, the JSON:API denormaliser, Server-Sent Events parsing, and bundle
 * sizes.
 * Prints the tables and the targets, and writes `bench/RESULTS.md`.
 *
 * Run: deno task bench (add `-- --quick` for a short smoke run, or
 * `-- --only=loopback,bodies,startup,inproc,memory,denormalise,sse,bundle` for some
 * sections, and `-- --no-write` to print without writing the file). Each run
 * rewrites the whole file from the sections it ran.
 *
 * @module
 */

import os from "node:os";
import {
  type BodiesResults,
  BODY_BASELINE,
  BODY_CASES,
  BODY_NAMES,
  bodyFloor,
  runBodies,
} from "./_bodies.ts";
import {
  type BundleResults,
  ESBUILD_VERSION,
  JSON_ONLY,
  runBundles,
  WHOLE_API,
} from "./_bundle.ts";
import {
  DENORMALISE_NAMES,
  type DenormaliseResults,
  runDenormalise,
} from "./_denormalise.ts";
import {
  checkClients,
  CLIENT_NAMES,
  compareAlternating,
  compareInTurns,
  type Comparison,
  CUSTOM_FETCH_NAMES,
  fakeFetch,
  makeClients,
  pairedRatio,
  timeCalls,
  timeGets,
} from "./_http.ts";
import {
  MEMORY_CLIENTS,
  MEMORY_MODES,
  type MemoryResults,
  runMemory,
} from "./_memory.ts";
import { fromFileUrl } from "./_path.ts";
import { BODY_TEXT, CHUNK_BYTES, LARGE_SIZES } from "./_server.ts";
import { startServer } from "./_spawn.ts";
import {
  EVENTSOURCE_PARSER_VERSION,
  runSse,
  SSE_NAMES,
  type SseResults,
  STD_HTTP_VERSION,
} from "./_sse.ts";
import { count, median, ms, ratio, table } from "./_stats.ts";
import { runStartup, STARTUP_NAMES, type StartupResults } from "./_startup.ts";

const args = new Set(Deno.args);
const quick = args.has("--quick");
const onlyArg = Deno.args.find((a) => a.startsWith("--only="));
const only = onlyArg === undefined
  ? undefined
  : new Set(onlyArg.slice("--only=".length).split(","));
const wants = (section: string) => only === undefined || only.has(section);

const ROUNDS = quick ? 3 : 7;
/** Start-ups per client: each is one process, some 50 ms. */
const STARTUP_ROUNDS = quick ? 3 : 15;
const SEQUENTIAL = quick ? 300 : 3_000;
const CONCURRENT = quick ? 1_000 : 10_000;
const IN_FLIGHT = 64;
/** The turns a round of GETs in flight is cut into (1,000 GETs a turn). */
const CONCURRENT_TURNS = quick ? 1 : 10;
/**
 * Sequential GETs per body read per round: 64 MiB of 64 KiB bodies, 256 MiB
 * of 1 MiB ones (an eighth when quick).
 */
const bodyGets = (bytes: number) =>
  (bytes >= 1024 * 1024 ? 256 : 1_024) / (quick ? 8 : 1);
const INPROC_CALLS = quick ? 1_000 : 10_000;
/** The turns a round of in-process calls is cut into (1,000 calls a turn). */
const INPROC_TURNS = quick ? 1 : 10;
const SIZES = quick ? [100, 1_000, 10_000] : [100, 1_000, 10_000, 100_000];
const DENORM_CAP_MS = 5_000;
const denormRuns = (n: number) => quick ? 3 : n >= 100_000 ? 5 : 7;
const MEMORY_WARMUP = 500;
const MEMORY_GRABS = 10_000;
const MEMORY_CHECKPOINTS = {
  loopback: [quick ? 2_000 : MEMORY_GRABS],
  stub: quick ? [MEMORY_GRABS] : [MEMORY_GRABS, 50_000, 200_000],
};
const MEMORY_REPEATS = quick ? 1 : 3;
const MEMORY_WATCHED = 100;
/** The memory goal: within 1 MB (10^6 bytes) of the starting heap. */
const MEMORY_LIMIT = 1_000_000;
/** About 50 MB of small events (10^6 bytes a MB). */
const SSE_BYTES = 50_000_000;
const JSON_ONLY_LIMIT = 5_000;
const WHOLE_API_LIMIT = 9_000;

const started = performance.now();
const startedAt = new Date();
const log = (line: string) => console.log(line);
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(0)} s`;

// ---------------------------------------------------------------- machine --

async function machine(): Promise<Record<string, string>> {
  // Deno lets only --allow-all read /proc/cpuinfo, so ask cat for it, and
  // fall back to node:os (which reads the same field).
  let cpu = "unknown";
  try {
    const out = await new Deno.Command("cat", {
      args: ["/proc/cpuinfo"],
      stdout: "piped",
      stderr: "null",
    }).output();
    const info = new TextDecoder().decode(out.stdout);
    cpu = /^model name\s*:\s*(.+)$/m.exec(info)?.[1]?.trim() ?? cpu;
  } catch {
    // Not Linux.
  }
  if (cpu === "unknown") {
    try {
      cpu = os.cpus()[0]?.model ?? cpu;
    } catch {
      // No --allow-sys.
    }
  }
  let load = "n/a";
  try {
    load = Deno.loadavg().map((l) => l.toFixed(2)).join(", ");
  } catch {
    // No --allow-sys.
  }
  return {
    "CPU": cpu,
    "Logical cores": String(navigator.hardwareConcurrency),
    "Deno": `${Deno.version.deno} (V8 ${Deno.version.v8})`,
    "OS": `${Deno.build.os} ${Deno.build.arch}`,
    "Date": startedAt.toISOString(),
    "Load average at start (1, 5, 15 min)": load,
  };
}

// --------------------------------------------------------------- sections --

interface HttpResults {
  sequential?: Comparison;
  concurrent?: Comparison;
  inProcess?: Comparison;
}

async function runLoopback(results: HttpResults): Promise<void> {
  const server = await startServer();
  try {
    log(`Loopback server: ${server.base} (separate process)`);
    const clients = makeClients(server.base);
    await checkClients(clients);
    log(`Sequential: ${count(SEQUENTIAL)} GETs x ${ROUNDS} rounds`);
    results.sequential = await compareAlternating(
      clients,
      ROUNDS,
      SEQUENTIAL,
      (r) => log(`  round ${r}/${ROUNDS} (${elapsed()})`),
    );
    log(
      `Concurrent: ${
        count(CONCURRENT)
      } GETs, ${IN_FLIGHT} in flight x ${ROUNDS} rounds`,
    );
    results.concurrent = await compareInTurns(
      clients,
      ROUNDS,
      CONCURRENT_TURNS,
      (c) => timeGets(c, CONCURRENT / CONCURRENT_TURNS, IN_FLIGHT),
      (r) => log(`  round ${r}/${ROUNDS} (${elapsed()})`),
    );
  } finally {
    await server.stop();
    log("Loopback server stopped");
  }
}

async function runLoopbackBodies(): Promise<BodiesResults> {
  const server = await startServer();
  try {
    log(`Loopback server: ${server.base} (separate process)`);
    return await runBodies({
      base: server.base,
      rounds: ROUNDS,
      requests: bodyGets,
      log: (line) => log(`${line} (${elapsed()})`),
    });
  } finally {
    await server.stop();
    log("Loopback server stopped");
  }
}

async function runInProcess(results: HttpResults): Promise<void> {
  const clients = makeClients("http://127.0.0.1:9", fakeFetch);
  await checkClients(clients);
  log(`In process: ${count(INPROC_CALLS)} calls x ${ROUNDS} rounds`);
  results.inProcess = await compareInTurns(
    clients,
    ROUNDS,
    INPROC_TURNS,
    (c) => timeCalls(c, INPROC_CALLS / INPROC_TURNS),
    (r) => log(`  round ${r}/${ROUNDS} (${elapsed()})`),
  );
}

// ---------------------------------------------------------------- reports --

/** A range of ratios: `0.78–0.85×`. */
function range([lo, hi]: readonly [number, number]): string {
  return `${lo.toFixed(2)}–${hi.toFixed(2)}×`;
}

/** Throughput ratios are the inverse of time ratios, so is their range. */
function inverse([lo, hi]: readonly [number, number]): [number, number] {
  return [1 / hi, 1 / lo];
}

/**
 * `name` ÷ `baseline`, paired round by round, with the range over rounds:
 * `0.97× (0.95–0.99×)`; a throughput ratio (req/s) when `throughput`, else
 * a time ratio.
 */
function pairedCell(
  c: Comparison,
  name: string,
  baseline: string,
  throughput: boolean,
): string {
  const p = pairedRatio(c, name, baseline);
  if (!Number.isFinite(p.ratio)) return "n/a";
  return throughput
    ? `${ratio(1 / p.ratio)} (${range(inverse(p.range))})`
    : `${ratio(p.ratio)} (${range(p.range)})`;
}

function throughputTable(c: Comparison, total: number): string {
  return table(
    [
      "client",
      "median req/s",
      "median time",
      "req/s ÷ raw",
      `spread over ${c.rounds} rounds`,
      "req/s ÷ raw+timeout (spread)",
    ],
    CLIENT_NAMES.map((name) => [
      name,
      count(total / (c.medianMs[name]! / 1000)),
      ms(c.medianMs[name]!),
      ratio(1 / c.ratioToRaw[name]!),
      range(inverse(c.ratioRange[name]!)),
      pairedCell(c, name, "raw+timeout", true),
    ]),
  );
}

function bodiesTable(r: BodiesResults): string {
  const rows: string[][] = [];
  for (const { case: c, requests, comparison } of r.cases) {
    for (const name of BODY_NAMES) {
      const t = comparison.medianMs[name]! / 1000;
      rows.push([
        c.name,
        name,
        count(requests),
        count(requests / t),
        (requests * c.bytes / 1e6 / t).toFixed(0),
        ms(comparison.medianMs[name]!),
        ratio(1 / comparison.ratioToRaw[name]!),
        range(inverse(comparison.ratioRange[name]!)),
        bodyFloor(c, name),
        pairedCell(comparison, name, bodyFloor(c, name), true),
      ]);
    }
  }
  return table(
    [
      "body",
      "read",
      "GETs per round",
      "median req/s",
      "MB/s",
      "median time",
      "req/s ÷ raw",
      `spread over ${r.rounds} rounds`,
      "floor",
      "req/s ÷ floor (spread)",
    ],
    rows,
  );
}

function overheadTable(c: Comparison, calls: number): string {
  return table(
    [
      "client",
      "median µs/call",
      "time ÷ raw",
      `spread over ${c.rounds} rounds`,
      "time ÷ raw+timeout (spread)",
      "time ÷ raw-stream (spread)",
    ],
    CUSTOM_FETCH_NAMES.map((name) => [
      name,
      (c.medianMs[name]! * 1000 / calls).toFixed(2),
      ratio(c.ratioToRaw[name]!),
      range(c.ratioRange[name]!),
      pairedCell(c, name, "raw+timeout", false),
      pairedCell(c, name, "raw-stream", false),
    ]),
  );
}

function denormaliseTable(d: DenormaliseResults): string {
  const header = ["contender"];
  for (const n of d.sizes) header.push(`N=${count(n)}`);
  const notes: string[] = [];
  const rows = DENORMALISE_NAMES.map((name) => {
    const row = [name];
    for (const n of d.sizes) {
      const cell = d.cells[n]?.[name];
      if (cell === undefined) row.push("—");
      else if ("skipped" in cell) {
        if (cell.skipped.startsWith("n/a")) row.push("n/a");
        else {
          row.push("skipped");
          notes.push(`${name}: ${cell.skipped}`);
        }
      } else if (name === "JSON.parse") row.push(`${ms(cell.ms)} (1.00×)`);
      else {
        row.push(
          `${ms(cell.ms)} (${ratio(cell.ratio)}; ${range(cell.ratioRange)})`,
        );
      }
    }
    return row;
  });
  rows.push(["text size", ...d.sizes.map((n) => kb(d.textBytes[n]!))]);
  const naNotes = new Set<string>();
  for (const n of d.sizes) {
    for (const [name, cell] of Object.entries(d.cells[n] ?? {})) {
      if ("skipped" in cell && cell.skipped.startsWith("n/a")) {
        naNotes.add(`${name}: ${cell.skipped}`);
      }
    }
  }
  const exponents = Object.entries(d.grabExponent).map(([name, e]) =>
    `${name} ${e.toFixed(3)}`
  ).join(", ");
  notes.push(
    "Each cell: median time (median ÷ JSON.parse median; lowest–highest ratio of one run to JSON.parse in the same run).",
    `Scaling exponent (least-squares slope of log time against log N over the measured sizes; 1.000 = linear): ${exponents}`,
  );
  return [
    table(header, rows),
    "",
    ...[...naNotes, ...notes].map((n) => `- ${n}`),
  ].join("\n");
}

function startupTable(r: StartupResults): string {
  return table(
    [
      "client",
      "median start-up",
      "÷ raw",
      `spread over ${r.rounds} rounds`,
      "more than raw",
    ],
    STARTUP_NAMES.map((name) => [
      name,
      ms(r.ms[name]!),
      ratio(r.ratio[name]!.median),
      range([r.ratio[name]!.low, r.ratio[name]!.high]),
      name === "raw" ? "" : ms(r.ms[name]! - r.ms.raw!),
    ]),
  );
}

function sseTable(r: SseResults): string {
  const mb = r.bytes / 1e6;
  return table(
    [
      "parser",
      "median time",
      "MB/s",
      "events/s",
      "time ÷ grab",
      `spread over ${r.rounds} rounds`,
    ],
    SSE_NAMES.map((name) => {
      const t = r.medianMs[name]!;
      return [
        name,
        ms(t),
        (mb / (t / 1000)).toFixed(0),
        count(r.events / (t / 1000)),
        ratio(r.ratioToGrab[name]!),
        range(r.ratioRange[name]!),
      ];
    }),
  );
}

/** The peer that was fastest (least time ÷ grab), and that ratio. */
function fastestPeer(r: SseResults): [string, number] {
  let best: [string, number] = ["", Infinity];
  for (const name of SSE_NAMES) {
    if (name === "grab") continue;
    const value = r.ratioToGrab[name]!;
    if (value < best[1]) best = [name, value];
  }
  return best;
}

function kb(bytes: number): string {
  return bytes >= 1_000_000
    ? `${(bytes / 1_000_000).toFixed(1)} MB`
    : `${(bytes / 1000).toFixed(1)} KB`;
}

function bytes(value: number): string {
  return `${count(value)} B`;
}

/** A heap difference in KB (1 KB = 1,000 B), with its sign. */
function signedKb(value: number): string {
  const sign = value < 0 ? "−" : "+";
  return `${sign}${(Math.abs(value) / 1000).toFixed(1)} KB`;
}

const GOALS: Record<string, number> = {
  [JSON_ONLY]: JSON_ONLY_LIMIT,
  [WHOLE_API]: WHOLE_API_LIMIT,
};

function bundleTable(b: BundleResults): string {
  const rows = b.sizes.map((s) => {
    if ("failed" in s) return [s.name, "—", "—", s.failed, "n/a", "", ""];
    const goal = GOALS[s.name];
    return [
      s.name,
      s.name === JSON_ONLY ? "entry + static imports" : "all chunks",
      String(s.chunks),
      bytes(s.minBytes),
      bytes(s.gzipBytes),
      goal === undefined
        ? ""
        : `≤ ${bytes(goal)}: ${s.gzipBytes <= goal ? "met" : "NOT MET"}`,
      s.lazy === undefined
        ? "—"
        : `${s.lazy.chunks} (${bytes(s.lazy.minBytes)} min, ${
          bytes(s.lazy.gzipBytes)
        } gz)`,
    ];
  });
  const notes: string[] = [];
  for (const s of b.sizes) {
    if ("failed" in s || !s.name.startsWith("grab")) continue;
    notes.push(
      `${s.name}: largest sources in the counted chunks (minified bytes): ${
        s.topInputs.map((i) => `${i.path} ${count(i.bytes)}`).join(", ")
      }; \`src/jsonapi/\` in total ${bytes(s.jsonApiBytes)}.`,
    );
  }
  const exported = Object.entries(b.exportsByEntry).map(([key, names]) =>
    `"${key}": ${names.join(", ")}`
  ).join("; ");
  notes.push(`Whole public API entry imports and uses: ${exported}.`);
  return [
    table(
      [
        "bundle",
        "counted",
        "chunks",
        "min",
        "min+gz",
        "goal",
        "dynamic-only chunks (not counted)",
      ],
      rows,
    ),
    "",
    ...notes.map((n) => `- ${n}`),
  ].join("\n");
}

/** `median (lo … hi)` of one checkpoint over the processes. */
function growthCell(values: readonly number[]): string {
  if (values.length === 0) return "n/a";
  const m = signedKb(median(values));
  if (values.length === 1) return m;
  return `${m} (${signedKb(Math.min(...values))} … ${
    signedKb(Math.max(...values))
  })`;
}

function memoryTables(m: MemoryResults): string {
  const checkpoints = [
    ...new Set(MEMORY_MODES.flatMap((mode) => m.checkpoints[mode])),
  ].sort((a, b) => a - b);
  const rows: string[][] = [];
  for (const mode of MEMORY_MODES) {
    for (const client of MEMORY_CLIENTS) {
      const runs = m.growth[mode][client];
      rows.push([
        mode === "loopback" ? "loopback server" : "stub fetch",
        client,
        ...checkpoints.map((cp) => {
          const at = m.checkpoints[mode].indexOf(cp);
          if (m.failed[mode] !== undefined) return "failed";
          return at < 0 ? "—" : growthCell(runs.map((r) => r[at]!));
        }),
      ]);
    }
  }
  const kinds = Object.keys(m.retention.loopback).length > 0
    ? Object.keys(m.retention.loopback)
    : Object.keys(m.retention.stub);
  const survivors = (mode: (typeof MEMORY_MODES)[number], kind: string) => {
    const s = m.retention[mode][kind];
    return s === undefined
      ? "n/a"
      : `${s.alive} of ${s.of} (${s.finalised} finalised)`;
  };
  const what: Record<string, string> = {
    options: "the options object",
    body: "the body object",
    controller: "the AbortController",
    signal: "its signal (passed as `signal`)",
    data: "the parsed data of the result",
    control: "control: an object the caller keeps",
  };
  const failures = MEMORY_MODES.filter((mode) => m.failed[mode] !== undefined)
    .map((mode) => `- ${mode}: failed: ${m.failed[mode]}`);
  return [
    table(
      [
        "fetch",
        "client",
        ...checkpoints.map((cp) => `heap after ${count(cp)} grabs`),
      ],
      rows,
    ),
    "",
    `- Heap growth: \`heapUsed\` after the grabs and full collections, minus \`heapUsed\` after ${
      count(m.warmup)
    } warm-up grabs and full collections; median over ${m.repeats} process${
      m.repeats === 1 ? "" : "es"
    } (lowest … highest).`,
    "- raw: `fetch` + `res.json()`; raw-stream: `fetch`, `res.body.getReader()` read to the end with a `TextDecoder`, `JSON.parse` (grab's path for a body from a custom `fetch`, as with the stub).",
    ...failures,
    "",
    `Still reachable after ${m.watched} \`POST /item/:id\` grabs settled and the caller dropped them, then full collections (the most over the processes):`,
    "",
    table(
      ["caller's object", "loopback server", "stub fetch"],
      kinds.map((kind) => [
        what[kind] ?? kind,
        survivors("loopback", kind),
        survivors("stub", kind),
      ]),
    ),
  ].join("\n");
}

interface Target {
  name: string;
  want: string;
  got: string;
  /** `"info"`: a figure shown for reference, with no goal. */
  met: boolean | "info" | undefined;
}

/** Adds targets to `list`; `ok` is `null` for a figure with no goal. */
function adder(list: Target[]) {
  return (
    name: string,
    want: string,
    value: number | undefined,
    ok: ((v: number) => boolean) | null,
    show: (v: number) => string,
  ) =>
    list.push({
      name,
      want,
      got: value === undefined || !Number.isFinite(value)
        ? "not measured"
        : show(value),
      met: value === undefined || !Number.isFinite(value)
        ? undefined
        : ok === null
        ? "info"
        : ok(value),
    });
}

/**
 * The informational rows on the floors: grab ÷ each floor, wanted as grab ÷
 * raw is, and each floor's own ratio to raw, with no goal.
 */
function floorTargets(
  add: ReturnType<typeof adder>,
  http: HttpResults,
  bodies: BodiesResults | undefined,
): void {
  // Throughput: req/s ÷ baseline is the inverse of the time ratio.
  const tput = (c: Comparison | undefined, name: string, base: string) => {
    const p = c === undefined ? undefined : pairedRatio(c, name, base);
    return {
      value: p === undefined ? undefined : 1 / p.ratio,
      show: (v: number) => `${ratio(v)} (rounds ${range(inverse(p!.range))})`,
    };
  };
  const time = (c: Comparison | undefined, name: string, base: string) => {
    const p = c === undefined ? undefined : pairedRatio(c, name, base);
    return {
      value: p?.ratio,
      show: (v: number) => `${ratio(v)} (rounds ${range(p!.range)})`,
    };
  };
  const loopback: [string, Comparison | undefined][] = [
    ["Loopback sequential", http.sequential],
    [`Loopback ${IN_FLIGHT} in flight`, http.concurrent],
  ];
  for (const [label, c] of loopback) {
    const grab = tput(c, "grab", "raw+timeout");
    add(
      `${label}, grab req/s ÷ raw+timeout (the floor with a timeout signal and an \`accept\` header)`,
      "≥ 0.95×",
      grab.value,
      (v) => v >= 0.95,
      grab.show,
    );
    const floor = tput(c, "raw+timeout", "raw");
    add(
      `${label}, raw+timeout req/s ÷ raw`,
      "—",
      floor.value,
      null,
      floor.show,
    );
    for (const [peer, what] of PEERS_TO_LEAD) {
      const lead = tput(c, "grab", peer);
      add(
        `${label}, grab req/s ÷ ${peer} (${what})`,
        "≥ 1.00×",
        lead.value,
        (v) => v >= 1,
        lead.show,
      );
    }
  }
  for (const bodyCase of BODY_CASES.filter((c) => c.chunked)) {
    const cmp = bodies?.cases.find((c) => c.case === bodyCase)?.comparison;
    for (const read of ["text", "bytes"]) {
      const loop = `raw reader loop ${read}`;
      const grab = tput(cmp, `grab ${read}`, loop);
      add(
        `Body over loopback, ${bodyCase.name}: grab ${read} ÷ ${loop} (the floor of a capped read without a length), req/s`,
        "≥ 0.95×",
        grab.value,
        (v) => v >= 0.95,
        grab.show,
      );
      const raw = BODY_BASELINE[loop]!;
      const floor = tput(cmp, loop, raw);
      add(
        `Body over loopback, ${bodyCase.name}: ${loop} ÷ ${raw}, req/s`,
        "—",
        floor.value,
        null,
        floor.show,
      );
    }
  }
  const floors: [string, string][] = [
    ["raw+timeout", "the floor with a timeout signal and an `accept` header"],
    ["raw-stream", "the floor for a custom `fetch`: a capped reader loop"],
  ];
  for (const [floor, what] of floors) {
    const grab = time(http.inProcess, "grab", floor);
    add(
      `In-process overhead, grab time ÷ ${floor} (${what})`,
      "≤ 1.25×",
      grab.value,
      (v) => v <= 1.25,
      grab.show,
    );
  }
  for (const [floor] of floors) {
    const own = time(http.inProcess, floor, "raw");
    add(`In-process, ${floor} time ÷ raw`, "—", own.value, null, own.show);
  }
  for (const [peer, what] of PEERS_TO_LEAD) {
    const lead = time(http.inProcess, "grab", peer);
    add(
      `In-process overhead, grab time ÷ ${peer} (${what})`,
      "≤ 1.00×",
      lead.value,
      (v) => v <= 1,
      lead.show,
    );
  }
}

/** The peer to be ahead of, as it is by default and with grab's timeout. */
const PEERS_TO_LEAD: readonly [string, string][] = [
  ["ofetch", "its defaults: no timeout"],
  ["ofetch+timeout", "with grab's default 30 s `timeout`"],
];

function targets(
  http: HttpResults,
  bodies: BodiesResults | undefined,
  d: DenormaliseResults | undefined,
  b: BundleResults | undefined,
  m: MemoryResults | undefined,
  sse: SseResults | undefined,
): { goals: Target[]; further: Target[] } {
  const goals: Target[] = [];
  const further: Target[] = [];
  const add = adder(goals);
  const tput = (c: Comparison | undefined) =>
    c === undefined ? undefined : 1 / c.ratioToRaw["grab"]!;
  const tputShow = (c: Comparison | undefined) => (v: number) =>
    `${ratio(v)} (rounds ${range(inverse(c!.ratioRange["grab"]!))})`;
  add(
    "Loopback sequential, grab req/s ÷ raw",
    "≥ 0.95×",
    tput(http.sequential),
    (v) => v >= 0.95,
    tputShow(http.sequential),
  );
  add(
    `Loopback ${IN_FLIGHT} in flight, grab req/s ÷ raw`,
    "≥ 0.95×",
    tput(http.concurrent),
    (v) => v >= 0.95,
    tputShow(http.concurrent),
  );
  for (const bodyCase of BODY_CASES) {
    const cmp = bodies?.cases.find((c) => c.case === bodyCase)?.comparison;
    for (const [read, raw] of [["text", ".text()"], ["bytes", ".bytes()"]]) {
      const name = `grab ${read}`;
      add(
        `Body over loopback, ${bodyCase.name}: ${read} read ÷ raw ${raw}, req/s`,
        "≥ 0.95×",
        cmp === undefined ? undefined : 1 / cmp.ratioToRaw[name]!,
        (v) => v >= 0.95,
        (v) => `${ratio(v)} (rounds ${range(inverse(cmp!.ratioRange[name]!))})`,
      );
    }
  }
  add(
    "In-process overhead, grab time ÷ raw",
    "≤ 1.25×",
    http.inProcess?.ratioToRaw["grab"],
    (v) => v <= 1.25,
    (v) => `${ratio(v)} (rounds ${range(http.inProcess!.ratioRange["grab"]!)})`,
  );
  const size = (name: string) => {
    const s = b?.sizes.find((x) => x.name === name);
    return s === undefined || "failed" in s ? undefined : s.gzipBytes;
  };
  add(
    "Bundle, JSON-only user (entry + static imports), min+gz",
    `≤ ${bytes(JSON_ONLY_LIMIT)}`,
    size(JSON_ONLY),
    (v) => v <= JSON_ONLY_LIMIT,
    bytes,
  );
  add(
    "Bundle, whole public API (all chunks), min+gz",
    `≤ ${bytes(WHOLE_API_LIMIT)}`,
    size(WHOLE_API),
    (v) => v <= WHOLE_API_LIMIT,
    bytes,
  );
  const cell = (name: string) => {
    const c = d?.cells[10_000]?.[name];
    return c === undefined || "skipped" in c ? undefined : c;
  };
  add(
    "denormalise N=10,000 ÷ JSON.parse",
    "≤ 0.50×",
    cell("grab")?.ratio,
    (v) => v <= 0.5,
    (v) => `${ratio(v)} (runs ${range(cell("grab")!.ratioRange)})`,
  );
  for (const mode of MEMORY_MODES) {
    const runs = m?.growth[mode].grab ?? [];
    const values = runs.map((r) => r[0]!);
    add(
      `Heap after ${
        count(m?.checkpoints[mode][0] ?? MEMORY_GRABS)
      } sequential grabs, ${
        mode === "loopback" ? "loopback server" : "stub fetch"
      } (median of ${runs.length} process${runs.length === 1 ? "" : "es"})`,
      "within 1 MB",
      values.length === 0 ? undefined : median(values),
      (v) => Math.abs(v) <= MEMORY_LIMIT,
      () => growthCell(values),
    );
  }
  // Every watched object but the control must be gone; the control must
  // survive, or the method saw nothing.
  let alive: number | undefined;
  let watched = 0;
  if (m !== undefined) {
    alive = 0;
    for (const mode of MEMORY_MODES) {
      const r = m.retention[mode];
      if (r.control === undefined || r.control.alive !== r.control.of) {
        alive = undefined;
        break;
      }
      for (const [kind, s] of Object.entries(r)) {
        if (kind === "control") continue;
        alive += s.alive;
        watched += s.of;
      }
    }
  }
  add(
    "A settled grab holds none of the caller's objects (options, body, controller, signal, result data; loopback and stub)",
    "0 reachable",
    alive,
    (v) => v === 0,
    (v) => `${count(v)} of ${count(watched)} reachable`,
  );
  const peer = sse === undefined ? undefined : fastestPeer(sse);
  add(
    "SSE parsing, 50 MB of small events: grab ≥ the fastest peer (fastest peer's time ÷ grab's)",
    "≥ 1.00×",
    peer?.[1],
    (v) => v >= 1,
    (v) =>
      `${ratio(v)} (${peer![0]}; rounds ${range(sse!.ratioRange[peer![0]]!)})`,
  );
  const addFurther = adder(further);
  floorTargets(addFurther, http, bodies);
  addFurther(
    "denormalise N=10,000 camelCase ÷ JSON.parse",
    "≤ 1.00×",
    cell("grab camelCase")?.ratio,
    (v) => v <= 1,
    ratio,
  );
  const exponent = d?.grabExponent["grab"];
  addFurther(
    `denormalise scaling exponent, N=${count(SIZES[0]!)}…${
      count(SIZES.at(-1)!)
    }`,
    "≤ 1.05",
    exponent,
    (v) => v <= 1.05,
    (v) => `${v.toFixed(3)} (per-resource slope ${(v - 1).toFixed(3)})`,
  );
  // JSON.parse of the same documents grows faster than linearly too: the
  // heap's growth (its collection) is in both.
  const parse = d?.grabExponent["JSON.parse"];
  addFurther(
    `denormalise scaling exponent − JSON.parse's over the same sizes (what the denormaliser adds to the heap's own growth)`,
    "≤ 0.05",
    exponent === undefined || parse === undefined
      ? undefined
      : exponent - parse,
    (v) => v <= 0.05,
    (v) =>
      `${v >= 0 ? "+" : "−"}${Math.abs(v).toFixed(3)} (JSON.parse ${
        parse!.toFixed(3)
      })`,
  );
  return { goals, further };
}

function targetTable(list: Target[]): string {
  return table(
    ["target", "wanted", "measured", "status"],
    list.map((t) => [
      t.name,
      t.want,
      t.got,
      t.met === undefined
        ? "not measured"
        : t.met === "info"
        ? "—"
        : t.met
        ? "MET"
        : "NOT MET",
    ]),
  );
}

/** Where the time of the body reads that miss their goal goes. */
function bodyNotes(r: BodiesResults): string[] {
  const notes: string[] = [];
  const misses = (c: BodiesResults["cases"][number]) =>
    (["grab text", "grab bytes"] as const).filter((name) =>
      1 / c.comparison.ratioToRaw[name]! < 0.95
    );
  const extra = (c: BodiesResults["cases"][number], name: string) => {
    const m = c.comparison.medianMs;
    const raw = m[BODY_BASELINE[name]!]!;
    const us = (t: number) => `${(t * 1000 / c.requests).toFixed(0)} µs`;
    return `${name} ${us(m[name]!)} per GET, ${BODY_BASELINE[name]} ${us(raw)}`;
  };
  const framed = r.cases.filter((c) => !c.case.chunked && misses(c).length);
  if (framed.length > 0) {
    notes.push(
      `- Bodies with a \`Content-Length\` (${
        framed.map((c) =>
          `${c.case.name}: ${misses(c).map((n) => extra(c, n)).join(", ")}`
        ).join("; ")
      }): under the cap grab reads them as raw does, in one call (\`response.text()\`, or \`response.bytes()\` for bytes; \`readBody\` in \`src/body.ts\`), so the difference is the per-request cost of the loopback rows (options, request encoding, the deadline's signal, reading the headers, the result and its meta), which weighs less as the body grows.`,
    );
  }
  const chunked = r.cases.filter((c) => c.case.chunked && misses(c).length);
  if (chunked.length > 0) {
    notes.push(
      `- Bodies without a length (${
        chunked.map((c) =>
          `${c.case.name}: ${misses(c).map((n) => extra(c, n)).join(", ")}`
        ).join("; ")
      }): with a cap (64 MiB by default) the platform's one-call read could buffer past it, so \`readBody\` (\`src/body.ts\`) reads \`response.body\` chunk by chunk with a reader and counts the bytes (\`readStream\`); the chunks are kept and joined into one array at the end (\`Gathered\`, \`concat\`), and text is decoded from it in one call. Raw reads the whole body in one call, with no chunk loop and no copy; the raw reader loop rows do that chunk loop, count and join with nothing else, the floor of any capped read of such a body.`,
    );
  }
  return notes;
}

/** What the measurements say about each missed goal. */
function missNotes(
  goals: Target[],
  bodies: BodiesResults | undefined,
  b: BundleResults | undefined,
  m: MemoryResults | undefined,
  sse: SseResults | undefined,
): string[] {
  const missed = (prefix: string) =>
    goals.some((t) => t.name.startsWith(prefix) && t.met === false);
  const notes: string[] = [];
  if (missed("Loopback") || missed("In-process")) {
    notes.push(
      '- HTTP: with its defaults a grab resolves and checks its options, encodes the request, arms its 30 s deadline (a timeout signal shared with the grabs that start within the same 15 ms, `src/deadline.ts`), passes a signal and an `accept` header to `fetch`, reads the body under the size cap and builds the tuple and its meta; raw does none of this. The floor rows under "Further checks" show what the promised parts cost any client on their own (raw+timeout: the shared timeout signal and the `accept` header; raw-stream: a capped reader loop, as a custom `fetch`\'s body needs) and grab against them. `deno task bench:breakdown` times these steps against raw in one run.',
    );
  }
  if (bodies !== undefined && missed("Body")) notes.push(...bodyNotes(bodies));
  for (const name of [JSON_ONLY, WHOLE_API]) {
    const s = b?.sizes.find((x) => x.name === name);
    if (s === undefined || "failed" in s) continue;
    const goal = GOALS[name]!;
    if (s.gzipBytes <= goal) continue;
    notes.push(
      `- ${name}: ${bytes(s.gzipBytes)} gzipped, ${
        bytes(s.gzipBytes - goal)
      } over; ${
        bytes(s.minBytes)
      } minified in ${s.chunks} chunks, of which \`src/jsonapi/\` ${
        bytes(s.jsonApiBytes)
      }${
        s.lazy === undefined
          ? ""
          : ` (the dynamic-only chunks, ${
            bytes(s.lazy.gzipBytes)
          } gzipped, are not counted)`
      }. Largest sources: ${
        s.topInputs.slice(0, 5).map((i) => `${i.path} ${count(i.bytes)} B`)
          .join(", ")
      }.`,
    );
  }
  if (m !== undefined) {
    for (const mode of MEMORY_MODES) {
      const first = (client: (typeof MEMORY_CLIENTS)[number]) => {
        const values = m.growth[mode][client].map((r) => r[0]!);
        return values.length === 0 ? "n/a" : signedKb(median(values));
      };
      const grab = m.growth[mode].grab.map((r) => r[0]!);
      if (grab.length === 0 || Math.abs(median(grab)) <= MEMORY_LIMIT) {
        continue;
      }
      notes.push(
        `- Heap, ${mode}: grab ${first("grab")}, raw ${
          first("raw")
        }, raw-stream ${first("raw-stream")} over the same number of requests.`,
      );
    }
  }
  if (sse !== undefined && missed("SSE")) {
    const [name, value] = fastestPeer(sse);
    notes.push(
      `- SSE: ${name} took ${ms(sse.medianMs[name]!)}, grab ${
        ms(sse.medianMs["grab"]!)
      } (${
        ratio(value)
      }); both decode with a \`TextDecoder\` and split lines with \`indexOf\`; grab also counts each event's bytes against its cap (\`src/sse.ts\`).`,
    );
  }
  return notes.length > 0 ? notes : ["- Every goal measured is met."];
}

// ------------------------------------------------------------------- main --

const info = await machine();
const http: HttpResults = {};
let denorm: DenormaliseResults | undefined;
let bundles: BundleResults | undefined;
let memory: MemoryResults | undefined;
let sse: SseResults | undefined;
let bodies: BodiesResults | undefined;
let startup: StartupResults | undefined;

log(`grab benchmark suite${quick ? " (quick)" : ""}`);
for (const [k, v] of Object.entries(info)) log(`  ${k}: ${v}`);

if (wants("loopback")) await runLoopback(http);
if (wants("bodies")) bodies = await runLoopbackBodies();
if (wants("startup")) {
  const server = await startServer();
  try {
    log(`Start-up: ${STARTUP_ROUNDS} processes per client`);
    startup = await runStartup(
      server.base,
      STARTUP_ROUNDS,
      (r) => log(`  round ${r}/${STARTUP_ROUNDS} (${elapsed()})`),
    );
  } finally {
    await server.stop();
  }
}
if (wants("inproc")) await runInProcess(http);
if (wants("memory")) {
  log(
    `Memory: ${
      count(MEMORY_GRABS)
    } sequential grabs per process, ${MEMORY_REPEATS} processes per client`,
  );
  memory = await runMemory({
    warmup: MEMORY_WARMUP,
    checkpoints: MEMORY_CHECKPOINTS,
    repeats: MEMORY_REPEATS,
    watched: MEMORY_WATCHED,
    log: (line) => log(`${line} (${elapsed()})`),
  });
}
if (wants("denormalise")) {
  log(`Denormalise: N = ${SIZES.map(count).join(", ")}`);
  denorm = await runDenormalise({
    sizes: SIZES,
    runs: denormRuns,
    capMs: DENORM_CAP_MS,
    log,
  });
}
if (wants("sse")) {
  log(`SSE parsing: ${(SSE_BYTES / 1e6).toFixed(0)} MB x ${ROUNDS} rounds`);
  sse = await runSse({ bytes: SSE_BYTES, rounds: ROUNDS, log });
}
if (wants("bundle")) {
  log("Bundles");
  bundles = await runBundles(log);
}

let loadEnd = "n/a";
try {
  loadEnd = Deno.loadavg().map((l) => l.toFixed(2)).join(", ");
} catch {
  // No --allow-sys.
}
info["Load average at end (1, 5, 15 min)"] = loadEnd;
info["Total run time"] = elapsed();

const sections: string[] = [];
const { goals, further } = targets(
  http,
  bodies,
  denorm,
  bundles,
  memory,
  sse,
);
sections.push(
  "### Targets (the goals of the performance issue)",
  "",
  targetTable(goals),
  "",
  "Further checks (not goals of the issue):",
  "",
  targetTable(further),
  "",
  "### Where the misses come from",
  "",
  ...missNotes(goals, bodies, bundles, memory, sse),
);
if (http.sequential) {
  sections.push(
    "",
    `### Loopback, sequential (${count(SEQUENTIAL)} GETs per client per round)`,
    "",
    throughputTable(http.sequential, SEQUENTIAL),
  );
}
if (http.concurrent) {
  sections.push(
    "",
    `### Loopback, ${IN_FLIGHT} in flight (${
      count(CONCURRENT)
    } GETs per client per round)`,
    "",
    throughputTable(http.concurrent, CONCURRENT),
  );
}
if (bodies) {
  sections.push(
    "",
    "### Loopback bodies, sequential GETs (each read ÷ its raw read, and ÷ its floor: the reader loop for the chunked body, the raw read otherwise)",
    "",
    bodiesTable(bodies),
  );
}
if (http.inProcess) {
  sections.push(
    "",
    `### In-process call overhead (fake fetch returning a ready Response; ${
      count(INPROC_CALLS)
    } calls per client per round)`,
    "",
    overheadTable(http.inProcess, INPROC_CALLS),
  );
}
if (startup) {
  sections.push(
    "",
    "### Start-up (a fresh `deno run` that loads the client and makes one GET; milliseconds from the runtime's start to the body read)",
    "",
    startupTable(startup),
  );
}
if (memory) {
  sections.push(
    "",
    "### Memory (each measurement in its own process, `--v8-flags=--expose-gc`; 1 KB = 1,000 B)",
    "",
    memoryTables(memory),
  );
}
if (denorm) {
  sections.push(
    "",
    "### JSON:API denormalise (pre-parsed; median ms per document, ratio to JSON.parse of the same text)",
    "",
    denormaliseTable(denorm),
  );
}
if (sse) {
  sections.push(
    "",
    `### SSE parsing (${(sse.bytes / 1e6).toFixed(1)} MB, ${
      count(sse.events)
    } events, ${sse.chunks} chunks of 64 KiB; median per parse of the whole stream)`,
    "",
    sseTable(sse),
  );
}
if (bundles) {
  sections.push(
    "",
    `### Bundle size (esbuild ${ESBUILD_VERSION} \`--bundle --splitting --format=esm --minify --platform=browser\`; each chunk ${
      bundles.gzipper === "gzip -9"
        ? "through `gzip -9`"
        : "gzipped by node:zlib at level 9 (no gzip binary)"
    }, sizes summed)`,
    "",
    bundleTable(bundles),
  );
}
const body = sections.join("\n");
console.log(`\n${body}\n`);

if (!args.has("--no-write")) {
  const command = `deno task bench${
    Deno.args.length > 0 ? ` -- ${Deno.args.join(" ")}` : ""
  }`;
  const md = [
    "# Benchmark results",
    "",
    `Generated by \`bench/run.ts\`. Command: \`${command}\`.`,
    "",
    "## Machine",
    "",
    ...Object.entries(info).map(([k, v]) => `- ${k}: ${v}`),
    "",
    "## Method",
    "",
    `- HTTP: the server (\`bench/_server.ts\`) is a separate Deno process on 127.0.0.1 (port 0), serving a fixed ${
      new TextEncoder().encode(BODY_TEXT).byteLength
    }-byte JSON body. Every client uses its defaults (grab: \`createGrab(base)\`, timeout 30 s, retry 2, 64 MiB cap, JSON mode; ky 2.1.0, ofetch 1.5.1, wretch 3.0.9; up-fetch 2.6.1 as \`up(fetch, () => ({ baseUrl }))\`, which by default has no timeout and no retry and parses with \`res.clone().json()\`) and reads the JSON body. raw is \`fetch\` + \`res.json()\`. ofetch+timeout is ofetch once more with \`timeout: 30_000\` (its defaults have no timeout), to compare the two at grab's default promise.`,
    `- ${ROUNDS} interleaved rounds after one warm-up round. Sequential GETs: within a round the clients take turns request by request, in an order drawn afresh for every request (a seeded shuffle, \`bench/_stats.ts\`), each request timed on its own and summed per client (as the bodies below; batches of one client after another drift apart with the garbage one leaves the next and the machine's load; a fixed order, such as one rotated by a place per request, has each client mostly follow the same other and pay for what that one leaves behind). 64 in flight: each round is cut into ${CONCURRENT_TURNS} turns of ${
      count(CONCURRENT / CONCURRENT_TURNS)
    } GETs per client, the clients taking turns in an order drawn afresh for every turn (the same seeded shuffle), a client's round the sum of its turns. In-process: the same, ${INPROC_TURNS} turns of ${
      count(INPROC_CALLS / INPROC_TURNS)
    } calls per client and round. Figures are medians over rounds; each ratio is the median of the per-round ratios to raw in the same round, and the spread is the lowest and highest of those per-round ratios.`,
    `- Loopback bodies: the same server process answers \`GET /bodies/<bytes>\` with ${
      LARGE_SIZES.map((n) =>
        `${count(n)} B (${
          n >= 1 << 20 ? `${n / (1 << 20)} MiB` : `${n / 1024} KiB`
        })`
      ).join(" and ")
    } of CSV-like UTF-8 text (\`largeBody\` in \`bench/_server.ts\`, one line in four with \`é\` and \`漢\`), typed \`application/octet-stream\` so that nothing compresses it, with a \`Content-Length\`; \`GET /bodies/<bytes>/chunked\` sends the same bytes as a stream of ${
      count(CHUNK_BYTES)
    }-byte chunks without a length (\`Transfer-Encoding: chunked\`). raw .text() is \`fetch\` + \`res.text()\`, raw .bytes() is \`fetch\` + \`res.bytes()\` (not \`new Uint8Array(await res.arrayBuffer())\`); raw reader loop text and bytes are the floors described below; grab is \`createGrab(base)\` with its defaults (timeout 30 s, retry 2, 64 MiB cap, which the bodies fit) and \`{ responseType: "text" }\` or \`{ responseType: "bytes" }\`. Before timing, each body's framing is checked (its length, or chunked; no \`Content-Encoding\`) and every read is compared with the body once (the same text; the same length and bytes). Sequential GETs, per read per round: ${
      BODY_CASES.map((c) => `${count(bodyGets(c.bytes))} of ${c.name}`).join(
        "; ",
      )
    }. The six reads of a body take turns request by request, not batch by batch as in the rounds above, in an order drawn afresh for every request (the same seeded shuffle as the sequential GETs), each request timed on its own and summed per read: two identical raw reads timed in alternating batches of 1 MiB bodies differed by up to 10% in their median (one batch leaves the next its garbage to collect), against 2–4% request by request. One warm-up round, then ${ROUNDS} rounds; figures are medians over rounds, each grab read's ratio the median of its per-round ratios to its own raw read, the spread their lowest and highest.`,
    `- Start-up: \`bench/_startup_child.ts\` in a fresh \`deno run --no-config\` per measurement: it loads the client (grab from its source modules, as JSR serves them; ofetch and ky from npm), makes one GET of the same JSON body and reads it, and prints \`performance.now()\`, the milliseconds since the runtime began (process creation is left out). Each client is started once to fill the module caches, then the clients take turns process by process, ${STARTUP_ROUNDS} rounds in an order drawn afresh for every round (the same seeded shuffle); figures are medians, each ratio the median of the per-round ratios to raw \`fetch\` + \`res.json()\`.`,
    "- In-process: `fetch` replaced by a function resolving to a ready `new Response(body, { headers })` (grab's `fetch` option, ky's `fetch`, ofetch's global `fetch`, wretch's `fetchPolyfill`, up-fetch's first argument); raw is that function + `res.json()`.",
    '- Floors: baselines that do only what grab\'s contract makes every client do that keeps the same promises, measured in the same interleaved rounds (and, for bodies, the same request-by-request alternation) as the rest; each grab figure is shown ÷ raw and ÷ its floor, paired round by round as the ratios to raw are. The goals stay ÷ raw; the floor rows under "Further checks" are for reference. raw+timeout (loopback and in-process): `fetch(url, { signal, headers: { accept: "application/json" } })` + `res.json()`, where `signal` is one `AbortSignal.timeout(30_000)` shared by the calls that start within 15 ms of its creation and then renewed (what a client with a default timeout and an `Accept` header must pass; grab shares its timeout signal the same way, `src/deadline.ts`). raw-stream (in-process only, the floor for a custom `fetch`, whose `Content-Length` cannot be trusted, so a size cap needs a reader loop): the same `fetch`, `res.body.getReader()` read to the end collecting the chunks and counting their bytes against a 64 MiB cap, the chunks joined once (one chunk kept as it is), one `TextDecoder` decode, `JSON.parse`. raw reader loop text and bytes (bodies; the floor for the chunked body, which has no length to trust; for bodies with a `Content-Length` the floor is the raw one-call read): `fetch`, the same capped reader loop and one join, and for text one decode.',
    `- Memory: \`bench/_memory_child.ts\` in a fresh process per measurement (\`--v8-flags=--expose-gc\`): ${
      count(MEMORY_WARMUP)
    } warm-up grabs, \`gc()\` four times with a turn of the event loop before each, \`Deno.memoryUsage().heapUsed\`, then sequential \`GET /item\` grabs (\`createGrab(base)\`, defaults) with the same collection and reading at each checkpoint (loopback: ${
      MEMORY_CHECKPOINTS.loopback.map(count).join(", ")
    }; stub fetch: ${
      MEMORY_CHECKPOINTS.stub.map(count).join(", ")
    }; a leak keeps growing between checkpoints, warm-up does not). Two baselines are measured the same way: raw (\`fetch\` + \`res.json()\`) and raw-stream (\`fetch\`, the body read with \`getReader()\` and a \`TextDecoder\`, \`JSON.parse\`), which is how grab reads the body of a custom \`fetch\` such as the stub (a platform \`fetch\`'s body with a declared length it reads with \`response.text()\`). ${MEMORY_REPEATS} processes per fetch and client, interleaved. Retention: after the heap readings the same grab process sends ${MEMORY_WATCHED} \`POST /item/:id\` grabs, each with a fresh options object (\`body\`, \`headers\`, \`query\`, \`params\`, \`signal\`), and watches the options, the body, the \`AbortController\`, its signal and the result's data with a \`WeakRef\` and a \`FinalizationRegistry\`; after the grabs settle and the caller drops them, garbage is collected and the survivors counted. A control object the caller keeps must stay reachable. The goal \"within 1 MB\" is taken as 1,000,000 B.`,
    `- Denormalise: \`bench/_documents.ts\` compoundDocument(N) (each article: a shared author, 3 comments, each with its own commenter; 7.1 N resources). Every timed call gets a fresh \`JSON.parse\` copy (parse time excluded); documents smaller than 10,000 articles are timed in batches. ${
      denormRuns(1_000)
    } runs per size (${
      denormRuns(100_000)
    } at 100,000), contenders rotated per run. A peer whose predicted time per run (from its measured growth) passes ${
      DENORM_CAP_MS / 1000
    } s is skipped. The scaling exponent is the least-squares slope of log(time) against log(N) over the measured sizes (1.00 = linear; the per-resource slope is that minus 1).`,
    `- Bundles, as the issue defines them: esbuild \`--bundle --splitting --format=esm --minify --platform=browser\`, each output chunk gzipped at level 9, sizes summed. \`${JSON_ONLY}\`: an entry that imports \`createGrab\`, \`orThrow\`, \`isGrabHttpError\`, \`isGrabTransportError\` and \`isGrabValidationError\` from \`mod.ts\` and uses each; counted are the entry chunk and every chunk it reaches through static \`import\` statements, transitively, read from esbuild's metafile (\`outputs[…].imports\`, kind \`import-statement\`); chunks reached only through \`import()\` (kind \`dynamic-import\`, grab's JSON:API codec) are listed but not counted. \`${WHOLE_API}\`: an entry that imports every value export of every entry of \`deno.json\`'s \`exports\` by name and uses them all; every chunk reachable from it counts, dynamic ones included. Peers: \`import * as api from "<package>"; export default api\` (the whole package, exact versions from npm), every chunk counted. 1 KB = 1,000 B.`,
    `- SSE parsing: \`bench/_sse.ts\` builds about ${
      (SSE_BYTES / 1e6).toFixed(0)
    } MB of small LLM-style events in memory (\`data: {"choices":[{"delta":{"content":"tok…"}}]}\`; every 16th event with an \`event:\` line, every 64th with an \`id:\`, every 100th with a comment and a second data line, every 50th token not ASCII) and cuts the bytes into 64 KiB chunks regardless of lines and characters. Each parser turns every chunk into event objects and hands them to the same consumer, which counts them and reads their data; every parser must see the same events and data. grab: \`EventStreamParser.feed(chunk, out)\` (decoding included, with its per-event byte cap, 1 MiB here); eventsource-parser ${EVENTSOURCE_PARSER_VERSION}: a streaming \`TextDecoder\` and \`createParser({ onEvent })\`, the events gathered per chunk as grab gathers them; @std/http ${STD_HTTP_VERSION}: \`ServerSentEventParseStream\` (stable export \`@std/http/server-sent-event-parse-stream\`) piped from \`ReadableStream.from(chunks)\`, read with \`for await\` (its stream machinery is part of its time, as a user pays it). One warm-up round, then ${ROUNDS} rounds, the order rotated by one place per round; ratios are the median of the per-round ratios of each parser's time to grab's in the same round, the spread their lowest and highest.`,
    "- The machine is a shared 2-core VM; other jobs were running (see the load averages), so absolute figures are noisy; compare the ratios, which are measured within the same run.",
    "",
    "## Results",
    "",
    body,
    "",
  ].join("\n");
  const out = fromFileUrl(new URL("./RESULTS.md", import.meta.url));
  await Deno.writeTextFile(out, md);
  log(`Wrote ${out}`);
}
