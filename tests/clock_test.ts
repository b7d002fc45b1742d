// The wall clock is not the timers' clock: NTP steps it, an operator sets it
// back, a test freezes it (`Date.now` stubbed, real timers). Deadlines count
// on the clock the timers run on, so none of that moves a timeout.
import {
  assert,
  assertEquals,
  assertFalse,
  assertInstanceOf,
} from "@std/assert";
import createGrab, { GrabTransportError } from "../mod.ts";
import { Deadline } from "../src/deadline.ts";
import { runChild } from "./_bounds.ts";
import { startServer } from "./_server.ts";

/**
 * Runs `body` with `Date.now` replaced by `now` (given the real one), then
 * puts it back.
 */
async function withDateNow<T>(
  now: (real: () => number) => number,
  body: () => Promise<T>,
): Promise<T> {
  const real = Date.now;
  Date.now = () => now(real);
  try {
    return await body();
  } finally {
    Date.now = real;
  }
}

const HOUR = 3_600_000;

/**
 * Deadlines of one timeout, enough in what a frozen clock calls one instant
 * to share a timeout signal; once that timeout passed, new ones of the same
 * timeout must not begin passed.
 */
async function deadlinesAfterOnePassed(): Promise<void> {
  const early = Array.from(
    { length: 4 },
    () => new Deadline(5, undefined, "signal"),
  );
  const passed = early.map((deadline) =>
    new Promise<void>((resolve) => deadline.onPass(resolve))
  );
  await Promise.all(passed);
  early.forEach((deadline) => deadline.dispose());
  // Still the same instant by the frozen clock, but not by the timers'.
  const later = Array.from(
    { length: 4 },
    () => new Deadline(5, undefined, "signal"),
  );
  for (const deadline of later) {
    assertFalse(deadline.signal!.aborted, "a new deadline began passed");
    assertEquals(deadline.reason, undefined);
    deadline.dispose();
  }
}

Deno.test("a frozen wall clock never hands a new deadline a shared signal that has passed", async () => {
  const frozen = Date.now();
  await withDateNow(() => frozen, deadlinesAfterOnePassed);
});

Deno.test("a performance.now stubbed after grab loaded moves no deadline", async (t) => {
  await t.step(
    "frozen, it never hands a shared signal that has passed",
    async () => {
      const frozen = performance.now();
      performance.now = () => frozen;
      try {
        await deadlinesAfterOnePassed();
      } finally {
        // The platform's, on the prototype, is seen again.
        delete (performance as { now?: unknown }).now;
      }
    },
  );

  await t.step("taken away, a grab is still sent and read", async () => {
    await using server = startServer(() => Response.json({ ok: true }));
    const grab = createGrab(server.url, { retry: 0, timeout: 30_000 });
    const saved = globalThis.performance;
    Reflect.deleteProperty(globalThis, "performance");
    try {
      const [data, error] = await grab("GET /item");
      assertEquals(error, null);
      assertEquals(data, { ok: true });
    } finally {
      globalThis.performance = saved;
    }
  });
});

Deno.test("the wall clock stepping an hour forward during a grab does not time it out", async (t) => {
  let offset = 0;
  const step = () => {
    offset = HOUR;
  };

  await t.step("while the body is read", async () => {
    offset = 0;
    // Chunks that arrive one at a time, the clock stepped after the first.
    await using server = startServer(() => {
      const parts = ["[1", ",2", ",3]"];
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          await new Promise((resolve) => setTimeout(resolve, 1));
          if (sent === 1) step();
          if (sent === parts.length) return controller.close();
          controller.enqueue(new TextEncoder().encode(parts[sent++]));
        },
      });
      return new Response(body, {
        headers: { "content-type": "application/json" },
      });
    });
    // A fetch of the caller's: its body is read chunk by chunk, the clock
    // looked at after each.
    const grab = createGrab(server.url, {
      retry: 0,
      timeout: 30_000,
      fetch: (input, init) => fetch(input, init),
    });
    const [data, error] = await withDateNow(
      (real) => real() + offset,
      () => grab("GET /items"),
    );
    assertEquals(error, null);
    assertEquals(data, [1, 2, 3]);
  });

  await t.step("before a retry of a network failure", async () => {
    offset = 0;
    await using server = startServer(() => Response.json({ ok: true }));
    let calls = 0;
    const grab = createGrab(server.url, {
      retry: { limit: 1, backoff: () => 1 },
      timeout: 30_000,
      fetch: (input, init) => {
        if (calls++ > 0) return fetch(input, init);
        step();
        return Promise.reject(new TypeError("connection reset"));
      },
    });
    const [data, error] = await withDateNow(
      (real) => real() + offset,
      () => grab("GET /item"),
    );
    assertEquals(error, null);
    assertEquals(data, { ok: true });
    assertEquals(calls, 2);
  });

  await t.step("before a retry the server asks for", async () => {
    offset = 0;
    let calls = 0;
    await using server = startServer(() => {
      if (calls++ > 0) return Response.json({ ok: true });
      step();
      return new Response(null, {
        status: 503,
        headers: { "retry-after": "0" },
      });
    });
    const grab = createGrab(server.url, { retry: 1, timeout: 30_000 });
    const [data, error] = await withDateNow(
      (real) => real() + offset,
      () => grab("GET /item"),
    );
    assertEquals(error, null);
    assertEquals(data, { ok: true });
    assertEquals(calls, 2);
  });
});

Deno.test("a frozen wall clock still lets a caller's signal end a body that never waits", async () => {
  // A body of the caller's fetch that hands over chunk after chunk without
  // ever waiting: only the pauses grab makes let the signal's timer fire.
  const limit = 2_000_000;
  let given = 0;
  const fetch = () => {
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (given++ === limit) return controller.close();
        controller.enqueue(new Uint8Array([0x20]));
      },
    });
    return Promise.resolve(new Response(body));
  };
  const grab = createGrab("http://127.0.0.1:9", {
    retry: 0,
    timeout: false,
    maxBodyBytes: Infinity,
    fetch,
  });
  const frozen = Date.now();
  const [, error] = await withDateNow(() => frozen, () =>
    grab("GET /endless", {
      responseType: "bytes",
      signal: AbortSignal.timeout(20),
    }));
  assertInstanceOf(error, GrabTransportError);
  assertEquals(error.kind, "abort");
  assert(given < limit, "the whole body was read");
});

Deno.test("a fake clock installed before grab loads times out every grab when it passes", async () => {
  // A test runner's global fake timers are in place before the modules
  // load, and leave AbortSignal.timeout real: grabs that start together
  // must still keep timers on the fake clock, not share a real signal that
  // would end them ten real minutes later.
  const report = await runChild<{ kinds: (string | null)[] }>(
    "./_fake_clock_child.ts",
    ["--allow-net=127.0.0.1"],
    { guardMs: 20_000 },
  );
  assertEquals(report.kinds, ["timeout", "timeout"]);
});

Deno.test("a Date.now wrapped before grab loads is no fake clock: a wall clock step moves no deadline", async () => {
  // A profiler or an APM agent wraps Date.now and leaves Date and the
  // timers the platform's: deadlines still count on the timers' clock.
  const report = await runChild<{ data: unknown; kind: string | null }>(
    "./_wrapped_date_now_child.ts",
    ["--allow-net=127.0.0.1"],
    { guardMs: 20_000 },
  );
  assertEquals(report, { data: [1, 2, 3], kind: null });
});
