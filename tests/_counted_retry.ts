/**
 * Retry options that count the retries a grab makes, for tests of what is
 * retried and what is not.
 *
 * @module
 */

import type { GrabOptions } from "../mod.ts";

/** Retry options that count the retries made, each at once. */
export function counted(): { retry: GrabOptions["retry"]; made: () => number } {
  let made = 0;
  return {
    retry: {
      limit: 2,
      backoff: () => {
        made++;
        return 0;
      },
    },
    made: () => made,
  };
}
