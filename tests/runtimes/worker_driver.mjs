// deno-lint-ignore-file no-console
/**
 * Runs the conformance cases in workerd through `miniflare`: `WORKER` below,
 * the built module (twice, as two copies in one program) and
 * `conformance.mjs` are the Worker's modules, and the
 * Worker's own outbound `fetch` reaches the API server on 127.0.0.1 directly
 * (workerd's network service, no interception). First, the cases of
 * `REQUEST_CASES` send requests at once to the Worker, whose grab made once
 * serves them all, as a Worker's does: workerd ties what a request makes
 * (timers, signals, promises) to that request. Prints `{ "results": [...] }`
 * as JSON.
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
import { OLD_COMPATIBILITY_DATE, REQUEST_CASES } from "./requests.mjs";

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
import { inRequest } from "./requests.mjs";

// One grab for every request, made on the first (the API's address comes
// with it), as a Worker program makes one at module scope.
let upstream;

export default {
  async fetch(request) {
    const query = new URL(request.url).searchParams;
    if (new URL(request.url).pathname === "/request") {
      upstream ??= grab.createGrab(query.get("api"), {
        timeout: Number(query.get("timeout")),
      });
      return Response.json(await inRequest(upstream, query));
    }
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

const modules = [
  { type: "ESModule", path: "worker.mjs", contents: WORKER },
  ...await Promise.all([
    ["mod.js", readFile(modulePath, "utf8")],
    ["mod_copy.js", readFile(modulePath, "utf8")],
    ["conformance.mjs", source("conformance.mjs")],
    ["requests.mjs", source("requests.mjs")],
  ].map(async ([path, contents]) => ({
    type: "ESModule",
    path,
    contents: await contents,
  }))),
];

/** The results of `REQUEST_CASES` on `mf`, their names ending in `label`. */
async function requestCases(mf, label) {
  const results = [];
  for (const [name, run] of REQUEST_CASES) {
    try {
      await run((query) => {
        query.set("api", api.url);
        return mf.dispatchFetch(`http://localhost/request?${query}`);
      });
      results.push({ name: name + label, ok: true });
    } catch (error) {
      const message = String(error?.message);
      results.push({ name: name + label, ok: false, message });
    }
  }
  return results;
}

const api = await startApiServer();
let mf;
let old;
let results;
try {
  mf = new Miniflare({ modules, compatibilityDate: "2026-04-01" });
  // Before the conformance cases, so a module loaded on first use (the
  // JSON:API codec) is loaded by one of these requests for the others.
  const requests = await requestCases(mf, "");
  // A Worker of a date before 2022-03-21 has no `navigator`.
  old = new Miniflare({ modules, compatibilityDate: OLD_COMPATIBILITY_DATE });
  requests.push(
    ...await requestCases(old, ` (date ${OLD_COMPATIBILITY_DATE})`),
  );
  await old.dispose();
  old = undefined;
  const query = new URLSearchParams({
    api: api.url,
    closed: String(await closedPort()),
  });
  const response = await mf.dispatchFetch(`http://localhost/run?${query}`);
  const text = await response.text();
  try {
    results = [...requests, ...JSON.parse(text).results];
  } catch {
    const message = text.slice(0, 2000);
    results = [...requests, { name: "worker run", ok: false, message }];
  }
} catch (error) {
  results = [{
    name: "worker run",
    ok: false,
    message: String(error?.stack ?? error),
  }];
} finally {
  await old?.dispose();
  await mf?.dispose();
  await api.close();
}
console.log(JSON.stringify({ results }));
process.exit(results.every((result) => result.ok) ? 0 : 1);
