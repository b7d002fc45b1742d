/**
 * Child process of secrets_and_option_reads_test.ts: loads grab, then puts `limit`
 * (and `body`, a stream) on `Object.prototype`, as a dependency with a
 * prototype-pollution bug would, and pages through the test's server with
 * options that name no limit. It runs in its own process so that the
 * pollution never reaches the test runner.
 *
 * Arguments: the server URL, and the key to put: `limit` or `body`.
 *
 * Writes one JSON line: the pages read, or what `paginate` threw.
 *
 * @module
 */

import createGrab, { paginate } from "../mod.ts";
import { report } from "./_memory.ts";

const [url = "", key = "limit"] = Deno.args;
const grab = createGrab(url, { retry: 0 });

Object.defineProperty(Object.prototype, key, {
  value: key === "limit" ? 1 : new ReadableStream(),
  writable: true,
  configurable: true,
});

const pages: unknown[] = [];
try {
  for await (const [data] of paginate(grab, "GET /items", {})) {
    pages.push(data);
  }
} catch (error) {
  pages.push(`threw ${String(error).slice(0, 160)}`);
}
delete (Object.prototype as Record<string, unknown>)[key];
await report(pages);
