/**
 * The user's program packaging_test.ts packages (bundled, cached):
 * it grabs down each lazily loaded path against the server its first
 * argument names and writes one JSON line with what each gave. It runs in
 * Deno and, bundled, in Node.
 *
 * @module
 */

import { useLazyPaths } from "./_pack_uses.ts";

const host = globalThis as unknown as {
  Deno?: { args: string[] };
  process?: { argv: string[] };
};
const base = host.Deno?.args[0] ?? host.process?.argv[2];
if (base === undefined) throw new Error("Pass the server's URL.");
// deno-lint-ignore no-console
console.log(JSON.stringify(await useLazyPaths(base)));
