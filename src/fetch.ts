/**
 * Calling `fetch`: as a plain function, raced against the deadline unless
 * it is the platform's own, and checked to have given a response.
 *
 * @module
 */

import { cancelBody } from "./body.ts";
import type { Deadline } from "./deadline.ts";

/** A `fetch` as grab calls it: a plain function, never a method. */
export type Fetch = (
  input: Request | string,
  init?: RequestInit,
) => Promise<Response>;

/**
 * The platform's `fetch`, as it was when this module loaded: its responses
 * honour the framing and the abort signal. A `fetch` option, or a
 * `globalThis.fetch` replaced since (a mock, a wrapper), may not.
 */
const PLATFORM_FETCH = globalThis.fetch;

/** True for the platform's own `fetch`, still in place. */
export function isPlatform(fetch: Fetch): boolean {
  return fetch === PLATFORM_FETCH && globalThis.fetch === PLATFORM_FETCH;
}

/**
 * Sends `request` (or `href` with `init` when there is no `Request`). The
 * platform's `fetch` honours the signal; any other may not, so its promise
 * is raced, and a response that arrives too late is cancelled. Rejects with
 * a `TypeError` when what `fetch` gives is not a response.
 */
export function sendRequest(
  fetch: Fetch,
  href: string,
  init: RequestInit,
  request: Request | undefined,
  deadline: Deadline,
): Promise<Response> {
  // Called as a plain function: browsers and workerd refuse a fetch whose
  // `this` is another object ("Illegal invocation").
  const sending = request === undefined
    ? fetch(href, init)
    : deadline.signal === undefined
    ? fetch(request)
    : fetch(request, { signal: deadline.signal });
  // The platform's own gives a response and honours the signal.
  if (isPlatform(fetch)) return sending;
  return deadline.race(sending, cancelBody).then((response) => {
    if (!isResponse(response)) {
      throw new TypeError("Cannot read the response: fetch did not return one");
    }
    return response;
  });
}

/** Response-like, also from another realm or a `fetch` polyfill. */
function isResponse(value: unknown): value is Response {
  return Number.isInteger((value as Response | null)?.status) &&
    typeof (value as Response).headers?.get === "function";
}
