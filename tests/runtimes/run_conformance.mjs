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

// The import check runs in a worker: Deno imports `mod.ts` and its `src/`
// files, which one program loads once, so a copy counted here would be the
// copy the cases run on.
function countImport() {
  const worker = new Worker(
    new URL("./import_check_worker.mjs", import.meta.url),
    { type: "module" },
  );
  return new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) => resolve(data);
    worker.onerror = (event) => {
      event.preventDefault?.();
      reject(new Error(`import check: ${event.message}`));
    };
    worker.postMessage(href);
  }).finally(() => worker.terminate());
}

// A second copy where the module is one file (the build): `mod.ts` shares
// its `src/` files with the first.
const loadCopy = target.endsWith(".ts")
  ? undefined
  : () => import(`${href}?copy`);

const server = await startApiServer();
let results;
try {
  results = await runConformance({
    countImport,
    load: () => import(href),
    loadCopy,
  }, {
    api: server.url,
    closedPort: await closedPort(),
  });
} finally {
  await server.close();
}
console.log(JSON.stringify({ results }));
process.exit(results.every((result) => result.ok) ? 0 : 1);
