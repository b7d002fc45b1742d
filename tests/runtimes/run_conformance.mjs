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

import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { aloneRunner } from "./alone.mjs";
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

// Another copy where the module is one file (the build), as a file of its
// own: Bun gives the same module for a URL with another query. `mod.ts`
// shares its `src/` files with the first.
let copies;
async function loadCopy(tag) {
  copies ??= await mkdtemp(join(tmpdir(), "grab-copies-"));
  const file = join(copies, `mod-${tag}.js`);
  await copyFile(target, file);
  return import(pathToFileURL(file).href);
}
const server = await startApiServer();
let results;
try {
  results = await runConformance({
    countImport,
    load: () => import(href),
    ...(target.endsWith(".ts") ? {} : {
      loadCopy,
      lateCopies: true,
      runAlone: aloneRunner(href),
    }),
  }, {
    api: server.url,
    closedPort: await closedPort(),
  });
} finally {
  await server.close();
  if (copies) await rm(copies, { recursive: true, force: true });
}
console.log(JSON.stringify({ results }));
process.exit(results.every((result) => result.ok) ? 0 : 1);
