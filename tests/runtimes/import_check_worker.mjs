/**
 * Counts the calls a fresh copy of the module makes as it loads, in a
 * worker of its own, so that the copy the cases run on is loaded with the
 * platform's `fetch` and timers in place: `mod.ts` imports its `src/` files,
 * which one program loads once. Posts the number of calls.
 *
 * @module
 */

import { importCounted } from "./conformance.mjs";

self.onmessage = async ({ data }) => {
  const { calls } = await importCounted(() => import(data));
  self.postMessage(calls);
};
