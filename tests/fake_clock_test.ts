// Callers test their own code with a fake clock: `@std/testing`'s
// `FakeTime`, or a test runner's global fake timers. A grab waits on that
// clock only where it waits for time to pass; reading what the server sent
// waits on no fake timer, and nothing throws once the fake clock is gone.
import { assertEquals } from "@std/assert";
import { runChild } from "./_bounds.ts";

const BODY_BYTES = 2 * 1024 * 1024;

Deno.test("a fake clock in place as grab loads never holds the read of a body handed over in small chunks", async () => {
  const body = "x".repeat(BODY_BYTES);
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(body),
  );
  const report = await runChild<{ faked: unknown; restored: unknown }>(
    "./_fake_clock_load_child.ts",
    ["--allow-net=127.0.0.1", "--allow-read"],
    { args: [`http://127.0.0.1:${server.addr.port}`], guardMs: 40_000 },
  );
  assertEquals(report, { faked: BODY_BYTES, restored: BODY_BYTES });
});
