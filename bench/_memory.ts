/**
 * The memory figures: the heap after sequential grabs against the loopback
 * server and against a stub `fetch` in process, and whether a grab keeps any
 * of the caller's objects after it settles. Each measurement runs in its own
 * process (`_memory_child.ts`, `--v8-flags=--expose-gc`); raw `fetch` +
 * `res.json()`, and raw `fetch` with the body read through `getReader()`, are
 * measured the same way as baselines.
 *
 * @module
 */

import type { ChildConfig, ChildReport, Survivors } from "./_memory_child.ts";
import { fromFileUrl } from "./_path.ts";
import { startServer } from "./_spawn.ts";
import { rotate } from "./_stats.ts";

/** The modes measured. */
export const MEMORY_MODES = ["loopback", "stub"] as const;
/** The clients measured. */
export const MEMORY_CLIENTS = ["grab", "raw", "raw-stream"] as const;

type Mode = typeof MEMORY_MODES[number];
type ClientName = typeof MEMORY_CLIENTS[number];

/** Options of {@linkcode runMemory}. */
export interface MemoryOptions {
  /** Grabs before the first reading. */
  warmup: number;
  /** Heap readings after this many grabs, by mode; the first is the target. */
  checkpoints: Record<Mode, number[]>;
  /** Processes per mode and client. */
  repeats: number;
  /** Grabs watched for retention, per grab process. */
  watched: number;
  log: (line: string) => void;
}

/** The results of {@linkcode runMemory}. */
export interface MemoryResults {
  warmup: number;
  checkpoints: Record<Mode, number[]>;
  repeats: number;
  watched: number;
  /**
   * Heap growth in bytes by mode, client and checkpoint: one value per
   * repeat (`heapAt[checkpoint] - heapBefore`).
   */
  growth: Record<Mode, Record<ClientName, number[][]>>;
  /** Survivors by mode and kind, the most over the repeats. */
  retention: Record<Mode, Record<string, Survivors>>;
  /** Why a mode could not be measured. */
  failed: Partial<Record<Mode, string>>;
}

const CHILD = fromFileUrl(new URL("./_memory_child.ts", import.meta.url));

async function child(config: ChildConfig): Promise<ChildReport> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--no-config",
      "--v8-flags=--expose-gc",
      "--allow-net=127.0.0.1",
      CHILD,
      JSON.stringify(config),
    ],
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const text = new TextDecoder().decode(out.stdout).trim();
  if (!out.success) {
    const err = new TextDecoder().decode(out.stderr).trim();
    throw new Error(err.split("\n").find((l) => l.trim() !== "") ?? "failed");
  }
  return JSON.parse(text.split("\n").at(-1)!) as ChildReport;
}

/**
 * Runs every mode and client in `repeats` interleaved rounds, each
 * measurement in a fresh process.
 */
export async function runMemory(
  options: MemoryOptions,
): Promise<MemoryResults> {
  const { warmup, checkpoints, repeats, watched, log } = options;
  const results: MemoryResults = {
    warmup,
    checkpoints,
    repeats,
    watched,
    growth: {
      loopback: { grab: [], raw: [], "raw-stream": [] },
      stub: { grab: [], raw: [], "raw-stream": [] },
    },
    retention: { loopback: {}, stub: {} },
    failed: {},
  };
  const server = await startServer();
  try {
    const bases: Record<Mode, string> = {
      loopback: server.base,
      stub: "http://127.0.0.1:9",
    };
    const jobs: { mode: Mode; client: ClientName }[] = [];
    for (const mode of MEMORY_MODES) {
      for (const client of MEMORY_CLIENTS) jobs.push({ mode, client });
    }
    for (let r = 0; r < repeats; r++) {
      for (const { mode, client } of rotate(jobs, r)) {
        if (results.failed[mode] !== undefined) continue;
        try {
          const report = await child({
            mode,
            client,
            base: bases[mode],
            warmup,
            checkpoints: checkpoints[mode],
            watched: client === "grab" ? watched : 0,
          });
          results.growth[mode][client].push(
            report.heapAt.map((h) => h - report.heapBefore),
          );
          for (const [kind, s] of Object.entries(report.retention ?? {})) {
            const prev = results.retention[mode][kind];
            if (prev === undefined || s.alive > prev.alive) {
              results.retention[mode][kind] = s;
            }
          }
        } catch (error) {
          results.failed[mode] = error instanceof Error
            ? error.message
            : String(error);
        }
      }
      log(`  round ${r + 1}/${repeats}`);
    }
  } finally {
    await server.stop();
  }
  return results;
}
