/**
 * A Web Worker for packaging_test.ts: for the server URL posted to it, it
 * grabs down each lazily loaded path in a module graph of its own and
 * answers what each gave.
 *
 * @module
 */

import { useLazyPaths } from "./_pack_uses.ts";

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<string>) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = async (event) => {
  scope.postMessage(await useLazyPaths(event.data));
};
