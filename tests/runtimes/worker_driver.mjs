// deno-lint-ignore-file no-console
/**
 * Runs the conformance cases in workerd through `miniflare`: `WORKER` below,
 * the built module (twice, as two copies in one program) and
 * `conformance.mjs` are the Worker's modules, and the
 * Worker's own outbound `fetch` reaches the API server on 127.0.0.1 directly
 * (workerd's network service, no interception). Prints
 * `{ "results": [...] }` as JSON.
 *
 *     node tests/runtimes/worker_driver.mjs <built mod.js> <tools dir>
 *
 * @module
 */

import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import process from "node:process";
import { closedPort, startApiServer } from "./api_server.mjs";

const [modulePath, toolsDir] = process.argv.slice(2);
if (!modulePath || !toolsDir) {
  console.error("usage: worker_driver.mjs <built mod.js> <tools dir>");
  process.exit(2);
}
const require = createRequire(join(resolve(toolsDir), "node_modules", "_.js"));
const { Miniflare } = require("miniflare");

// The Worker imports the built module statically, so workerd's rule against
// work at load time (timers, random values, I/O) applies to it. It lives here
// rather than in its own file because `./mod.js` exists only after a build.
const WORKER = `
import * as grab from "./mod.js";
import * as copy from "./mod_copy.js";
import { runConformance } from "./conformance.mjs";

export default {
  async fetch(request) {
    const query = new URL(request.url).searchParams;
    // workerd itself refuses work at load time; nothing is left to count.
    const results = await runConformance({
      countImport: () => Promise.resolve(0),
      load: () => Promise.resolve(grab),
      loadCopy: () => Promise.resolve(copy),
    }, {
      api: query.get("api"),
      closedPort: Number(query.get("closed")),
    });
    return Response.json({ results });
  },
};
`;

const here = new URL(".", import.meta.url);
const source = (name) => readFile(new URL(name, here), "utf8");

const api = await startApiServer();
let mf;
let results;
try {
  mf = new Miniflare({
    modules: [
      {
        type: "ESModule",
        path: "worker.mjs",
        contents: WORKER,
      },
      {
        type: "ESModule",
        path: "mod.js",
        contents: await readFile(modulePath, "utf8"),
      },
      {
        type: "ESModule",
        path: "mod_copy.js",
        contents: await readFile(modulePath, "utf8"),
      },
      {
        type: "ESModule",
        path: "conformance.mjs",
        contents: await source("conformance.mjs"),
      },
    ],
    compatibilityDate: "2026-04-01",
  });
  const query = new URLSearchParams({
    api: api.url,
    closed: String(await closedPort()),
  });
  const response = await mf.dispatchFetch(`http://localhost/run?${query}`);
  const text = await response.text();
  try {
    results = JSON.parse(text).results;
  } catch {
    results = [{ name: "worker run", ok: false, message: text.slice(0, 2000) }];
  }
} catch (error) {
  results = [{
    name: "worker run",
    ok: false,
    message: String(error?.stack ?? error),
  }];
} finally {
  await mf?.dispose();
  await api.close();
}
console.log(JSON.stringify({ results }));
process.exit(results.every((result) => result.ok) ? 0 : 1);
