// Callers test with `@sinonjs/fake-timers`, which Vitest's
// `vi.useFakeTimers()` and Jest's modern timers use underneath: it fakes
// `performance` and `Date` as well as the timers, and may move its clock with
// real time (`shouldAdvanceTime`). Each grab settles as the clock moves, or at
// once where no timer is involved; none leaves a real timer counting, or
// touches a timer of the test's own.
import { assertEquals } from "@std/assert";
import FakeTimers from "npm:@sinonjs/fake-timers@14.0.0";
import createGrab, { paginate } from "../mod.ts";
import { runChild } from "./_bounds.ts";

const HOST = { hostname: "127.0.0.1", port: 0, onListen() {} } as const;

/** The kind of a transport error, or `undefined`. */
function kindOf(error: unknown): string | undefined {
  return (error as { kind?: string } | null)?.kind;
}

/** Fails a test that hangs, after 10 real seconds, on a real timer. */
function guarded<T>(work: Promise<T>): Promise<T | "hung"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<"hung">((resolve) => {
    timer = setTimeout(() => resolve("hung"), 10_000);
  });
  return Promise.race([work, guard]).finally(() => clearTimeout(timer));
}

Deno.test("a clock moving with real time (shouldAdvanceTime) ends a Retry-After wait and the retries after it", async () => {
  let calls = 0;
  await using server = Deno.serve(HOST, () => {
    calls++;
    return calls < 3
      ? new Response("busy", { status: 503, headers: { "retry-after": "1" } })
      : Response.json({ ok: true });
  });
  const clock = FakeTimers.install({
    shouldAdvanceTime: true,
    advanceTimeDelta: 20,
  });
  try {
    const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
      retry: 2,
    });
    const outcome = await guarded(
      grab("GET /").then(([data, error]) =>
        error === null ? data : kindOf(error)
      ),
    );
    assertEquals(outcome, { ok: true });
    assertEquals(calls, 3);
  } finally {
    clock.uninstall();
  }
});

/**
 * A server that holds every answer until `gate` opens; `arrived` tells the
 * first request in. Disposing of it opens the gate and shuts it down.
 */
function heldServer() {
  const gate = Promise.withResolvers<void>();
  const arrived = Promise.withResolvers<void>();
  const server = Deno.serve(HOST, async () => {
    arrived.resolve();
    await gate.promise;
    return new Response("late");
  });
  return {
    server,
    gate,
    arrived,
    async [Symbol.asyncDispose]() {
      gate.resolve();
      await server.shutdown();
    },
  };
}

Deno.test("a clock ticked past a grab's timeout ends it, on every faked set (performance and Date or not)", async (t) => {
  for (
    const toFake of [
      undefined,
      ["setTimeout", "clearTimeout", "Date"],
      ["setTimeout", "clearTimeout", "Date", "performance"],
      ["setTimeout", "clearTimeout"],
      ["setTimeout", "clearTimeout", "performance"],
    ] as const
  ) {
    await t.step(String(toFake ?? "default"), async () => {
      await using held = heldServer();
      const { server, gate, arrived } = held;
      const clock = FakeTimers.install(
        toFake === undefined
          ? {
            toFake: [
              "setTimeout",
              "clearTimeout",
              "setInterval",
              "clearInterval",
              "Date",
              "performance",
            ],
          }
          : { toFake: [...toFake] },
      );
      try {
        const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
          retry: 0,
        });
        const settling = grab("GET /", { timeout: 5_000 });
        await arrived.promise;
        await clock.tickAsync(5_001);
        const outcome = await guarded(
          settling.then(([, error]) => kindOf(error)),
        );
        assertEquals(outcome, "timeout");
      } finally {
        gate.resolve();
        clock.uninstall();
      }
    });
  }
});

Deno.test("runAllAsync with a grab's timeout pending ends the grab rather than loop", async () => {
  await using held = heldServer();
  const { server, gate, arrived } = held;
  const clock = FakeTimers.install({ loopLimit: 100 });
  try {
    const grab = createGrab(`http://127.0.0.1:${server.addr.port}`);
    const settling = grab("GET /", { timeout: 5_000, attemptTimeout: 1_000 });
    await arrived.promise;
    await clock.runAllAsync();
    const outcome = await guarded(settling.then(([, error]) => kindOf(error)));
    assertEquals(outcome, "timeout");
  } finally {
    gate.resolve();
    clock.uninstall();
  }
});

Deno.test("paginate over three pages with a clock moving with real time", async () => {
  await using server = Deno.serve(HOST, (request) => {
    const page = Number(new URL(request.url).searchParams.get("page") ?? 1);
    const headers: Record<string, string> = {};
    if (page < 3) headers.link = `</?page=${page + 1}>; rel="next"`;
    return Response.json([page], { headers });
  });
  const clock = FakeTimers.install({ shouldAdvanceTime: true });
  try {
    const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
      retry: 0,
      timeout: 2_000,
    });
    const pages: unknown[] = [];
    const outcome = await guarded((async () => {
      for await (const [data] of paginate<number[]>(grab, "GET /")) {
        pages.push(...data);
      }
      return pages;
    })());
    assertEquals(outcome, [1, 2, 3]);
  } finally {
    clock.uninstall();
  }
});

Deno.test("an sse stream's idleTimeout ends a stalled stream as the fake clock passes it, and only then", async () => {
  const stop = Promise.withResolvers<void>();
  await using server = Deno.serve(HOST, () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("data: one\n\n"));
        stop.promise.then(() => controller.close());
      },
    });
    return new Response(body, {
      headers: { "content-type": "text/event-stream" },
    });
  });
  const clock = FakeTimers.install();
  try {
    const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
      retry: 0,
    });
    const [events, error] = await grab("GET /", {
      responseType: "sse",
      idleTimeout: 1_000,
    });
    assertEquals(error, null);
    const seen: unknown[] = [];
    const reading = (async () => {
      for await (const event of events!) seen.push(event.data);
      return kindOf(events!.error);
    })();
    await clock.tickAsync(999);
    assertEquals(events!.error, null);
    await clock.tickAsync(2);
    assertEquals(await guarded(reading), "timeout");
    assertEquals(seen, ["one"]);
  } finally {
    stop.resolve();
    clock.uninstall();
  }
});

Deno.test("a date frozen before grab loads, the timers left real, moves no deadline: a retry that cannot fit is not waited for", async () => {
  const HOLD_MS = 700;
  await using server = Deno.serve(HOST, async () => {
    await new Promise((resolve) => setTimeout(resolve, HOLD_MS));
    return new Response("busy", {
      status: 503,
      headers: { "retry-after": "1" },
    });
  });
  // 1 s of Retry-After fits in the 1.5 s timeout as it starts, but not in
  // what is left of it once the server has held the answer.
  const outcome = await runChild<unknown>(
    "./_fake_timers_child.ts",
    ["--allow-net=127.0.0.1", "--allow-read", "--allow-env"],
    { args: [`http://127.0.0.1:${server.addr.port}`, "date"], guardMs: 30_000 },
  );
  assertEquals(outcome, 503);
});

Deno.test("fake timers in place as grab loads end a grab's timeout as the clock passes it", async () => {
  const gate = Promise.withResolvers<void>();
  await using server = Deno.serve(HOST, async () => {
    await gate.promise;
    return new Response("late");
  });
  try {
    const outcome = await runChild<unknown>(
      "./_fake_timers_child.ts",
      ["--allow-net=127.0.0.1", "--allow-read", "--allow-env"],
      {
        args: [`http://127.0.0.1:${server.addr.port}`, "timers"],
        guardMs: 30_000,
      },
    );
    assertEquals(outcome, "timeout");
  } finally {
    gate.resolve();
  }
});
