import {
  assertEquals,
  assertInstanceOf,
  assertRejects,
  assertStringIncludes,
} from "@std/assert";
import { spy } from "@std/testing/mock";
import { FakeTime } from "@std/testing/time";
import createGrab, { GrabTransportError, GrabValidationError } from "../mod.ts";
import { startServer } from "./_server.ts";
import { type Tap, tap } from "./_streams.ts";
import { settle, until, watch } from "./_time.ts";

const NO_WAIT = { limit: 2, backoff: () => 0 };

/**
 * Counts retries; each retry's wait of 0 ms is a timer that fake time must
 * move past.
 */
function retries() {
  const counter = {
    count: 0,
    hooks: { beforeRetry: () => void counter.count++ },
    async next(time: FakeTime, count: number) {
      await until(time, () => counter.count === count, `retry ${count}`);
      await time.tickAsync(0);
    },
  };
  return counter;
}

/** Answers once the client lets go, so a silent request leaks nothing. */
function silence(request: Request): Promise<Response> {
  return new Promise((resolve) => {
    request.signal.addEventListener("abort", () => resolve(new Response(null)));
  });
}

/**
 * A server whose first `silent` requests get no answer, and the rest `ok`;
 * `/stalled-body` sends its head and then nothing until cancelled.
 */
function server(silent: number) {
  const taps: Tap[] = [];
  let seen = 0;
  const fixture = startServer({
    "/flaky": (request) =>
      ++seen <= silent ? silence(request) : Response.json({ ok: true }),
    "/stalled-body": () => {
      const next = tap();
      taps.push(next);
      next.write('{"ok":');
      return new Response(next.body, {
        headers: { "content-type": "application/json" },
      });
    },
    "/events": () => {
      const next = tap();
      taps.push(next);
      return new Response(next.body, {
        headers: { "content-type": "text/event-stream" },
      });
    },
  });
  return Object.assign(fixture, { taps });
}

Deno.test("attemptTimeout", async (t) => {
  await t.step(
    "an attempt that passes it is retried like a network failure",
    async () => {
      await using fixture = server(1);
      using time = new FakeTime();
      const retried = retries();
      const grab = createGrab(fixture.url, {
        retry: NO_WAIT,
        hooks: retried.hooks,
      });
      const result = watch(grab("GET /flaky", { attemptTimeout: 100 }));
      await until(
        time,
        () => fixture.requests.length === 1,
        "the first attempt",
      );
      await time.tickAsync(99);
      assertEquals(fixture.requests.length, 1);
      await time.tickAsync(1);
      await retried.next(time, 1);
      const [data, error] = await settle(time, result);
      assertEquals(error, null);
      assertEquals(data, { ok: true });
      assertEquals(fixture.requests.length, 2);
    },
  );

  await t.step(
    "with no retry left, the grab fails with kind timeout",
    async () => {
      await using fixture = server(9);
      using time = new FakeTime();
      const grab = createGrab(fixture.url, { retry: NO_WAIT });
      const result = watch(grab("POST /flaky", { attemptTimeout: 100 }));
      await until(time, () => fixture.requests.length === 1, "the attempt");
      await time.tickAsync(100);
      const [, error] = await settle(time, result);
      assertInstanceOf(error, GrabTransportError);
      assertEquals(error.kind, "timeout");
      assertStringIncludes(error.message, "the attemptTimeout (100 ms) passed");
      assertEquals(fixture.requests.length, 1);
    },
  );

  await t.step("it bounds the body of a buffered response too", async () => {
    await using fixture = server(0);
    using time = new FakeTime();
    const retried = retries();
    const grab = createGrab(fixture.url, {
      retry: { limit: 1, backoff: () => 0 },
      hooks: retried.hooks,
    });
    const result = watch(grab("GET /stalled-body", { attemptTimeout: 100 }));
    await until(time, () => fixture.taps.length === 1, "the first head");
    await time.tickAsync(100);
    await retried.next(time, 1);
    await until(time, () => fixture.taps.length === 2, "the retry");
    await time.tickAsync(100);
    const [, error] = await settle(time, result);
    assertEquals((error as GrabTransportError).kind, "timeout");
    assertStringIncludes(error!.message, "the attemptTimeout (100 ms) passed");
    await fixture.taps[0]!.cancelled;
    await fixture.taps[1]!.cancelled;
  });

  await t.step("timeout still bounds the whole grab", async () => {
    await using fixture = server(9);
    using time = new FakeTime();
    const retried = retries();
    const grab = createGrab(fixture.url, {
      retry: NO_WAIT,
      hooks: retried.hooks,
    });
    const result = watch(
      grab("GET /flaky", { attemptTimeout: 100, timeout: 150 }),
    );
    await until(time, () => fixture.requests.length === 1, "the first attempt");
    await time.tickAsync(100);
    await retried.next(time, 1);
    await until(
      time,
      () => fixture.requests.length === 2,
      "the second attempt",
    );
    await time.tickAsync(50);
    const [, error] = await settle(time, result);
    assertEquals((error as GrabTransportError).kind, "timeout");
    // The grab's own timeout ended it, not the attempt's.
    assertStringIncludes(error!.message, "the timeout (150 ms) passed");
    assertEquals(fixture.requests.length, 2);
  });

  await t.step(
    "a live body outlives timeout but not attemptTimeout",
    async () => {
      await using fixture = server(0);
      using time = new FakeTime();
      const grab = createGrab(fixture.url);
      const result = watch(grab("GET /events", {
        responseType: "sse",
        timeout: 50,
        attemptTimeout: 1_000,
      }));
      const [events, error] = await settle(time, result);
      assertEquals(error, null);
      const live = fixture.taps[0]!;
      await time.tickAsync(500);
      live.write("data: still here\n\n");
      const iterator = events![Symbol.asyncIterator]();
      const first = watch(iterator.next());
      const step = await settle(time, first);
      assertEquals(step.value?.data, "still here");
      const second = watch(iterator.next());
      await time.tickAsync(500);
      assertEquals((await settle(time, second)).done, true);
      assertEquals(events!.error?.kind, "timeout");
      await live.cancelled;
    },
  );

  await t.step(
    "a live body nobody reads lets go of the caller's signal when it ends",
    async () => {
      await using fixture = server(0);
      using time = new FakeTime();
      const controller = new AbortController();
      using added = spy(controller.signal, "addEventListener");
      using removed = spy(controller.signal, "removeEventListener");
      // The listeners on the signal now: added and not removed since.
      const listening = () => {
        const left = added.calls.map((call) => call.args[1]);
        for (const call of removed.calls) {
          const at = left.indexOf(call.args[1]);
          if (at !== -1) left.splice(at, 1);
        }
        return left.length;
      };
      const grab = createGrab(fixture.url);
      const result = watch(grab("GET /events", {
        responseType: "sse",
        signal: controller.signal,
        attemptTimeout: 100,
      }));
      const [events] = await settle(time, result);
      assertEquals(listening(), 1);
      await time.tickAsync(100);
      await fixture.taps[0]!.cancelled;
      assertEquals(listening(), 0);
      // The stream tells why it ended once it is read.
      for await (const _ of events!) { /* nothing arrives */ }
      assertEquals(events!.error?.kind, "timeout");
    },
  );

  await t.step("a value out of range is refused", async () => {
    const grab = createGrab("http://127.0.0.1:9");
    for (
      const attemptTimeout of [
        0,
        -1,
        2 ** 31,
        Number.NaN,
        "5" as unknown as number,
      ]
    ) {
      await assertRejects(
        () => grab("GET /x", { attemptTimeout }),
        GrabValidationError,
        "attemptTimeout",
      );
    }
    let thrown: unknown;
    try {
      createGrab("http://127.0.0.1:9", { attemptTimeout: 0 });
    } catch (error) {
      thrown = error;
    }
    assertInstanceOf(thrown, GrabValidationError);
  });
});
