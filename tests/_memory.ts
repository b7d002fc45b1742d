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
