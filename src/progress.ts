/**
 * Progress of a body read: the total a body will have, and calling the
 * caller's callback, whose errors are the caller's.
 *
 * @module
 */

import type { Progress } from "./response_type.ts";

/** A `Content-Length` of digits only, as the framing reads it. */
export const DIGITS = /^\d+$/;

/**
 * What a progress callback threw: the caller's error, which rejects the
 * grab as it is, never a failure of the body.
 */
export class CallbackError {
  /** What the callback threw. */
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}

// No coding at all: `identity`, however spelt and listed (RFC 9110, 8.4).
const IDENTITY = /^[\s,]*identity(?:[\s,]+identity)*[\s,]*$/i;

/**
 * The size a body will have, from a digits-only `Content-Length`, when it
 * is not compressed (a compressed body is longer once read; `identity` is
 * no compression). A browser may hide `Content-Encoding` on a cross-origin
 * response: {@linkcode overTotal} then drops the total once the bytes pass
 * it.
 */
export function totalOf(response: Response): number | undefined {
  let declared: string | null;
  try {
    const headers = response.headers;
    const coding = headers.get("content-encoding");
    if (coding !== null && !IDENTITY.test(coding)) return undefined;
    declared = headers.get("content-length");
  } catch {
    // A response-like whose headers cannot be read again: no total.
    return undefined;
  }
  if (declared === null || !DIGITS.test(declared)) return undefined;
  return Number(declared);
}

/**
 * The total to report once `loaded` bytes are read: `undefined` from the
 * moment they pass it (a compressed body whose encoding was hidden), so
 * `loaded` never exceeds `total`.
 */
export function overTotal(
  loaded: number,
  total: number | undefined,
): number | undefined {
  return total !== undefined && loaded > total ? undefined : total;
}

/** A progress callback, with the total it reports. */
export interface Counted {
  total: number | undefined;
  report: (progress: Progress) => void;
}

/** Calls a progress callback; what it throws is the caller's error. */
export function report(counted: Counted, loaded: number): void {
  counted.total = overTotal(loaded, counted.total);
  try {
    tellProgress(counted.report, { loaded, total: counted.total });
  } catch (error) {
    throw new CallbackError(error);
  }
}

/**
 * Calls a progress callback, which is not waited for: what it throws at
 * once is thrown, and a promise it returns (an `async` callback) is left
 * to run, its rejection dropped rather than left unhandled, which would
 * end a Deno program.
 */
export function tellProgress(
  callback: (progress: Progress) => void,
  progress: Progress,
): void {
  const returned: unknown = callback(progress);
  if (typeof (returned as PromiseLike<unknown> | null)?.then === "function") {
    (returned as PromiseLike<unknown>).then(undefined, ignore);
  }
}

function ignore(): void {}
