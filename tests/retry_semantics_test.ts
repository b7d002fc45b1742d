/**
 * Retries as RFC 9110 and real servers make them: a wait that no longer fits
 * in the time left is not begun.
 */
import { assert, assertEquals } from "@std/assert";
import createGrab, { isGrabHttpError, isGrabTransportError } from "../mod.ts";
import {
  firstThen,
  head,
  ok,
  startFaultServer,
  untilClosed,
  write,
} from "./_faults.ts";

Deno.test("a 503 whose short body stalls while it is drained is returned, not a timeout", async () => {
  // It asks for a second, which fits in the 1.5 s left when it arrives;
  // its body then stalls, and the drain ends only after its own second.
  await using server = startFaultServer(firstThen(1, async (conn) => {
    await write(
      conn,
      head("503 Service Unavailable", {
        "content-length": "10",
        "retry-after": "1",
      }) + "busy,",
    );
    await untilClosed(conn);
  }, ok({ late: true })));
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
