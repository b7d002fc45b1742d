/**
 * A custom `fetch`'s first attempt is read outside the attempt loop
 * (`attemptAll`), as the platform's is. Whatever that `fetch` does, the
 * outcome must be the one the loop (`runAttempts`) gives: the same kind,
 * message and cause, the same number of attempts, every body that is not
 * read cancelled alike.
 *
 * @module
 */

import { assert, assertEquals, assertFalse } from "@std/assert";
import { FakeTime } from "@std/testing/time";
import { runAttempts } from "../src/attempts.ts";
import { attemptAll } from "../src/plain_attempt.ts";
import { Deadline } from "../src/deadline.ts";
import type { Fetch } from "../src/fetch.ts";
import type { SendOutcome } from "../src/result.ts";
import { exchangeOf } from "./_exchange.ts";
import { firstThen, ok, resetMidBody, startFaultServer } from "./_faults.ts";
import { json, startServer } from "./_server.ts";
import { settle, watch } from "./_time.ts";

/** What an outcome shows a caller, and what the attempts did meanwhile. */
interface Seen {
  ok: boolean;
  status?: number;
  body?: unknown;
  kind?: string;
  message?: string;
  cause?: string;
  /** Calls of `fetch`. */
  calls: number;
  /** Bodies of the responses given that were cancelled. */
  cancels: number;
}

/** One custom `fetch`, fresh for each run, and how to drive its run. */
interface Setup {
  fetch: Fetch;
  /** The deadline of the run; 10 s without a signal when absent. */
  deadline?: Deadline;
  /** Done while the run is under way (an abort). */
  drive?: () => void;
  /** Done once the run settled (a response that comes late). */
  after?: () => Promise<void>;
}

/** A response whose body, when cancelled, is counted. */
function counted(
  response: Response,
  onCancel: () => void,
): Response {
  const reader = response.body!.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      onCancel();
      return reader.cancel(reason);
    },
  });
  return new Response(body, response);
}

/**
 * `response` seen through a Proxy, as a response-like from another realm
 * or a polyfill: every member the response's own, bound to it, but those
 * `changed` gives.
 */
function responseLike(
  response: Response,
  changed: Record<string, unknown> = {},
): Response {
  return new Proxy(response, {
    get(target, key) {
      if (typeof key === "string" && key in changed) return changed[key];
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A turn of the event loop, for a late response to be let go. */
function aTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Runs one exchange through the loop or the short path, as seen. */
async function run(
  path: "loop" | "short",
  href: string,
  setup: (seen: Seen) => Setup,
): Promise<Seen> {
  const seen: Seen = { ok: false, calls: 0, cancels: 0 };
  const { fetch, deadline, drive, after } = setup(seen);
  const calling: Fetch = (input, init) => {
    seen.calls++;
    return fetch(input, init);
  };
  const given = deadline ?? new Deadline(10_000, undefined);
  const exchange = exchangeOf(href, { fetch: calling, deadline: given });
  const running = path === "loop"
    ? runAttempts(exchange)
    : attemptAll(exchange);
  drive?.();
  const outcome = await running;
  await after?.();
  given.dispose();
  return describe(outcome, seen);
}

function describe(outcome: SendOutcome, seen: Seen): Seen {
  if (outcome.ok) {
    return { ...seen, ok: true, status: outcome.status, body: outcome.body };
  }
  const { kind, message, cause } = outcome.error;
  return {
    ...seen,
    kind,
    message,
    cause: cause instanceof Error ? cause.message : String(cause),
  };
}

/** Both paths' runs, which must be alike; the short path's is returned. */
async function alike(
  href: string,
  setup: (seen: Seen) => Setup,
): Promise<Seen> {
  const loop = await run("loop", href, setup);
  const short = await run("short", href, setup);
  assertEquals(short, loop);
  return short;
}

Deno.test("a custom fetch's first attempt has the outcome the attempt loop gives it", async (t) => {
  await using server = startServer({
    "/json": () => json([1]),
    "/busy": () => json({ busy: true }, { status: 503 }),
    "/later": () =>
      json({ busy: true }, { status: 503, headers: { "retry-after": "3600" } }),
    "/soon": (_request, seen) =>
      seen.url.searchParams.has("again") ? json([2]) : json({ busy: true }, {
        status: 503,
        headers: { "retry-after": "0" },
      }),
  });
  const at = (path: string) => `${server.url}${path}`;
  /** A wrapper of the platform's fetch, its bodies counted. */
  const wrapper = (seen: Seen): Fetch => async (input, init) =>
    counted(await fetch(input, init), () => seen.cancels++);

  await t.step("a plain answer", async () => {
    const seen = await alike(at("/json"), (seen) => ({
      fetch: wrapper(seen),
    }));
    assertEquals([seen.ok, seen.status, seen.body], [true, 200, [1]]);
    assertEquals([seen.calls, seen.cancels], [1, 0]);
  });

  await t.step("a fetch that throws as it is called", async () => {
    const seen = await alike(at("/json"), () => ({
      fetch: () => {
        throw new TypeError("no network here");
      },
    }));
    assertEquals([seen.kind, seen.cause, seen.calls], [
      "network",
      "no network here",
      3,
    ]);
  });

  await t.step("a fetch that answers without a promise", async () => {
    const seen = await alike(at("/json"), () => ({
      fetch: (() => json([1])) as unknown as Fetch,
    }));
    assertEquals([seen.ok, seen.body, seen.calls], [true, [1], 1]);
  });

  await t.step("a fetch that answers with what is no response", async () => {
    const seen = await alike(at("/json"), () => ({
      fetch: () => Promise.resolve(42 as unknown as Response),
    }));
    assertEquals(seen.kind, "network");
    assertEquals(
      seen.cause,
      "Cannot read the response: fetch did not return one",
    );
  });

  await t.step("a response-like answer", async () => {
    const seen = await alike(at("/json"), (seen) => ({
      fetch: async (input, init) => {
        const response = counted(
          await fetch(input, init),
          () => seen.cancels++,
        );
        return responseLike(response);
      },
    }));
    assertEquals([seen.ok, seen.body, seen.calls], [true, [1], 1]);
  });

  await t.step("Response.error(): a network failure, retried", async () => {
    const seen = await alike(at("/json"), () => ({
      fetch: () => Promise.resolve(Response.error()),
    }));
    assertEquals([seen.kind, seen.calls], ["network", 3]);
    assertEquals(seen.cause, "The response is a network error");
  });

  await t.step("a response given again, its body read already", async () => {
    const used = json([1]);
    await used.text();
    const seen = await alike(at("/json"), () => ({
      fetch: () => Promise.resolve(used),
    }));
    assertEquals([seen.kind, seen.calls], ["network", 1]);
  });

  await t.step("a response of status 0 that is no network error", async () => {
    const seen = await alike(at("/json"), (seen) => ({
      fetch: async (input, init) => {
        const response = counted(
          await fetch(input, init),
          () => seen.cancels++,
        );
        return responseLike(response, { status: 0 });
      },
    }));
    assertEquals([seen.ok, seen.status, seen.calls], [true, 0, 1]);
  });

  await t.step(
    "a 503 retried as Retry-After says, its body cancelled",
    async () => {
      let sent = 0;
      const seen = await alike(at("/soon"), (seen) => ({
        fetch: (input, init) =>
          wrapper(seen)(`${input}${sent++ % 2 === 1 ? "?again" : ""}`, init),
      }));
      assertEquals([seen.ok, seen.body, seen.calls], [true, [2], 2]);
      assertEquals(seen.cancels, 1);
    },
  );

  await t.step("a 503 every time: the last one is the outcome", async () => {
    const seen = await alike(at("/busy"), (seen) => ({
      fetch: wrapper(seen),
    }));
    assertEquals([seen.ok, seen.status, seen.body], [true, 503, {
      busy: true,
    }]);
    assertEquals([seen.calls, seen.cancels], [3, 2]);
  });

  await t.step("a 503 whose Retry-After outlasts the timeout", async () => {
    const seen = await alike(at("/later"), (seen) => ({
      fetch: wrapper(seen),
    }));
    assertEquals([seen.status, seen.calls, seen.cancels], [503, 1, 0]);
  });

  await t.step("a body that breaks off, retried", async () => {
    // A server of its own for each path: its first answer breaks off.
    const faults: AsyncDisposable[] = [];
    const seen = await alike("http://127.0.0.1:1/", (seen) => {
      const flaky = startFaultServer(firstThen(1, resetMidBody, ok([3])));
      faults.push(flaky);
      return { fetch: (_input, init) => wrapper(seen)(`${flaky.url}/`, init) };
    });
    for (const fault of faults) await fault[Symbol.asyncDispose]();
    assertEquals([seen.ok, seen.body, seen.calls], [true, [3], 2]);
  });

  await t.step("a fetch that never settles, the caller's abort", async () => {
    const seen = await alike(at("/json"), () => {
      const controller = new AbortController();
      return {
        fetch: () => new Promise<never>(() => {}),
        deadline: new Deadline(false, controller.signal),
        drive: () => controller.abort(new Error("the caller left")),
      };
    });
    assertEquals([seen.kind, seen.cause, seen.calls], [
      "abort",
      "the caller left",
      1,
    ]);
  });

  await t.step(
    "a response that comes after the abort is cancelled",
    async () => {
      const seen = await alike(at("/json"), (seen) => {
        const controller = new AbortController();
        const answer = Promise.withResolvers<Response>();
        return {
          fetch: () => answer.promise,
          deadline: new Deadline(false, controller.signal),
          drive: () => controller.abort(),
          after: async () => {
            answer.resolve(counted(json([1]), () => seen.cancels++));
            await aTurn();
          },
        };
      });
      assertEquals([seen.kind, seen.calls, seen.cancels], ["abort", 1, 1]);
    },
  );
});

Deno.test("a custom fetch that never settles times out alike on both paths", async () => {
  const seen: string[] = [];
  for (const path of ["loop", "short"] as const) {
    using time = new FakeTime();
    const deadline = new Deadline(1_000, undefined);
    const exchange = exchangeOf("http://127.0.0.1:9/hang", {
      fetch: () => new Promise<never>(() => {}),
      deadline,
    });
    const running = watch(
      path === "loop" ? runAttempts(exchange) : attemptAll(exchange),
    );
    await time.tickAsync(999);
    assertFalse(running.settled);
    await time.tickAsync(1);
    const outcome = await settle(time, running);
    assert(!outcome.ok);
    seen.push(`${outcome.error.kind}: ${outcome.error.message}`);
    deadline.dispose();
  }
  assertEquals(seen, [
    "timeout: Cannot complete the request: the timeout (1000 ms) passed; raise timeout, or set it to false: GET http://127.0.0.1:9/hang",
    "timeout: Cannot complete the request: the timeout (1000 ms) passed; raise timeout, or set it to false: GET http://127.0.0.1:9/hang",
  ]);
});
