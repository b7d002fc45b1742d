/**
 * A success the caller retries (`retry.statusCodes` with a 2xx, as a 202 of
 * a job still running): what it ends as when its body is let go of.
 */
import { assert, assertEquals } from "@std/assert";
import createGrab, { isGrabTransportError } from "../mod.ts";
import { firstThen, ok, stalledBody, startFaultServer } from "./_faults.ts";

Deno.test("a retried 202 whose short body stalls while it is drained is a timeout, not a body broken off", async () => {
  // Its backoff of a second fits in the 1.5 s left when it arrives; its body
  // then stalls, and the drain ends only after its own second, when the wait
  // no longer fits: the body is gone, and a success is nothing without it.
  await using server = startFaultServer(
    firstThen(1, stalledBody("202 Accepted"), ok({ done: true })),
  );
  const grab = createGrab(server.url);
  const [data, error] = await grab("GET /job", {
    timeout: 1_500,
    retry: { statusCodes: [202], backoff: () => 1_000 },
  });
  assertEquals(data, null);
  assert(isGrabTransportError(error), String(error));
  assertEquals(server.requests.length, 1);
  assertEquals(error.kind, "timeout");
  assert(error.message.includes("raise timeout"), error.message);
});
