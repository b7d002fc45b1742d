// deno-lint-ignore-file no-console
/**
 * One memory measurement, run by `_memory.ts` in its own process with
 * `--v8-flags=--expose-gc`. Prints one JSON line ({@linkcode ChildReport}).
 *
 * Heap: warm up, collect garbage, read `heapUsed`, run the grabs one after
 * another, collect and read again at each checkpoint (e.g. after 10,000 and
 * 50,000 grabs: a leak keeps growing, warm-up does not).
 *
 * Retention (grab only): for each of a number of grabs, the caller's options
 * object, its body, its `AbortController` and signal, and the parsed data of
 * the result are watched with a `WeakRef` and a `FinalizationRegistry`; after
 * the grabs settle and the caller drops them, garbage is collected and the
 * survivors counted. A control object that the caller keeps must survive,
 * which shows the method sees a reference when there is one.
 *
 * @module
 */

import { createGrab } from "../mod.ts";
import { BODY_TEXT } from "./_server.ts";

/** What the parent passes as the one argument (JSON). */
export interface ChildConfig {
  /** `loopback`: the server at `base`; `stub`: a fetch resolving at once. */
  mode: "loopback" | "stub";
  /**
   * `grab`: `createGrab(base)` defaults; `raw`: `fetch` + `res.json()`;
   * `raw-stream`: `fetch`, the body read with `getReader()` and decoded,
   * `JSON.parse` (the way grab reads a body from a custom `fetch`).
   */
  client: "grab" | "raw" | "raw-stream";
  base: string;
  warmup: number;
  /** Heap readings after this many grabs (cumulative, ascending). */
  checkpoints: number[];
  /** Grabs watched for retention (0: none). */
  watched: number;
}

/** Survivors of one kind of watched object. */
export interface Survivors {
  /** Still reachable through its `WeakRef` after collection. */
  alive: number;
  /** Reported by the `FinalizationRegistry`. */
  finalised: number;
  of: number;
}

/** What the child prints. */
export interface ChildReport {
  heapBefore: number;
  /** `heapUsed` after collection at each checkpoint. */
  heapAt: number[];
  /** Survivors by kind (`control` is kept by the caller on purpose). */
  retention?: Record<string, Survivors>;
}

const gc = (globalThis as { gc?: () => void }).gc;

function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Full collections with turns of the event loop between them. */
async function collect(): Promise<void> {
  for (let i = 0; i < 4; i++) {
    await settle();
    gc!();
  }
  await settle();
}

const HEADERS = {
  "content-type": "application/json",
  "content-length": String(new TextEncoder().encode(BODY_TEXT).byteLength),
};

function stubFetch(): Promise<Response> {
  return Promise.resolve(new Response(BODY_TEXT, { headers: HEADERS }));
}

const KINDS = [
  "options",
  "body",
  "controller",
  "signal",
  "data",
  "control",
] as const;
type Kind = typeof KINDS[number];

async function retention(
  grab: ReturnType<typeof createGrab>,
  watched: number,
): Promise<Record<string, Survivors>> {
  const refs = new Map<Kind, WeakRef<object>[]>(KINDS.map((k) => [k, []]));
  const finalised = new Map<Kind, number>(KINDS.map((k) => [k, 0]));
  const registry = new FinalizationRegistry<Kind>((kind) => {
    finalised.set(kind, finalised.get(kind)! + 1);
  });
  const kept: object[] = [];
  const watch = (kind: Kind, value: object) => {
    refs.get(kind)!.push(new WeakRef(value));
    registry.register(value, kind);
  };
  // In its own function, so that nothing of one grab stays in this frame.
  const one = async (i: number) => {
    const controller = new AbortController();
    const body = { n: i, note: "x".repeat(64), tags: ["a", "b"] };
    const options = {
      body,
      headers: { "x-n": String(i) },
      query: { n: i },
      params: { id: i },
      signal: controller.signal,
    };
    watch("options", options);
    watch("body", body);
    watch("controller", controller);
    watch("signal", controller.signal);
    const [data, error] = await grab("POST /item/:id", options);
    if (error) throw error;
    watch("data", data as object);
    const control = { n: i };
    kept.push(control);
    watch("control", control);
  };
  for (let i = 0; i < watched; i++) await one(i);
  await collect();
  await collect();
  const out: Record<string, Survivors> = {};
  for (const kind of KINDS) {
    const list = refs.get(kind)!;
    out[kind] = {
      alive: list.filter((r) => r.deref() !== undefined).length,
      finalised: finalised.get(kind)!,
      of: list.length,
    };
  }
  if (kept.length !== watched) throw new Error("the control was dropped");
  return out;
}

async function main(config: ChildConfig): Promise<ChildReport> {
  if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");
  const doFetch = config.mode === "stub" ? stubFetch : fetch;
  const grab = createGrab(
    config.base,
    config.mode === "stub" ? { fetch: stubFetch } : {},
  );
  const url = `${config.base}/item`;
  const once = config.client === "grab"
    ? async () => {
      const [data, error] = await grab("GET /item");
      if (error) throw error;
      return data;
    }
    : config.client === "raw-stream"
    ? async () => {
      const reader = (await doFetch(url)).body!.getReader();
      const decoder = new TextDecoder();
      let text = "";
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      reader.releaseLock();
      return JSON.parse(text + decoder.decode());
    }
    : async () => (await doFetch(url)).json();
  for (let i = 0; i < config.warmup; i++) await once();
  await collect();
  const heapBefore = Deno.memoryUsage().heapUsed;
  const heapAt: number[] = [];
  let done = 0;
  for (const checkpoint of config.checkpoints) {
    for (; done < checkpoint; done++) await once();
    await collect();
    heapAt.push(Deno.memoryUsage().heapUsed);
  }
  const report: ChildReport = { heapBefore, heapAt };
  if (config.watched > 0 && config.client === "grab") {
    report.retention = await retention(grab, config.watched);
  }
  return report;
}

if (import.meta.main) {
  const config = JSON.parse(Deno.args[0]!) as ChildConfig;
  console.log(JSON.stringify(await main(config)));
}
