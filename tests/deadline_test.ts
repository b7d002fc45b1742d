import {
  assert,
  assertEquals,
  assertFalse,
  assertInstanceOf,
  assertRejects,
  assertStrictEquals,
} from "@std/assert";
import { assertSpyCalls, spy } from "@std/testing/mock";
import { FakeTime } from "@std/testing/time";
import { Deadline, PASSED, sleep } from "../src/deadline.ts";
import { watch } from "./_time.ts";

/** A promise that never settles and holds no timer or resource. */
function never<T>(): Promise<T> {
  return new Promise<T>(() => {});
}

/** A promise and the functions that settle it. */
function deferred<T>(): {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
} {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

Deno.test("new Deadline() starts the clock", async (t) => {
  await t.step("a timeout in ms: that much is left", () => {
    using _time = new FakeTime(10_000);
    const deadline = new Deadline(500, undefined);
    assertEquals(deadline.left(), 500);
    assert(deadline.signal instanceof AbortSignal);
    assertFalse(deadline.signal.aborted);
    assertStrictEquals(deadline.reason, undefined);
    deadline.dispose();
  });

  await t.step("the signal aborts when the timeout passes, not before", () => {
    using time = new FakeTime(0);
    const deadline = new Deadline(500, undefined);
    time.tick(499);
    assertFalse(deadline.signal!.aborted);
    assertStrictEquals(deadline.reason, undefined);
    time.tick(1);
    assert(deadline.signal!.aborted);
    assertEquals(deadline.reason, "timeout");
    const cause = deadline.signal!.reason;
    assertInstanceOf(cause, DOMException);
    assertEquals(cause.name, "TimeoutError");
    deadline.dispose();
  });

  const unbounded: [string, false | number][] = [
    ["false", false],
    ["Infinity", Infinity],
  ];
  for (const [name, timeout] of unbounded) {
    await t.step(
      `timeout ${name} and no signal: no signal, Infinity left`,
      () => {
        using time = new FakeTime(0);
        const deadline = new Deadline(timeout, undefined);
        assertStrictEquals(deadline.signal, undefined);
        assertEquals(deadline.left(), Infinity);
        assertFalse(time.next(), "no timer was started");
        assertStrictEquals(deadline.reason, undefined);
        deadline.dispose();
      },
    );
  }

  await t.step("timeout false with a caller's signal: abort only", () => {
    using time = new FakeTime(0);
    const controller = new AbortController();
    const deadline = new Deadline(false, controller.signal);
    assertEquals(deadline.left(), Infinity);
    assert(deadline.signal instanceof AbortSignal);
    assertFalse(time.next(), "no timer was started");
    const why = new Error("the caller stopped");
    controller.abort(why);
    assertEquals(deadline.reason, "abort");
    assert(deadline.signal.aborted);
    assertStrictEquals(deadline.signal.reason, why);
    deadline.dispose();
  });

  await t.step("an already aborted signal: aborted at once, no timer", () => {
    using time = new FakeTime(0);
    const why = new Error("before the start");
    const deadline = new Deadline(500, AbortSignal.abort(why));
    assertEquals(deadline.reason, "abort");
    assert(deadline.signal!.aborted);
    assertStrictEquals(deadline.signal!.reason, why);
    assertFalse(time.next(), "no timer was started");
    deadline.dispose();
  });

  await t.step("the timeout first: reason stays timeout", () => {
    using time = new FakeTime(0);
    const controller = new AbortController();
    const deadline = new Deadline(100, controller.signal);
    time.tick(100);
    const cause = deadline.signal!.reason;
    controller.abort();
    assertEquals(deadline.reason, "timeout");
    assertStrictEquals(deadline.signal!.reason, cause);
    deadline.dispose();
  });

  await t.step("the caller's abort first: reason stays abort", () => {
    using time = new FakeTime(0);
    const controller = new AbortController();
    const deadline = new Deadline(100, controller.signal);
    controller.abort("stop");
    time.tick(100);
    assertEquals(deadline.reason, "abort");
    assertEquals(deadline.signal!.reason, "stop");
    deadline.dispose();
  });
});

Deno.test("Deadline.race() bounds a value by the deadline", async (t) => {
  await t.step("resolves with the value", async () => {
    using _time = new FakeTime(0);
    const deadline = new Deadline(100, undefined);
    assertEquals(await deadline.race(Promise.resolve(42)), 42);
    deadline.dispose();
  });

  await t.step("rejects with the value's rejection", async () => {
    using _time = new FakeTime(0);
    const deadline = new Deadline(100, undefined);
    const boom = new Error("boom");
    const error = await assertRejects(() =>
      deadline.race(Promise.reject(boom))
    );
    assertStrictEquals(error, boom);
    deadline.dispose();
  });

  await t.step("a value that wins never reaches late", async () => {
    using time = new FakeTime(0);
    const deadline = new Deadline(100, undefined);
    const late = spy((_value: number) => {});
    assertEquals(await deadline.race(Promise.resolve(1), late), 1);
    await time.tickAsync(100);
    assertSpyCalls(late, 0);
    deadline.dispose();
  });

  await t.step(
    "rejects with PASSED when the deadline passes and the value never settles",
    async () => {
      using time = new FakeTime(0);
      const deadline = new Deadline(100, undefined);
      const racing = watch(deadline.race(never<number>()));
      await time.tickAsync(99);
      assertFalse(racing.settled);
      await time.tickAsync(1);
      assert(racing.settled);
      const reason = await racing.promise.then(() => "resolved", (e) => e);
      assertStrictEquals(reason, PASSED);
      deadline.dispose();
    },
  );

  await t.step("rejects with PASSED when the caller aborts", async () => {
    const controller = new AbortController();
    const deadline = new Deadline(false, controller.signal);
    const racing = deadline.race(never<number>());
    controller.abort();
    const reason = await racing.then(() => "resolved", (e) => e);
    assertStrictEquals(reason, PASSED);
    deadline.dispose();
  });

  await t.step(
    "late receives a value that resolves after the race was lost",
    async () => {
      using time = new FakeTime(0);
      const deadline = new Deadline(100, undefined);
      let cancelled = 0;
      const response = new Response(
        new ReadableStream<Uint8Array>({
          cancel() {
            cancelled++;
          },
        }),
      );
      const arriving = deferred<Response>();
      const late = spy(async (value: Response) => {
        await value.body?.cancel();
      });
      const racing = deadline.race(arriving.promise, late);
      await time.tickAsync(100);
      const reason = await racing.then(() => "resolved", (e) => e);
      assertStrictEquals(reason, PASSED);
      assertSpyCalls(late, 0);
      arriving.resolve(response);
      await time.runMicrotasks();
      assertSpyCalls(late, 1);
      assertStrictEquals(late.calls[0]!.args[0], response);
      assertEquals(cancelled, 1);
      deadline.dispose();
    },
  );

  await t.step(
    "a value settled in the turn the deadline passes, before its reaction ran: PASSED, and the value goes to late once",
    async () => {
      const controller = new AbortController();
      const deadline = new Deadline(false, controller.signal);
      const late = spy((_value: string) => {});
      const racing = deadline.race(Promise.resolve("x"), late);
      // The value is in, but no reaction to it has run yet.
      controller.abort();
      const reason = await racing.then(() => "resolved", (e) => e);
      assertStrictEquals(reason, PASSED);
      await new Promise((resolve) => setTimeout(resolve, 0));
      assertEquals(late.calls.map((call) => call.args[0]), ["x"]);
      deadline.dispose();
    },
  );

  await t.step("a late value that rejects escapes nowhere", async () => {
    using time = new FakeTime(0);
    const deadline = new Deadline(100, undefined);
    const arriving = deferred<number>();
    const late = spy((_value: number) => {});
    const racing = deadline.race(arriving.promise, late);
    await time.tickAsync(100);
    await assertRejects(() => racing);
    arriving.reject(new Error("too late to matter"));
    await time.runMicrotasks();
    assertSpyCalls(late, 0);
    deadline.dispose();
  });

  await t.step("a late that throws escapes nowhere", async () => {
    using time = new FakeTime(0);
    const deadline = new Deadline(100, undefined);
    const arriving = deferred<number>();
    const late = spy((_value: number): void => {
      throw new Error("release failed");
    });
    const racing = deadline.race(arriving.promise, late);
    await time.tickAsync(100);
    await assertRejects(() => racing);
    arriving.resolve(1);
    await time.runMicrotasks();
    assertSpyCalls(late, 1);
    deadline.dispose();
  });

  await t.step("a non-thenable value resolves as it is", async () => {
    using _time = new FakeTime(0);
    const deadline = new Deadline(100, undefined);
    const value = { then: 1 };
    assertStrictEquals(await deadline.race(value), value);
    assertEquals(await deadline.race(7), 7);
    deadline.dispose();
  });

  await t.step("without a signal the value is simply awaited", async () => {
    const deadline = new Deadline(false, undefined);
    assertEquals(await deadline.race(Promise.resolve("x")), "x");
    assertEquals(await deadline.race("y"), "y");
    deadline.dispose();
  });

  await t.step(
    "after the deadline passed: PASSED at once, the value goes to late",
    async () => {
      const deadline = new Deadline(false, AbortSignal.abort());
      const late = spy((_value: string) => {});
      const reason = await deadline.race(Promise.resolve("x"), late).then(
        () => "resolved",
        (e) => e,
      );
      assertStrictEquals(reason, PASSED);
      const plain = await deadline.race("y", late).then(
        () => "resolved",
        (e) => e,
      );
      assertStrictEquals(plain, PASSED);
      await Promise.resolve();
      assertEquals(late.calls.map((call) => call.args[0]), ["x", "y"]);
      deadline.dispose();
    },
  );
});

Deno.test("Deadline.onPass()", async (t) => {
  await t.step("calls the waiter once when the deadline passes", () => {
    using time = new FakeTime(0);
    const controller = new AbortController();
    const deadline = new Deadline(100, controller.signal);
    const waiter = spy(() => {});
    deadline.onPass(waiter);
    time.tick(99);
    assertSpyCalls(waiter, 0);
    time.tick(1);
    assertSpyCalls(waiter, 1);
    controller.abort();
    time.tick(1_000);
    assertSpyCalls(waiter, 1);
    deadline.dispose();
  });

  await t.step("calls the waiter at once when it has passed", () => {
    const deadline = new Deadline(100, AbortSignal.abort());
    const waiter = spy(() => {});
    const stop = deadline.onPass(waiter);
    assertSpyCalls(waiter, 1);
    stop();
    assertSpyCalls(waiter, 1);
    deadline.dispose();
  });

  await t.step("the returned function stops waiting", () => {
    using time = new FakeTime(0);
    const deadline = new Deadline(100, undefined);
    const stopped = spy(() => {});
    const kept = spy(() => {});
    const stop = deadline.onPass(stopped);
    deadline.onPass(kept);
    stop();
    time.tick(100);
    assertSpyCalls(stopped, 0);
    assertSpyCalls(kept, 1);
    deadline.dispose();
  });

  await t.step("never calls the waiter when nothing can abort", () => {
    const deadline = new Deadline(false, undefined);
    const waiter = spy(() => {});
    const stop = deadline.onPass(waiter);
    stop();
    assertSpyCalls(waiter, 0);
    deadline.dispose();
  });
});

Deno.test("Deadline.dispose()", async (t) => {
  await t.step("clears the timer: nothing passes afterwards", () => {
    using time = new FakeTime(0);
    const deadline = new Deadline(100, undefined);
    const waiter = spy(() => {});
    deadline.onPass(waiter);
    deadline.dispose();
    assertFalse(time.next(), "no timer is pending");
    time.tick(1_000);
    assertFalse(deadline.signal!.aborted);
    assertStrictEquals(deadline.reason, undefined);
    assertSpyCalls(waiter, 0);
  });

  await t.step("removes the listener on the caller's signal", () => {
    using time = new FakeTime(0);
    const controller = new AbortController();
    const added = spy(controller.signal, "addEventListener");
    const removed = spy(controller.signal, "removeEventListener");
    try {
      const deadline = new Deadline(100, controller.signal);
      assertSpyCalls(added, 1);
      deadline.dispose();
      assertSpyCalls(removed, 1);
      assertEquals(removed.calls[0]!.args[0], "abort");
      assertStrictEquals(removed.calls[0]!.args[1], added.calls[0]!.args[1]);
      controller.abort();
      time.tick(1_000);
      assertFalse(deadline.signal!.aborted);
      assertStrictEquals(deadline.reason, undefined);
    } finally {
      added.restore();
      removed.restore();
    }
  });

  await t.step("is harmless without a timer or a signal, and twice", () => {
    const deadline = new Deadline(false, undefined);
    deadline.dispose();
    deadline.dispose();
    assertStrictEquals(deadline.reason, undefined);
  });
});

Deno.test("sleep()", async (t) => {
  await t.step("resolves true after ms", async () => {
    using time = new FakeTime(0);
    const slept = watch(sleep(250, undefined));
    await time.tickAsync(249);
    assertFalse(slept.settled);
    await time.tickAsync(1);
    assert(slept.settled);
    assertEquals(await slept.promise, true);
  });

  await t.step("resolves true and stops listening to the signal", async () => {
    using time = new FakeTime(0);
    const controller = new AbortController();
    const removed = spy(controller.signal, "removeEventListener");
    try {
      const slept = sleep(250, controller.signal);
      await time.tickAsync(250);
      assertEquals(await slept, true);
      assertSpyCalls(removed, 1);
    } finally {
      removed.restore();
    }
  });

  await t.step("an aborted signal: false at once, no timer", async () => {
    using time = new FakeTime(0);
    const slept = sleep(250, AbortSignal.abort());
    assertFalse(time.next(), "no timer was started");
    assertEquals(await slept, false);
  });

  await t.step("an abort while sleeping: false, timer cleared", async () => {
    using time = new FakeTime(0);
    const controller = new AbortController();
    const slept = watch(sleep(250, controller.signal));
    await time.tickAsync(100);
    assertFalse(slept.settled);
    controller.abort();
    assertEquals(await slept.promise, false);
    assertFalse(time.next(), "the timer was cleared");
  });
});

/**
 * Deadlines of `timeout` that share one signal, made in one millisecond of
 * the timers' clock (retried across a tick): the first deadline of a window
 * keeps a timer of its own, so a third is made and the first disposed.
 */
function twoInOneMillisecond(timeout: number): [Deadline, Deadline] {
  const millisecond = () => Math.floor(performance.now());
  for (let tries = 0; tries < 1_000; tries++) {
    const before = millisecond();
    const [first, ...pair] = [0, 1, 2].map(() =>
      new Deadline(timeout, undefined, "signal")
    ) as [Deadline, Deadline, Deadline];
    first.dispose();
    if (millisecond() === before) return pair;
    pair.forEach((deadline) => deadline.dispose());
  }
  throw new Error("Never made three deadlines in one millisecond");
}

Deno.test("shared deadlines", async (t) => {
  await t.step(
    "share one timeout signal within a millisecond, with no timer of their own",
    () => {
      const [a, b] = twoInOneMillisecond(30_000);
      assertStrictEquals(a.signal, b.signal);
      // Each counts its own timeout from its start, b's after a's (read
      // first, so that no time between the reads can turn the order).
      const [bLeft, aLeft] = [b.left(), a.left()];
      assert(aLeft <= bLeft && bLeft <= 30_000, `${aLeft}, ${bLeft} left`);
      a.dispose();
      b.dispose();
      // The sanitizers pass with the signal still counting: it holds no timer
      // that keeps the program alive and needs no clearing.
    },
  );

  await t.step(
    "another timeout, a caller's signal or shared=false get their own",
    () => {
      const [a] = twoInOneMillisecond(30_000);
      const others = [
        new Deadline(20_000, undefined, "signal"),
        new Deadline(30_000, new AbortController().signal, "signal"),
        new Deadline(30_000, undefined, false),
      ];
      for (const other of others) {
        assert(other.signal !== a.signal);
        other.dispose();
      }
      a.dispose();
    },
  );

  await t.step(
    "pass by themselves: the reason reads timeout, waiters are told",
    async () => {
      const [a, b] = twoInOneMillisecond(5);
      const told = deferred<void>();
      b.onPass(() => told.resolve());
      await told.promise;
      assertEquals(a.reason, "timeout");
      assertEquals(b.reason, "timeout");
      assertInstanceOf(a.signal?.reason, DOMException);
      const lost = await a.race(never()).catch((error: unknown) => error);
      assertStrictEquals(lost, PASSED);
      a.dispose();
      b.dispose();
    },
  );

  await t.step(
    "are told once each when they pass; a disposed one is not told",
    async () => {
      const [a, b] = twoInOneMillisecond(5);
      const told: string[] = [];
      const passed = deferred<void>();
      b.onPass(() => told.push("b"));
      a.onPass(() => told.push("a"));
      a.onPass(() => {
        told.push("a again");
        passed.resolve();
      });
      b.dispose();
      await passed.promise;
      // Time for a late call to the disposed one to show.
      await new Promise((resolve) => setTimeout(resolve, 10));
      assertEquals(told, ["a", "a again"]);
      assertEquals(a.reason, "timeout");
      a.dispose();
    },
  );

  await t.step("cannot be kept for a live body", () => {
    const [a, b] = twoInOneMillisecond(30_000);
    let thrown: unknown;
    try {
      a.keepFor(true);
    } catch (error) {
      thrown = error;
    }
    assertInstanceOf(thrown, TypeError);
    a.dispose();
    b.dispose();
  });

  await t.step(
    "a long timeout shares one signal over a window of 1/2000 of it",
    () => {
      // 30 s: grabs that start within the same 15 ms share a signal (but
      // the first of each window), so over a few milliseconds there are
      // fewer signals than milliseconds.
      const made: Deadline[] = [];
      const signals = new Set<AbortSignal>();
      const millis = new Set<number>();
      while (millis.size < 8) {
        millis.add(Date.now());
        const deadline = new Deadline(30_000, undefined, "signal");
        made.push(deadline);
        signals.add(deadline.signal!);
      }
      assert(signals.size < millis.size, `${signals.size} signals`);
      made.forEach((deadline) => deadline.dispose());
    },
  );

  await t.step(
    "the first deadline of a window keeps a timer of its own, cleared when it is disposed",
    async () => {
      // Timeouts met once each (counted from a budget, say) share nothing:
      // a timeout signal of each would count on, holding its memory, long
      // after its grab settled.
      const signals = Array.from({ length: 10 }, (_, at) => {
        const deadline = new Deadline(20 + at, undefined, "signal");
        deadline.dispose();
        return deadline.signal!;
      });
      // Made after them, so it aborts after any of them would have.
      const later = AbortSignal.timeout(60);
      await new Promise((resolve) =>
        later.addEventListener("abort", resolve, { once: true })
      );
      assertEquals(signals.filter((signal) => signal.aborted), []);
    },
  );

  await t.step(
    "deadlines of two timeouts made in turn share one signal per timeout",
    () => {
      // A try whose deadlines straddle the end of a window gets new
      // signals there; the windows are counted on the timers' clock, so
      // no reading of either clock tells such a try apart beforehand. Some
      // try must show the sharing; none may share across the two timeouts.
      for (let tries = 0; tries < 1_000; tries++) {
        const made = [0, 1, 2, 3, 4, 5].map((at) =>
          new Deadline(at % 2 === 0 ? 40_000 : 50_000, undefined, "signal")
        );
        made.forEach((deadline) => deadline.dispose());
        const [, , a2, b2, a3, b3] = made.map((deadline) => deadline.signal);
        assert(a2 !== b2 && a3 !== b3, "two timeouts share no signal");
        if (a3 === a2 && b3 === b2) return;
      }
      throw new Error("Six deadlines made in turn never shared their signals");
    },
  );

  await t.step(
    'shared="timer": a signal of its own that aborts with the shared one, and no more once disposed',
    async () => {
      // 60 ms: one window a millisecond. A hook or a custom fetch sees
      // these signals, so none is the shared one, and none aborts after
      // its deadline was disposed.
      const kept: Deadline[] = [];
      const disposed: Deadline[] = [];
      // Deadlines of the same windows that share the signal itself.
      const plain = new Set<AbortSignal>();
      let plains = 0;
      for (let at = 0; at < 20 || plain.size === plains; at++) {
        const deadline = new Deadline(60, undefined, "timer");
        (at % 2 === 0 ? kept : disposed).push(deadline);
        const other = new Deadline(60, undefined, "signal");
        plain.add(other.signal!);
        plains++;
        other.dispose();
      }
      disposed.forEach((deadline) => deadline.dispose());
      const signals = new Set([...kept, ...disposed].map((d) => d.signal));
      assertEquals(signals.size, kept.length + disposed.length);
      assertEquals([...signals].filter((signal) => plain.has(signal!)), []);
      const later = AbortSignal.timeout(120);
      await new Promise((resolve) =>
        later.addEventListener("abort", resolve, { once: true })
      );
      for (const deadline of kept) {
        assertEquals(deadline.signal?.reason?.name, "TimeoutError");
        assertEquals(deadline.reason, "timeout");
        deadline.dispose();
      }
      assertEquals(disposed.filter((d) => d.signal!.aborted), []);
      assertEquals(
        disposed.map((d) => d.reason),
        disposed.map(() => undefined),
      );
    },
  );

  await t.step(
    "a timeout near a timer's limit is never shared, so never shortened",
    () => {
      const a = new Deadline(2 ** 31 - 1, undefined, "signal");
      const b = new Deadline(2 ** 31 - 1, undefined, "signal");
      assert(a.signal !== b.signal);
      a.dispose();
      b.dispose();
    },
  );

  await t.step(
    "a fake clock is honoured: each deadline keeps its own timer",
    async () => {
      using time = new FakeTime();
      const a = new Deadline(100, undefined, "signal");
      const b = new Deadline(100, undefined, "signal");
      assert(a.signal !== b.signal);
      await time.tickAsync(99);
      assertEquals(a.reason, undefined);
      await time.tickAsync(1);
      assertEquals(a.reason, "timeout");
      assertEquals(b.reason, "timeout");
    },
  );
});
