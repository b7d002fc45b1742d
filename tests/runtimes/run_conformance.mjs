// deno-lint-ignore-file no-console
/**
 * Runs the conformance cases in this process against a fresh API server and
 * prints one JSON line `{ "results": [...] }`; exits 1 when a case fails.
 * Used for Deno (on `mod.ts`) and Bun (on the built module).
 *
 *     deno run --allow-net=127.0.0.1 --allow-read=. tests/runtimes/run_conformance.mjs ./mod.ts
 *     bun tests/runtimes/run_conformance.mjs .ci/.tools/build/npm/mod.js
 *
 * @module
 */

import process from "node:process";
import { pathToFileURL } from "node:url";
import { closedPort, startApiServer } from "./api_server.mjs";
import { runConformance } from "./conformance.mjs";

const target = process.argv[2];
if (!target) {
  console.error("usage: run_conformance.mjs <module path>");
  process.exit(2);
}
const href = pathToFileURL(target).href;
const server = await startApiServer();
let results;
try {
  results = await runConformance(() => import(href), {
    api: server.url,
    closedPort: await closedPort(),
  });
} finally {
  await server.close();
}
console.log(JSON.stringify({ results }));
process.exit(results.every((result) => result.ok) ? 0 : 1);
