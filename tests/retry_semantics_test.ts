/**
 * Retries as RFC 9110 and real servers make them: a wait that no longer fits
 * in the time left is not begun.
 */
import { assert, assertEquals } from "@std/assert";
import createGrab, { isGrabHttpError, isGrabTransportError } from "../mod.ts";
import { firstThen, ok, stalledBody, startFaultServer } from "./_faults.ts";

Deno.test("a 503 whose short body stalls while it is drained is returned, not a timeout", async () => {
  // It asks for a second, which fits in the 1.5 s left when it arrives;
  // its body then stalls, and the drain ends only after its own second.
  await using server = startFaultServer(
    firstThen(
      1,
      stalledBody("503 Service Unavailable", { "retry-after": "1" }),
      ok({ late: true }),
    ),
  );
  const grab = createGrab(server.url);
  const [data, error] = await grab("GET /busy", { timeout: 1_500 });
  assertEquals(data, null);
  assert(isGrabHttpError(error), String(error));
  assertEquals(error.statusCode, 503);
  assertEquals(error.headers.get("retry-after"), "1");
  assertEquals(server.requests.length, 1);
  // Its body was let go of for the retry: the cause says why it is null.
  assertEquals(error.body, null);
  assert(isGrabTransportError(error.cause));
  assert(error.cause.message.includes("raise timeout"), error.cause.message);
});
