/**
 * Child process of bounds_input_test.ts: grabs with a circular `query` (or
 * one whose shared objects make it huge) and reports how the grab ended. It runs in its own process so that the test
 * can kill it if serialising the query never ends (no timer can bound a
 * synchronous loop, and terminating a worker does not stop one).
 *
 * Arguments: the server URL, then `object`, `array`, `call` or `shared`.
 *
 * @module
 */

import createGrab, { Call } from "../mod.ts";
import { reportSettled } from "./_memory.ts";

const [url = "", variant = "object"] = Deno.args;
const query: Record<string, unknown> = { a: 1 };
if (variant === "array") {
  const list: unknown[] = ["x"];
  list.push(list);
  query["list"] = list;
} else if (variant === "shared") {
  // Not circular: each level holds the one below twice, 2^25 leaves.
  let level: Record<string, unknown> = { leaf: "x" };
  for (let i = 0; i < 25; i++) level = { l: level, r: level };
  query["tree"] = level;
} else {
  query["self"] = query;
}
await reportSettled(
  variant === "call"
    ? new Call("GET /items", url).send({ query, timeout: 5_000, retry: 0 })
    : createGrab(url, { timeout: 5_000, retry: 0 })("GET /items", { query }),
);
