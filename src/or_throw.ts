/**
 * `orThrow`: from the tuple style to the throwing style.
 *
 * @module
 */

import type { GrabResult, SuccessMeta } from "./result.ts";

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
  const [data, error, meta] = await result;
  if (error !== null) throw error;
  return [data, meta];
}
