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
import { aloneRunner } from "./alone.mjs";
import { closedPort, startApiServer } from "./api_server.mjs";
import {
  CASE_TIMEOUT_MS,
  CASES,
  importCheck,
  importCounted,
} from "./conformance.mjs";

const target = process.env.GRAB_MODULE;
if (!target) throw new Error("Set GRAB_MODULE to the built mod.js");

const server = await startApiServer();
after(() => server.close());
const href = pathToFileURL(target).href;
// The import check counts a copy of its own: the cases run on one loaded
// with the platform's `fetch` and timers in place (see `runConformance`).
const { calls } = await importCounted(() => import(`${href}?import-check`));
const mod = await import(href);
const context = {
  api: server.url,
  closedPort: await closedPort(),
  mod,
  loadCopy: (tag) => import(`${href}?copy-${tag}`),
  lateCopies: true,
  runAlone: aloneRunner(href),
};

const check = importCheck(calls);
test(check.name, () => {
  if (!check.ok) throw new Error(check.message);
});

for (const [name, run] of CASES) {
  test(name, { timeout: CASE_TIMEOUT_MS }, () => run(context));
}
