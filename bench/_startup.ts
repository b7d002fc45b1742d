/**
 * Start-up: a fresh Deno process that loads a client and makes one GET,
 * timed from the runtime's start to the body read (`_startup_child.ts`), as
 * a Deno Deploy function or a command-line tool starts. The clients take
 * turns process by process, in an order drawn afresh for every round.
 *
 * @module
 */

import { fromFileUrl } from "./_path.ts";
import { median, seededRandom, SHUFFLE_SEED, shuffled } from "./_stats.ts";

/** The clients started, raw `fetch` first: the others are its ratios. */
export const STARTUP_NAMES = ["raw", "grab", "ofetch", "ky"] as const;

/** Per client: its median time and its time ÷ raw's, round by round. */
export interface StartupResults {
  rounds: number;
  ms: Record<string, number>;
  /** Median of the per-round ratios to raw, and their lowest and highest. */
  ratio: Record<string, { median: number; low: number; high: number }>;
}

const CHILD = fromFileUrl(new URL("./_startup_child.ts", import.meta.url));

async function startOnce(client: string, base: string): Promise<number> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--no-config",
      "--allow-net=127.0.0.1",
      "--allow-read",
      "--allow-env",
      CHILD,
      client,
      base,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(output.stdout).trim();
  const ms = Number(text);
  if (!output.success || !Number.isFinite(ms)) {
    throw new Error(
      `${client} did not start: ${new TextDecoder().decode(output.stderr)}`,
    );
  }
  return ms;
}

/** Starts each client once to warm the caches, then `rounds` times each. */
export async function runStartup(
  base: string,
  rounds: number,
  onRound: (round: number) => void,
): Promise<StartupResults> {
  for (const client of STARTUP_NAMES) await startOnce(client, base);
  const random = seededRandom(SHUFFLE_SEED);
  const times: Record<string, number[]> = {};
  const ratios: Record<string, number[]> = {};
  for (let round = 1; round <= rounds; round++) {
    const order = shuffled(STARTUP_NAMES, random);
    const now: Record<string, number> = {};
    for (const client of order) now[client] = await startOnce(client, base);
    for (const client of STARTUP_NAMES) {
      (times[client] ??= []).push(now[client]!);
      (ratios[client] ??= []).push(now[client]! / now.raw!);
    }
    onRound(round);
  }
  const ms: Record<string, number> = {};
  const ratio: StartupResults["ratio"] = {};
  for (const client of STARTUP_NAMES) {
    ms[client] = median(times[client]!);
    const list = ratios[client]!;
    ratio[client] = {
      median: median(list),
      low: Math.min(...list),
      high: Math.max(...list),
    };
  }
  return { rounds, ms, ratio };
}
