/**
 * `orThrow`: from the tuple style to the throwing style.
 *
 * @module
 */

import type { GrabResult, SuccessMeta } from "./result.ts";
import { owns } from "./object.ts";

/**
 * `[data, meta]` of a successful grab.
 *
 * @typeParam Data The parsed body.
 *
 * @example
 * ```ts
 * import type { OrThrowResult } from "@grab/grab";
 * const first = ([data]: OrThrowResult<string[]>) => data[0];
 * ```
 */
export type OrThrowResult<Data> = [data: Data, meta: SuccessMeta];

/**
 * Resolves to `[data, meta]` on success; rejects with the `GrabError` or
 * `GrabTransportError` otherwise. For libraries that expect thrown errors,
 * such as TanStack Query and SWR.
 *
 * @typeParam Data The parsed body.
 * @param result The promise a grab returned.
 * @returns `[data, meta]`.
 * @throws {GrabError} when the status is outside 2xx.
 * @throws {GrabTransportError} when no usable response arrived.
 * @throws {GrabValidationError} when the grab itself rejected (bad input).
 * @throws {TypeError} when `result` is not what a grab resolves to (a
 * `Call.send` outcome, say).
 *
 * @example
 * ```ts
 * import createGrab, { orThrow } from "@grab/grab";
 * const grab = createGrab("https://api.example.com");
 * const [user] = await orThrow(grab<{ name: string }>("GET /users/1"));
 * console.log(user.name);
 * ```
 */
export async function orThrow<Data>(
  result: Promise<GrabResult<Data>> | GrabResult<Data>,
): Promise<OrThrowResult<Data>> {
  const settled: unknown = await result;
  if (!Array.isArray(settled) || settled.length !== 3) {
    throw new TypeError(notAResult(settled));
  }
  const [data, error, meta] = settled as GrabResult<Data>;
  if (error !== null) {
    if (typeof error !== "object") throw new TypeError(notAResult(settled));
    throw error;
  }
  return [data, meta];
}

/** Why `value` is not a grab's `[data, error, meta]`, and what to give. */
function notAResult(value: unknown): string {
  const what = !Array.isArray(value)
    ? kindOf(value)
    : value.length !== 3
    ? `an array of ${value.length} item${value.length === 1 ? "" : "s"}`
    : `a tuple whose error is ${kindOf(value[1])}, not null or an error`;
  const hint = typeof value === "object" && value !== null && owns(value, "ok")
    ? " (a Call.send outcome: read its ok, error and body instead)"
    : "";
  return `Cannot use orThrow on ${what}${hint}: it takes the promise a grab returns, which resolves to [data, error, meta]`;
}

/** What a value is, in a word or two: its text may be long or secret. */
function kindOf(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  const type = typeof value;
  return type === "object" ? "an object" : `a ${type}`;
}
