/**
 * Child process of bounds_input_test.ts: grabs with a JSON body that JSON
 * cannot write in full and reports how the grab ended. It runs in its own
 * process, with a small heap, so that a check of the body that never ends,
 * or that holds a step for each slot of a sparse array, fails the test
 * instead of the run.
 *
 * Arguments: the server URL, then `sparse` (an array of length 2^32 − 1
 * beside a NaN), `sparse-casing` (the same with `casing`), `endless` (a
 * `toJSON` that makes a new object leading to another, without end), or
 * `chain` and `chain-json-api` (a `toJSON` that returns an object with a
 * `toJSON` of its own, which `JSON.stringify` does not call).
 *
 * @module
 */

import createGrab from "../mod.ts";
import { reportSettled } from "./_memory.ts";

const [url = "", variant = "sparse"] = Deno.args;

class Node {
  toJSON(): unknown {
    return { next: new Node() };
  }
}

function chained(): object {
  return { toJSON: chained };
}

let body: Record<string, unknown>;
if (variant === "endless") body = { head: new Node() };
else if (variant.startsWith("chain")) body = { type: "a", x: chained() };
else {
  const items: unknown[] = [];
  items.length = 2 ** 32 - 1;
  body = { items, total: NaN };
}
const grab = createGrab(url, {
  timeout: 5_000,
  retry: 0,
  casing: variant === "sparse-casing" ? "camelCase" : "none",
  format: variant === "chain-json-api" ? "json-api" : "json",
});
await reportSettled(grab("POST /items", { body }));
