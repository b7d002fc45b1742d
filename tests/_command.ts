/**
 * Running another program from a test: whether it is installed, and what
 * it gave, killed if it outlasts its guard.
 *
 * @module
 */

import { assert } from "@std/assert";

const ROOT = new URL("../", import.meta.url).pathname;

/** True when `command --version` runs and succeeds. */
export async function available(command: string): Promise<boolean> {
  try {
    const { success } = await new Deno.Command(command, {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    }).output();
    return success;
  } catch {
    return false;
  }
}

/** What a program run by {@linkcode execute} gave. */
export interface Ran {
  success: boolean;
  stdout: string;
  stderr: string;
}

/**
 * Runs `command` (in the repository's root unless `cwd` says otherwise),
 * with `input` on its stdin, killed if it outlasts `guardMs`.
 */
export async function execute(
  command: string,
  args: string[],
  options: {
    cwd?: string;
    env?: Record<string, string>;
    input?: Uint8Array;
  } = {},
  guardMs = 60_000,
): Promise<Ran> {
  const { input } = options;
  const killer = new AbortController();
  const timer = setTimeout(() => killer.abort(), guardMs);
  try {
    const child = new Deno.Command(command, {
      args,
      cwd: options.cwd ?? ROOT,
      env: { NO_COLOR: "1", ...options.env },
      stdin: input === undefined ? "null" : "piped",
      stdout: "piped",
      stderr: "piped",
      signal: killer.signal,
    }).spawn();
    if (input !== undefined) {
      const writer = child.stdin.getWriter();
      await writer.write(input);
      await writer.close();
    }
    const output = await child.output();
    const decoder = new TextDecoder();
    return {
      success: output.success,
      stdout: decoder.decode(output.stdout),
      stderr: decoder.decode(output.stderr),
    };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The stdout of `command` run as {@linkcode execute} runs it; fails with
 * its stderr when it fails.
 */
export async function run(
  command: string,
  args: string[],
  options: { env?: Record<string, string>; input?: Uint8Array },
): Promise<string> {
  const ran = await execute(command, args, options);
  assert(ran.success, ran.stderr);
  return ran.stdout;
}

/**
 * `entry` (a path from the repository's root) and grab, bundled by esbuild
 * for Node as one ES module, as a user ships it: what `node
 * --input-type=module` runs from its stdin.
 */
export async function bundleForNode(entry: string): Promise<Uint8Array> {
  const code = await run(Deno.execPath(), [
    "run",
    "--allow-read",
    "--allow-env",
    "--allow-run",
    "npm:esbuild@0.25.0",
    entry,
    "--bundle",
    "--format=esm",
    "--platform=node",
    "--log-level=error",
  ], {});
  return new TextEncoder().encode(code);
}
