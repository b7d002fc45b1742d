/**
 * The conformance cases as a `node --test` suite: a `node:http` server
 * started here, and the module built to plain ESM (as JSR's npm layer serves
 * it), named by the `GRAB_MODULE` environment variable.
 *
 *     GRAB_MODULE=.ci/.tools/build/npm/mod.js node --test tests/runtimes/node_suite.mjs
 *
 * @module
 */

import { after, test } from "node:test";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { closedPort, startApiServer } from "./api_server.mjs";
import { CASE_TIMEOUT_MS, CASES, importCounted } from "./conformance.mjs";

const target = process.env.GRAB_MODULE;
if (!target) throw new Error("Set GRAB_MODULE to the built mod.js");

const server = await startApiServer();
after(() => server.close());
const context = { api: server.url, closedPort: await closedPort() };
const { module: mod, calls } = await importCounted(() =>
  import(pathToFileURL(target).href)
);

test("import: no work at import time", () => {
  if (calls !== 0) {
    throw new Error(`${calls} calls to fetch, timers or Math.random`);
  }
});

for (const [name, run] of CASES) {
  test(name, { timeout: CASE_TIMEOUT_MS }, () => run({ ...context, mod }));
}
