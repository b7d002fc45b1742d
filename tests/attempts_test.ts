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
import { runAttempts } from "../src/attempts.ts";
import type { Fetch } from "../src/fetch.ts";
import { Deadline } from "../src/deadline.ts";
import { GrabTransportError } from "../src/errors.ts";
import type { Hooks } from "../src/hooks.ts";
import type { SendOutcome } from "../src/result.ts";
import { resolveRetry } from "../src/retry.ts";
import { exchangeOf, NO_WAIT } from "./_exchange.ts";
import { silent, startFaultServer } from "./_faults.ts";
import { closedPort, json, startServer } from "./_server.ts";
import { settle, until, watch } from "./_time.ts";

const encoder = new TextEncoder();

/** A promise that never settles and holds no timer or resource. */
function never<T>(): Promise<T> {
  return new Promise<T>(() => {});
}

/** A body that sends `[` and then nothing, until it is cancelled. */
function endlessBody(onCancel: () => void = () => {}): ReadableStream<
  Uint8Array
> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode("["));
    },
    cancel() {
      onCancel();
    },
  });
}

/** The transport error of a failed outcome. */
function failureOf(outcome: SendOutcome): GrabTransportError {
  assertFalse(outcome.ok, "the outcome is a response");
  assertInstanceOf(outcome.error, GrabTransportError);
  return outcome.error;
}

Deno.test("runAttempts() through a real server", async (t) => {
  let flaky = 0;
  let stubborn = 0;
  await using server = startServer({
    "/json": () => json({ id: 1, tags: ["a"] }, { headers: { "x-id": "7" } }),
    "/flaky": () =>
      ++flaky === 1 ? json({ n: flaky }, { status: 503 }) : json({ n: flaky }),
    "/stubborn": () => json({ n: ++stubborn }, { status: 503 }),
    "/text-error": () => new Response("no such thing", { status: 404 }),
    "/not-json": () => new Response("<html>", { status: 200 }),
    "/empty": () => new Response(null, { status: 204 }),
    "/big": () => new Response("x".repeat(2048)),
    "/big-error": () => new Response("x".repeat(2048), { status: 400 }),
  });
  const pathsSeen = () => server.requests.map((seen) => seen.url.pathname);

  await t.step("a 200 with JSON: the parsed body", async () => {
    const deadline = new Deadline(10_000, undefined);
    using dispose = spy(deadline, "dispose");
    const href = `${server.url}/json?token=s3cret`;
    const outcome = await runAttempts(exchangeOf(href, { deadline }));
    assert(outcome.ok);
    assertEquals(outcome.status, 200);
    assertEquals(outcome.statusText, "OK");
    assertEquals(outcome.url, href);
    assertEquals(outcome.headers.get("x-id"), "7");
    assertEquals(outcome.body, { id: 1, tags: ["a"] });
    assertFalse(outcome.empty);
    // The deadline stays the caller's: runAttempts never disposes it.
    assertSpyCalls(dispose, 0);
    deadline.dispose();
  });

  await t.step("a 503 is retried, then the 200 is the outcome", async () => {
    server.requests.length = 0;
    const deadline = new Deadline(10_000, undefined);
    using dispose = spy(deadline, "dispose");
    const outcome = await runAttempts(
      exchangeOf(`${server.url}/flaky`, { deadline }),
    );
    assert(outcome.ok);
    assertEquals(outcome.status, 200);
    assertEquals(outcome.body, { n: 2 });
    assertEquals(pathsSeen(), ["/flaky", "/flaky"]);
    // The deadline stays the caller's: runAttempts never disposes it.
    assertSpyCalls(dispose, 0);
    deadline.dispose();
  });

  await t.step(
    "a 503 every time: limit + 1 attempts, the last 503 is the outcome",
    async () => {
      server.requests.length = 0;
      const deadline = new Deadline(10_000, undefined);
      using dispose = spy(deadline, "dispose");
      const beforeRetry = spy((
        _info: Parameters<
          NonNullable<Hooks["beforeRetry"]>
        >[0],
      ) => {});
      const outcome = await runAttempts(
        exchangeOf(`${server.url}/stubborn`, {
          deadline,
          hooks: { beforeRetry },
        }),
      );
      assert(outcome.ok);
      assertEquals(outcome.status, 503);
      assertEquals(outcome.body, { n: 3 });
      assertEquals(server.requests.length, NO_WAIT.limit + 1);
      assertEquals(
        beforeRetry.calls.map(({ args: [info] }) => [
          info.attempt,
          info.statusCode,
          info.error,
          info.delay,
        ]),
        [[1, 503, undefined, 0], [2, 503, undefined, 0]],
      );
      // The deadline stays the caller's: runAttempts never disposes it.
      assertSpyCalls(dispose, 0);
      deadline.dispose();
    },
  );

  await t.step("a stream body (not replayable) is never retried", async () => {
    server.requests.length = 0;
    const before = stubborn;
    const deadline = new Deadline(10_000, undefined);
    using dispose = spy(deadline, "dispose");
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode("streamed"));
        controller.close();
      },
    });
    const init: RequestInit & { duplex: "half" } = {
      method: "PUT",
      body,
      duplex: "half",
      signal: deadline.signal!,
    };
    const outcome = await runAttempts(
      exchangeOf(`${server.url}/stubborn`, {
        method: "PUT",
        init,
        replayable: false,
        deadline,
      }),
    );
    assert(outcome.ok);
    assertEquals(outcome.status, 503);
    assertEquals(stubborn, before + 1);
    assertEquals(server.requests.length, 1);
    assertEquals(server.requests[0]!.method, "PUT");
    assertEquals(server.requests[0]!.body, "streamed");
    // The deadline stays the caller's: runAttempts never disposes it.
    assertSpyCalls(dispose, 0);
    deadline.dispose();
  });

  await t.step("a method the policy leaves out is never retried", async () => {
    server.requests.length = 0;
    const deadline = new Deadline(10_000, undefined);
    const outcome = await runAttempts(
      exchangeOf(`${server.url}/stubborn`, { method: "POST", deadline }),
    );
    assert(outcome.ok);
    assertEquals(outcome.status, 503);
    assertEquals(server.requests.length, 1);
    assertEquals(server.requests[0]!.method, "POST");
    deadline.dispose();
  });

  await t.step("a non-2xx text body is kept as text", async () => {
    const deadline = new Deadline(10_000, undefined);
    const outcome = await runAttempts(
      exchangeOf(`${server.url}/text-error`, { deadline }),
    );
    assert(outcome.ok);
    assertEquals(outcome.status, 404);
    assertEquals(outcome.body, "no such thing");
    assertFalse(outcome.empty);
    deadline.dispose();
  });

  await t.step("a 2xx body that is not JSON: kind parse", async () => {
    const deadline = new Deadline(10_000, undefined);
    using dispose = spy(deadline, "dispose");
    const outcome = await runAttempts(
      exchangeOf(`${server.url}/not-json?token=s3cret`, { deadline }),
    );
    const error = failureOf(outcome);
    assertEquals(error.kind, "parse");
    assertEquals(error.url, `${server.url}/not-json`);
    // The deadline stays the caller's: runAttempts never disposes it.
    assertSpyCalls(dispose, 0);
    deadline.dispose();
  });

  await t.step("a 204: empty, body null", async () => {
    const deadline = new Deadline(10_000, undefined);
    const outcome = await runAttempts(
      exchangeOf(`${server.url}/empty`, { deadline }),
    );
    assert(outcome.ok);
    assertEquals(outcome.status, 204);
    assertStrictEquals(outcome.body, null);
    assert(outcome.empty);
    deadline.dispose();
  });

  await t.step("a 2xx over maxBodyBytes: kind too-large", async () => {
    const deadline = new Deadline(10_000, undefined);
    const outcome = await runAttempts(
      exchangeOf(`${server.url}/big`, { deadline, maxBodyBytes: 1024 }),
    );
    assertEquals(failureOf(outcome).kind, "too-large");
    deadline.dispose();
  });

  await t.step(
    "a non-2xx over maxBodyBytes: the status, body null",
    async () => {
      const deadline = new Deadline(10_000, undefined);
      const outcome = await runAttempts(
        exchangeOf(`${server.url}/big-error`, { deadline, maxBodyBytes: 1024 }),
      );
      assert(outcome.ok);
      assertEquals(outcome.status, 400);
      assertStrictEquals(outcome.body, null);
      assert(outcome.empty);
      // An error body is read whatever the response type: only the cap helps.
      assertEquals(
        outcome.bodyError?.message,
        `Cannot read the response: the body (2048 bytes, as its Content-Length says) is over maxBodyBytes (1024 bytes); raise maxBodyBytes: GET ${server.url}/big-error`,
      );
      deadline.dispose();
    },
  );

  await t.step("a hook that throws rejects with its error", async () => {
    const deadline = new Deadline(10_000, undefined);
    using dispose = spy(deadline, "dispose");
    const boom = new Error("hook bug");
    const error = await assertRejects(() =>
      runAttempts(
        exchangeOf(`${server.url}/json`, {
          deadline,
          hooks: {
            afterResponse: () => {
              throw boom;
            },
          },
        }),
      )
    );
    assertStrictEquals(error, boom);
    // The deadline stays the caller's: runAttempts never disposes it.
    assertSpyCalls(dispose, 0);
    deadline.dispose();
  });
});

Deno.test("runAttempts() after a network failure", async (t) => {
  await t.step("retries up to the limit, then kind network", async () => {
    const deadline = new Deadline(10_000, undefined);
    using dispose = spy(deadline, "dispose");
    const beforeRequest = spy((_request: Request) => {});
    const beforeRetry = spy((
      _info: Parameters<
        NonNullable<Hooks["beforeRetry"]>
      >[0],
    ) => {});
    const href = `http://127.0.0.1:${closedPort()}/a?token=s3cret`;
    const outcome = await runAttempts(
      exchangeOf(href, { deadline, hooks: { beforeRequest, beforeRetry } }),
    );
    const error = failureOf(outcome);
    assertEquals(error.kind, "network");
    assertFalse(error.message.includes("s3cret"));
    assertSpyCalls(beforeRequest, NO_WAIT.limit + 1);
    assertEquals(
      beforeRetry.calls.map(({ args: [info] }) => [
        info.attempt,
        info.error?.kind,
        info.statusCode,
      ]),
      [[1, "network", undefined], [2, "network", undefined]],
    );
    // The deadline stays the caller's: runAttempts never disposes it.
    assertSpyCalls(dispose, 0);
    deadline.dispose();
  });
});

Deno.test("runAttempts() within the deadline", async (t) => {
  await t.step(
    "a 500 whose body never ends: the 500 with body null",
    async () => {
      let cancelled = false;
      await using server = startServer(() =>
        new Response(endlessBody(() => (cancelled = true)), {
          status: 500,
          headers: { "content-type": "application/json" },
        })
      );
      using time = new FakeTime();
      const deadline = new Deadline(1_000, undefined);
      using dispose = spy(deadline, "dispose");
      const afterResponse = spy((_request: Request, _response: Response) => {});
      const running = watch(runAttempts(
        exchangeOf(`${server.url}/endless`, {
          deadline,
          policy: resolveRetry(0),
          hooks: { afterResponse },
        }),
      ));
      await until(time, () => afterResponse.calls.length === 1, "the head");
      await time.tickAsync(999);
      assertFalse(running.settled);
      await time.tickAsync(1);
      const outcome = await settle(time, running);
      assert(outcome.ok);
      assertEquals(outcome.status, 500);
      assertStrictEquals(outcome.body, null);
      assert(outcome.empty);
      assertEquals(server.requests.length, 1);
      // The deadline stays the caller's: runAttempts never disposes it.
      assertSpyCalls(dispose, 0);
      deadline.dispose();
      await until(time, () => cancelled, "the server to see the abort");
    },
  );

  await t.step(
    "a 500 from a fetch whose body ignores the signal: the 500, body null",
    async () => {
      using time = new FakeTime();
      const deadline = new Deadline(1_000, undefined);
      using dispose = spy(deadline, "dispose");
      const fetch = spy<unknown, Parameters<Fetch>, ReturnType<Fetch>>(() =>
        Promise.resolve(new Response(endlessBody(), { status: 500 }))
      );
      const running = watch(runAttempts(
        exchangeOf("http://127.0.0.1:9/endless", {
          deadline,
          fetch,
          policy: resolveRetry(0),
        }),
      ));
      await time.tickAsync(999);
      assertFalse(running.settled);
      await time.tickAsync(1);
      const outcome = await settle(time, running);
      assert(outcome.ok);
      assertEquals(outcome.status, 500);
      assertStrictEquals(outcome.body, null);
      assertSpyCalls(fetch, 1);
      // The deadline stays the caller's: runAttempts never disposes it.
      assertSpyCalls(dispose, 0);
      deadline.dispose();
    },
  );

  await t.step("a fetch that never settles: kind timeout", async () => {
    using time = new FakeTime();
    const deadline = new Deadline(1_000, undefined);
    using dispose = spy(deadline, "dispose");
    const fetch = spy<unknown, Parameters<Fetch>, ReturnType<Fetch>>(() =>
      never()
    );
    const running = watch(runAttempts(
      exchangeOf("http://127.0.0.1:9/hang?token=s3cret", { deadline, fetch }),
    ));
    await time.tickAsync(999);
    assertFalse(running.settled);
    await time.tickAsync(1);
    const error = failureOf(await settle(time, running));
    assertEquals(error.kind, "timeout");
    assertEquals(error.url, "http://127.0.0.1:9/hang");
    assertEquals(
      error.message,
      "Cannot complete the request: the timeout (1000 ms) passed; raise timeout, or set it to false: GET http://127.0.0.1:9/hang",
    );
    assertSpyCalls(fetch, 1);
    // A custom fetch's signal follows the deadline's (and aborts when grab
    // lets go of its body), with the deadline's reason.
    const signal = fetch.calls[0]!.args[1]?.signal;
    assert(signal?.aborted);
    assertStrictEquals(signal.reason, deadline.signal!.reason);
    // The deadline stays the caller's: runAttempts never disposes it.
    assertSpyCalls(dispose, 0);
    deadline.dispose();
  });

  await t.step("a fetch that never settles: kind abort", async () => {
    const controller = new AbortController();
    const deadline = new Deadline(false, controller.signal);
    using dispose = spy(deadline, "dispose");
    const fetch = spy<unknown, Parameters<Fetch>, ReturnType<Fetch>>(() =>
      never()
    );
    const running = runAttempts(
      exchangeOf("http://127.0.0.1:9/hang", { deadline, fetch }),
    );
    await Promise.resolve();
    controller.abort(new Error("the caller left"));
    const error = failureOf(await running);
    assertEquals(error.kind, "abort");
    assertSpyCalls(fetch, 1);
    // The deadline stays the caller's: runAttempts never disposes it.
    assertSpyCalls(dispose, 0);
    deadline.dispose();
  });

  await t.step("a server that never answers: kind timeout", async () => {
    await using slow = startFaultServer(silent);
    using time = new FakeTime();
    const deadline = new Deadline(1_000, undefined);
    using dispose = spy(deadline, "dispose");
    const running = watch(runAttempts(
      exchangeOf(`${slow.url}/silent`, { deadline }),
    ));
    await until(time, () => slow.requests.length === 1, "the request");
    await time.tickAsync(1_000);
    const error = failureOf(await settle(time, running));
    assertEquals(error.kind, "timeout");
    assertEquals(slow.requests.length, 1);
    // The deadline stays the caller's: runAttempts never disposes it.
    assertSpyCalls(dispose, 0);
    deadline.dispose();
  });

  await t.step(
    "a deadline passed before the first attempt: no fetch, kind abort",
    async () => {
      const deadline = new Deadline(10_000, AbortSignal.abort());
      using dispose = spy(deadline, "dispose");
      const fetch = spy<unknown, Parameters<Fetch>, ReturnType<Fetch>>(() =>
        Promise.resolve(new Response("{}"))
      );
      const error = failureOf(
        await runAttempts(
          exchangeOf("http://127.0.0.1:9/never-sent", { deadline, fetch }),
        ),
      );
      assertEquals(error.kind, "abort");
      assertSpyCalls(fetch, 0);
      // The deadline stays the caller's: runAttempts never disposes it.
      assertSpyCalls(dispose, 0);
      deadline.dispose();
    },
  );

  await t.step(
    "a backoff that would pass the deadline is not waited for: the 503",
    async () => {
      const deadline = new Deadline(1_000, undefined);
      const fetch = spy<unknown, Parameters<Fetch>, ReturnType<Fetch>>(() =>
        Promise.resolve(new Response(null, { status: 503 }))
      );
      const outcome = await runAttempts(
        exchangeOf("http://127.0.0.1:9/wait", {
          deadline,
          fetch,
          policy: resolveRetry({ backoff: () => 5_000 }),
        }),
      );
      // Not a timeout after waiting: the status says more than one would.
      assert(outcome.ok);
      assertEquals(outcome.status, 503);
      assertSpyCalls(fetch, 1);
      deadline.dispose();
    },
  );

  await t.step(
    "the deadline passes during a retry's wait: kind timeout, no next attempt",
    async () => {
      using time = new FakeTime();
      const deadline = new Deadline(1_000, undefined);
      using dispose = spy(deadline, "dispose");
      const fetch = spy<unknown, Parameters<Fetch>, ReturnType<Fetch>>(() =>
        Promise.resolve(new Response(null, { status: 503 }))
      );
      // The wait fitted when it was decided; a slow hook used the time up.
      const beforeRetry = () =>
        new Promise<void>((resolve) => setTimeout(resolve, 700));
      const running = watch(runAttempts(
        exchangeOf("http://127.0.0.1:9/wait", {
          deadline,
          fetch,
          hooks: { beforeRetry },
          policy: resolveRetry({ backoff: () => 500 }),
        }),
      ));
      await time.tickAsync(999);
      assertFalse(running.settled);
      assertSpyCalls(fetch, 1);
      await time.tickAsync(1);
      const error = failureOf(await settle(time, running));
      assertEquals(error.kind, "timeout");
      assertSpyCalls(fetch, 1);
      // The deadline stays the caller's: runAttempts never disposes it.
      assertSpyCalls(dispose, 0);
      deadline.dispose();
    },
  );
});
