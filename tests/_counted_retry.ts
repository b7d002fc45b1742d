/**
 * Retry options that count the retries a grab makes, for tests of what is
 * retried and what is not.
 *
 * @module
 */

import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import createGrab, { type GrabOptions, GrabTransportError } from "../mod.ts";

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

/**
 * Grabs `url` with counted retries, and asserts a `"network"` failure made
 * at once, with one connection, whose message says `says`.
 */
export async function assertUnmended(
  url: string,
  says: string,
  connections: () => number,
  fetch?: typeof globalThis.fetch,
): Promise<void> {
  const { retry, made } = counted();
  const grab = createGrab(
    url,
    fetch === undefined ? { retry } : { retry, fetch },
  );
  const [data, error, meta] = await grab("GET /item", {
    query: { token: "s3cret" },
  });
  assertEquals(data, null);
  assertEquals(meta, { statusCode: 0 });
  assertInstanceOf(error, GrabTransportError);
  assertEquals(error.kind, "network");
  assert(error.message.includes(says), error.message);
  assert(!error.message.includes("s3cret"), error.message);
  assert(error.cause !== undefined);
  assertEquals(made(), 0, "retried, though no retry can mend it");
  assertEquals(connections(), 1);
}
