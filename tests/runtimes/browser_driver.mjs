// deno-lint-ignore-file no-console
/**
 * Runs the conformance cases in headless Chromium through `playwright-core`.
 * The page and the built module come from one origin (a static server on one
 * port); the API is another origin (the API server on another port), so
 * every grab is a CORS request. Prints `{ "results": [...] }` as JSON.
 *
 *     node tests/runtimes/browser_driver.mjs <built mod.js> <tools dir>
 *
 * Environment: `CHROMIUM` (default `/usr/bin/chromium`).
 *
 * @module
 */

import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { closedPort, startApiServer } from "./api_server.mjs";

const [modulePath, toolsDir] = process.argv.slice(2);
if (!modulePath || !toolsDir) {
  console.error("usage: browser_driver.mjs <built mod.js> <tools dir>");
  process.exit(2);
}
const require = createRequire(join(resolve(toolsDir), "node_modules", "_.js"));
const { chromium } = require("playwright-core");

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>grab conformance</title>
<script type="module">
  import { importCounted, runConformance } from "./conformance.mjs";
  const query = new URLSearchParams(location.search);
  runConformance({
    countImport: async () =>
      (await importCounted(() => import("./mod.js?import-check"))).calls,
    load: () => import("./mod.js"),
    loadCopy: (tag) => import("./mod.js?copy-" + tag),
    lateCopies: true,
  }, {
    api: query.get("api"),
    closedPort: Number(query.get("closed")),
  }).then(
    (results) => { globalThis.grabResults = results; },
    (error) => { globalThis.grabResults = [{ name: "page", ok: false, message: String(error) }]; },
  );
</script>`;

const files = {
  "/page.html": ["text/html", PAGE],
  "/mod.js": ["text/javascript", await readFile(modulePath, "utf8")],
  "/conformance.mjs": [
    "text/javascript",
    await readFile(new URL("./conformance.mjs", import.meta.url), "utf8"),
  ],
};
const pages = createServer((request, response) => {
  const path = new URL(request.url, "http://127.0.0.1").pathname;
  // A request to the page's own origin that fails as the network would.
  if (path === "/closed") {
    request.socket.destroy();
    return;
  }
  const file = files[path];
  if (!file) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, { "content-type": file[0] }).end(file[1]);
});
await new Promise((resolve) => pages.listen(0, "127.0.0.1", resolve));
const pagesUrl = `http://127.0.0.1:${pages.address().port}`;

const api = await startApiServer();
const userDataDir = await mkdtemp(join(tmpdir(), "grab-chromium-"));
let context;
let results;
const consoleErrors = [];
try {
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const page = await context.newPage();
  page.on("pageerror", (error) => consoleErrors.push(String(error)));
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  const query = new URLSearchParams({
    api: api.url,
    closed: String(await closedPort()),
  });
  await page.goto(`${pagesUrl}/page.html?${query}`);
  await page.waitForFunction(() => globalThis.grabResults !== undefined, null, {
    timeout: 60_000,
  });
  results = await page.evaluate(() => globalThis.grabResults);
  const origin = await page.evaluate(() => location.origin);
  if (origin === new URL(api.url).origin) {
    results.push({ name: "page and API on two origins", ok: false });
  }
} catch (error) {
  results = [{
    name: "browser run",
    ok: false,
    message: `${error}\n${consoleErrors.join("\n")}`,
  }];
} finally {
  await context?.close();
  await api.close();
  await new Promise((resolve) => pages.close(() => resolve()));
  await rm(userDataDir, { recursive: true, force: true });
}
if (process.env.GRAB_DEBUG) console.error(consoleErrors.join("\n"));
console.log(JSON.stringify({ results }));
process.exit(results.every((result) => result.ok) ? 0 : 1);
