/**
 * Memory measurements for child scripts, with no dependency beyond the
 * runtime, so a child process needs no package resolution.
 *
 * @module
 */

/**
 * The peak resident set size of the current process in bytes (VmHWM from
 * /proc/self/status), or `null` where /proc is absent. Deno lets only a
 * process with every permission read /proc/self, so the child scripts that
 * call this run with `--allow-all`. getrusage's `maxRSS` is no substitute:
 * Linux carries it across `execve`, so a child reports its parent's peak.
 */
export async function peakRss(): Promise<number | null> {
  let status: string;
  try {
    status = await Deno.readTextFile("/proc/self/status");
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(status);
  return match ? Number(match[1]) * 1024 : null;
}

/** Writes one JSON line to stdout (for child scripts). */
export async function report(value: unknown): Promise<void> {
  const bytes = new TextEncoder().encode(JSON.stringify(value) + "\n");
  let left = bytes;
  while (left.byteLength > 0) {
    left = left.subarray(await Deno.stdout.write(left));
  }
}

/**
 * Reports how `settling` ended: `{ outcome: "resolved" }`, or `"rejected"`
 * with the error's name and message.
 */
export async function reportSettled(settling: Promise<unknown>): Promise<void> {
  try {
    await settling;
    await report({ outcome: "resolved" });
  } catch (error) {
    await report({
      outcome: "rejected",
      name: error instanceof Error ? error.name : typeof error,
      message: error instanceof Error ? error.message : String(error),
    });
  }
}

/**
 * The reasons of the promise rejections nobody handles from now on, kept
 * rather than ending the process, for a child to report.
 */
export function watchUnhandled(): string[] {
  const unhandled: string[] = [];
  globalThis.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    unhandled.push(String(event.reason));
  });
  return unhandled;
}

/**
 * Collects garbage, then lets finalizers run, a few times. The process must
 * run with `--v8-flags=--expose-gc`.
 */
export async function collectGarbage(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error("run with --v8-flags=--expose-gc");
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Counts of watched objects not yet collected, by the way a grab went and
 * the kind of object (`alive.get(way).get(kind)`): each way's counts start
 * at 0 for every kind of `kinds` when first watched.
 */
export function survivors(kinds: readonly string[]): {
  alive: Map<string, Map<string, number>>;
  watch(way: string, kind: string, value: object): void;
} {
  const alive = new Map<string, Map<string, number>>();
  const countsOf = (way: string) => {
    let counts = alive.get(way);
    if (counts === undefined) {
      counts = new Map(kinds.map((kind) => [kind, 0]));
      alive.set(way, counts);
    }
    return counts;
  };
  const registry = new FinalizationRegistry<[string, string]>(
    ([way, kind]) => {
      const counts = countsOf(way);
      counts.set(kind, counts.get(kind)! - 1);
    },
  );
  return {
    alive,
    watch(way, kind, value) {
      const counts = countsOf(way);
      counts.set(kind, counts.get(kind)! + 1);
      registry.register(value, [way, kind]);
    },
  };
}

/** The kinds of {@linkcode CallerObjects}, as they are watched. */
export const CALLER_KINDS: readonly string[] = [
  "body",
  "params",
  "query",
  "hooks",
  "schema",
  "signal",
  "controller",
  "control",
];

/** What a caller gives one grab, and a control it keeps. */
export interface CallerObjects {
  body: { n: number; note: string };
  params: { id: string };
  query: { n: number };
  hooks: { beforeRequest(): void; afterResponse(): void };
  schema: ReturnType<typeof failingSchema>;
  controller: AbortController;
  signal: AbortSignal;
  control: { n: number };
}

/**
 * What a caller gives grab `i` of `way` (a body, path parameters, a query,
 * hooks, a failing schema, a signal and its controller), each watched as its
 * kind, and a control, watched too, that the caller keeps.
 */
export function callerObjects(
  way: string,
  i: number,
  watch: (way: string, kind: string, value: object) => void,
): CallerObjects {
  const watched = {
    body: { n: i, note: "x".repeat(64) },
    params: { id: String(i) },
    query: { n: i },
    hooks: { beforeRequest() {}, afterResponse() {} },
    schema: failingSchema(),
    controller: new AbortController(),
  };
  const signal = watched.controller.signal;
  const control = { n: i };
  for (const [kind, value] of Object.entries(watched)) watch(way, kind, value);
  watch(way, "signal", signal);
  watch(way, "control", control);
  return { ...watched, signal, control };
}

/** A Standard Schema (v1) that fails every value. */
export function failingSchema(): {
  "~standard": {
    version: 1;
    vendor: string;
    validate: () => { issues: { message: string }[] };
  };
} {
  return {
    "~standard": {
      version: 1 as const,
      vendor: "test",
      validate: () => ({ issues: [{ message: "no" }] }),
    },
  };
}

/** The abort listeners on a signal: the most at once, and how many now. */
export interface Listeners {
  most: number;
  left: () => number;
}

/**
 * Watches the abort listeners added to `signal` from now on and not removed
 * yet: the most there were at once, and how many are left.
 */
export function watchListeners(signal: AbortSignal): Listeners {
  const on = new Set<unknown>();
  const counts = { most: 0, left: () => on.size };
  const add = signal.addEventListener.bind(signal);
  const remove = signal.removeEventListener.bind(signal);
  signal.addEventListener = (
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | AddEventListenerOptions,
  ) => {
    if (type === "abort") on.add(listener);
    counts.most = Math.max(counts.most, on.size);
    add(type, listener, options);
  };
  signal.removeEventListener = (
    type: string,
    listener: EventListenerOrEventListenerObject,
    options?: boolean | EventListenerOptions,
  ) => {
    if (type === "abort") on.delete(listener);
    remove(type, listener, options);
  };
  return counts;
}

/**
 * Counts the abort listeners added to `signal` from now on and not removed
 * yet; none once it has aborted, as a `once` listener goes by itself then.
 */
export function countListeners(signal: AbortSignal): () => number {
  const watched = watchListeners(signal);
  return () => signal.aborted ? 0 : watched.left();
}
