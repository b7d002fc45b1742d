// A signal that many grabs wait on at once gets one listener from grab: Node
// warns of a leak ("MaxListenersExceededWarning") past ten, which eleven
// grabs sharing a caller's signal, or a timeout signal, would reach.
import { assert, assertEquals } from "@std/assert";
import createGrab from "../mod.ts";
import { stopWaiting, whenAborted } from "../src/abort_fanout.ts";
import { type Listeners, watchListeners } from "./_memory.ts";
import { json, startServer } from "./_server.ts";

/** How many grabs wait at once: more than Node's ten. */
const GRABS = 12;

/**
 * Runs `run` with every signal `AbortSignal.timeout` makes counted (the
 * timeout signals grabs of one timeout share), and gives their counts.
 */
async function withTimeoutSignalsCounted(
  run: () => Promise<unknown>,
): Promise<Listeners[]> {
  const timeout = AbortSignal.timeout;
  const counted: Listeners[] = [];
  AbortSignal.timeout = (ms: number) => {
    const signal = timeout.call(AbortSignal, ms);
    counted.push(watchListeners(signal));
    return signal;
  };
  try {
    await run();
  } finally {
    AbortSignal.timeout = timeout;
  }
  return counted;
}

Deno.test("whenAborted() and stopWaiting()", async (t) => {
  await t.step("one listener for every waiter, each called once", () => {
    const controller = new AbortController();
    const listeners = watchListeners(controller.signal);
    const called: number[] = [];
    const waiters = [0, 1, 2].map((n) => () => void called.push(n));
    for (const waiter of waiters) whenAborted(controller.signal, waiter);
    stopWaiting(controller.signal, waiters[1]!);
    assertEquals(listeners.most, 1);
    controller.abort();
    controller.signal.dispatchEvent(new Event("abort"));
    assertEquals(called, [0, 2]);
    assertEquals(listeners.left(), 0);
  });

  await t.step("the last waiter to go takes the listener off", () => {
    const controller = new AbortController();
    const listeners = watchListeners(controller.signal);
    const [a, b] = [() => {}, () => {}];
    whenAborted(controller.signal, a);
    whenAborted(controller.signal, b);
    stopWaiting(controller.signal, a);
    assertEquals(listeners.left(), 1);
    stopWaiting(controller.signal, b);
    assertEquals(listeners.left(), 0);
    // Waiting again adds it again.
    const called: string[] = [];
    whenAborted(controller.signal, () => void called.push("c"));
    controller.abort();
    assertEquals(called, ["c"]);
  });

  await t.step("a waiter another takes off while told is not called", () => {
    const controller = new AbortController();
    const called: string[] = [];
    const second = () => void called.push("second");
    whenAborted(controller.signal, () => {
      called.push("first");
      stopWaiting(controller.signal, second);
    });
    whenAborted(controller.signal, second);
    controller.abort();
    assertEquals(called, ["first"]);
  });
});

Deno.test(`${GRABS} grabs at once give a signal they share one listener`, async (t) => {
  let served = 0;
  await using server = startServer({
    // Every other request fails first, so that its grab waits to retry.
    "/busy": () =>
      served++ % 2 === 0
        ? json({ busy: true }, { status: 503 })
        : json({ served }),
    "/users/:id": () => json({ id: 1 }),
  });
  const grab = createGrab(server.url);
  const many = (run: () => Promise<readonly unknown[]>) =>
    Promise.all(Array.from({ length: GRABS }, run));

  await t.step("the caller's signal, read or live bodies", async () => {
    for (const responseType of ["json", "stream"] as const) {
      const controller = new AbortController();
      const listeners = watchListeners(controller.signal);
      const results = await many(() =>
        grab("GET /users/1", { signal: controller.signal, responseType })
      );
      for (const [data, error] of results) {
        assertEquals(error, null);
        if (data instanceof ReadableStream) await data.cancel();
      }
      assertEquals(listeners.most, 1, responseType);
      assertEquals(listeners.left(), 0, responseType);
    }
  });

  // Each step's timeout is its own: a signal shared by an earlier step's
  // grabs of the same timeout would be shared by this step's too.
  await t.step("a timeout signal their attempts share", async () => {
    const counted = await withTimeoutSignalsCounted(() =>
      many(() =>
        grab("GET /users/1", { timeout: 29_000, attemptTimeout: 5_000 })
      )
    );
    assert(counted.length > 0, "no timeout signal was shared");
    for (const listeners of counted) {
      assert(listeners.most <= 1, `${listeners.most} listeners at once`);
      assertEquals(listeners.left(), 0);
    }
  });

  await t.step("a timeout signal their waits to retry share", async () => {
    const retry = { limit: 1, backoff: () => 20 };
    const counted = await withTimeoutSignalsCounted(() =>
      many(() => grab("GET /busy", { retry, timeout: 28_000 }))
    );
    assert(counted.length > 0, "no timeout signal was shared");
    for (const listeners of counted) {
      assert(listeners.most <= 1, `${listeners.most} listeners at once`);
      assertEquals(listeners.left(), 0);
    }
  });
});
