// Callers test their own code with a fake clock: `@std/testing`'s
// `FakeTime`, or a test runner's global fake timers. A grab waits on that
// clock only where it waits for time to pass; reading what the server sent
// waits on no fake timer, and nothing throws once the fake clock is gone.
import { assertEquals } from "@std/assert";
import { FakeTime } from "@std/testing/time";
import createGrab from "../mod.ts";
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

/**
 * A server that holds each request until `answer()` is called; `arrived`
 * resolves as the first request reaches it.
 */
function heldServer(response: () => Response) {
  const arrived = Promise.withResolvers<void>();
  const gate = Promise.withResolvers<void>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async () => {
      arrived.resolve();
      await gate.promise;
      return response();
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    arrived: arrived.promise,
    answer: () => gate.resolve(),
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

Deno.test("a fake clock started while a grab waits leaves none of the grab's real timers counting once it settles", async (t) => {
  const cases: [string, Record<string, unknown>][] = [
    ["its own timeout, with a signal of the caller's", {
      signal: new AbortController().signal,
    }],
    ["the first of a shared timeout's window", {}],
  ];
  for (const [name, options] of cases) {
    await t.step(name, async () => {
      await using server = heldServer(() => Response.json({ ok: true }));
      const grab = createGrab(server.url, { retry: 0, timeout: 60_000 });
      const settled = grab("GET /", options);
      await server.arrived;
      const time = new FakeTime();
      try {
        server.answer();
        const [data, error] = await settled;
        assertEquals([data, error], [{ ok: true }, null]);
      } finally {
        time.restore();
      }
    });
  }
});

Deno.test("a fake clock restored while a grab waits leaves the program's real timers alone as the grab settles", async () => {
  await using server = heldServer(() => Response.json({ ok: true }));
  const grab = createGrab(server.url, { retry: 0, timeout: 60_000 });
  // Real timers of the program's, whose ids the fake clock's ids will meet.
  const COUNT = 50;
  let fired = 0;
  const real = Array.from(
    { length: COUNT },
    () => setTimeout(() => fired++, 300),
  ) as unknown as number[];
  const time = new FakeTime();
  let settled: ReturnType<typeof grab> | undefined;
  try {
    // The fake clock's ids count from 1: bring them up to the real ones.
    while ((setTimeout(() => {}, 0) as unknown as number) < real[0]! - 1) {
      // Nothing to do but count.
    }
    settled = grab("GET /");
    await server.arrived;
  } finally {
    time.restore();
  }
  server.answer();
  const [data, error] = await settled!;
  assertEquals([data, error], [{ ok: true }, null]);
  // Timers run in the order they come due: this one runs after all of those.
  await new Promise((resolve) => setTimeout(resolve, 301));
  assertEquals(fired, COUNT);
});
