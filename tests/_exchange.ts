/**
 * The exchange of one request, as the request encoder hands it to the
 * attempts, for tests of the attempt loop and its short path.
 *
 * @module
 */

import type { Exchange } from "../src/attempts.ts";
import type { Deadline } from "../src/deadline.ts";
import { resolveRetry } from "../src/retry.ts";

/** Two retries, without waiting: no test depends on the backoff's timers. */
export const NO_WAIT = resolveRetry({ backoff: () => 0 });

/**
 * The exchange of one GET to `href` (or what `extra` says), its deadline's
 * signal in `init` as the request encoder puts it there.
 */
export function exchangeOf(
  href: string,
  extra: Partial<Exchange> & { deadline: Deadline },
): Exchange {
  const { deadline } = extra;
  const init: RequestInit = { method: extra.method ?? "GET" };
  if (deadline.signal !== undefined) init.signal = deadline.signal;
  return {
    method: "GET",
    href,
    init,
    replayable: true,
    hooks: undefined,
    fetch: globalThis.fetch,
    policy: NO_WAIT,
    maxBodyBytes: 1024 * 1024,
    ...extra,
  };
}
