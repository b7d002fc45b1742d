/**
 * Closing the connection of a body grab lets go of before its end, for a
 * custom `fetch` whose bodies are no `ReadableStream`: `node-fetch` and
 * `make-fetch-happen` give Node.js streams, and keep the socket of one that
 * is destroyed (the stream the response was piped into, or one whose read
 * waits on a body that stalls). Such a `fetch` closes the socket on its
 * signal, so it is given one more signal, aborted when the body is let go.
 *
 * @module
 */

import type { Fetch } from "./fetch.ts";

/**
 * Whether each custom `fetch` that answered with a body gives its bodies as
 * `ReadableStream`s, told by its first such answer. One that does (a
 * wrapper of the platform's, undici's, a mock) closes a body's socket on its
 * cancel, and is given no let-go signal after that first answer: joining
 * two signals for each request would double the time grab takes in process.
 */
const WEB_BODIES = new WeakMap<Fetch, boolean>();

/** What aborts the signal its `fetch` was given, for each response. */
const LET_GO = new WeakMap<object, AbortController>();

/**
 * A controller whose signal `fetch` is to be given besides the deadline's,
 * or `undefined` when `fetch` gives web streams or there is no
 * `AbortSignal.any` to join the two with.
 */
export function letGoController(fetch: Fetch): AbortController | undefined {
  return WEB_BODIES.get(fetch) === true || typeof AbortSignal.any !== "function"
    ? undefined
    : new AbortController();
}

/** The deadline's `signal`, if any, joined with `letGo`'s. */
export function withLetGo(
  signal: AbortSignal | null | undefined,
  letGo: AbortController,
): AbortSignal {
  return signal === null || signal === undefined
    ? letGo.signal
    : AbortSignal.any([signal, letGo.signal]);
}

/**
 * Ties `letGo` to the `response` `fetch` gave, and learns from its body
 * whether `fetch` gives web streams.
 */
export function learnBodies(
  fetch: Fetch,
  response: Response,
  letGo: AbortController,
): void {
  LET_GO.set(response, letGo);
  if (WEB_BODIES.has(fetch)) return;
  let body: unknown;
  try {
    body = response.body;
  } catch {
    return; // A response-like whose body cannot be read: nothing learnt.
  }
  if (body === null || body === undefined) return;
  const web = typeof (body as Partial<ReadableStream>).getReader === "function";
  WEB_BODIES.set(fetch, web);
}

/** Aborts the signal the `fetch` that made `response` was given, if any. */
export function letGo(response: object, reason: unknown): void {
  LET_GO.get(response)?.abort(reason);
}
