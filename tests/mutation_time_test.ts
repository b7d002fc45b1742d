/**
 * Promises about time that no other test held: each test here fails when
 * one line of the timeout, retry or `Retry-After` code is changed.
 */
import { assert, assertEquals } from "@std/assert";
import { stub } from "@std/testing/mock";
import createGrab, { isGrabHttpError, isGrabTransportError } from "../mod.ts";
import { startServer } from "./_server.ts";
import { firstThen, ok, stalledBody, startFaultServer } from "./_faults.ts";

/** A server that answers 503 with `retryAfter` once, then 200. */
function busyOnce(retryAfter: string) {
  let calls = 0;
  return startServer(() =>
    ++calls === 1
      ? new Response("busy", {
        status: 503,
        headers: { "retry-after": retryAfter },
      })
      : Response.json({ ok: true })
  );
}

Deno.test("a Retry-After date with minute 60 is no date: the backoff decides", async () => {
  // Two hours ahead, its minute made 60: read as the next hour's minute 0,
  // it would ask for more than maxDelay, and the 503 would be returned.
  const ahead = new Date(Date.now() + 2 * 3_600_000).toUTCString();
  const minute60 = ahead.replace(/:\d\d:(\d\d) GMT$/, ":60:$1 GMT");
  assert(minute60 !== ahead, ahead);
  await using server = busyOnce(minute60);
  const grab = createGrab(server.url, { retry: { backoff: () => 0 } });
  const [data, error] = await grab("GET /busy", { timeout: 5_000 });
  assertEquals(error, null);
  assertEquals(data, { ok: true });
  assertEquals(server.requests.length, 2);
});

Deno.test("an RFC 850 Retry-After exactly 50 years ahead is in the future", async () => {
  // RFC 9110, 5.6.7: only a date MORE than 50 years ahead is taken for the
  // past. On 1 Jan 2026, "-76" is 2076, a wait past maxDelay, not 1976.
  const now = Date.UTC(2026, 0, 1, 0, 0, 0);
  using _now = stub(Date, "now", () => now);
  await using server = busyOnce("Wednesday, 01-Jan-76 00:00:00 GMT");
  const grab = createGrab(server.url, { retry: { backoff: () => 0 } });
  const [data, error] = await grab("GET /busy", { timeout: 5_000 });
  assertEquals(data, null);
  assert(isGrabHttpError(error), String(error));
  assertEquals(error.statusCode, 503);
  assertEquals(server.requests.length, 1);
});

/**
 * Grabs `/busy` with `retry`, aborting in `beforeRetry`, which only a retry
 * about to wait calls: the delays it was told, and the result.
 */
async function retryDelays(
  retryAfter: string,
  retry: { maxDelay: number; backoff?: () => number },
) {
  await using server = busyOnce(retryAfter);
  const controller = new AbortController();
  const delays: number[] = [];
  const grab = createGrab(server.url, {
    retry,
    hooks: {
      beforeRetry: ({ delay }) => {
        delays.push(delay);
        controller.abort();
      },
    },
  });
  const [, error] = await grab("GET /busy", {
    timeout: false,
    signal: controller.signal,
  });
  return { delays, error, requests: server.requests.length };
}

Deno.test("a Retry-After of exactly maxDelay is honoured", async () => {
  const { delays, error, requests } = await retryDelays("1", {
    maxDelay: 1_000,
  });
  assertEquals(delays, [1_000]);
  assert(isGrabTransportError(error), String(error));
  assertEquals(error.kind, "abort");
  assertEquals(requests, 1);
});

Deno.test("a Retry-After past maxDelay returns the 503 at once, however long the timeout", async () => {
  await using server = busyOnce("1");
  let retries = 0;
  const grab = createGrab(server.url, {
    retry: { maxDelay: 100 },
    hooks: { beforeRetry: () => void retries++ },
  });
  const [data, error] = await grab("GET /busy", { timeout: 5_000 });
  assertEquals(data, null);
  assert(isGrabHttpError(error), String(error));
  assertEquals(error.statusCode, 503);
  assertEquals(error.headers.get("retry-after"), "1");
  assertEquals(retries, 0);
  assertEquals(server.requests.length, 1);
});

Deno.test("a backoff of the longest wait a timer holds (2^31 - 1 ms) is waited for", async () => {
  const longest = 2 ** 31 - 1;
  const { delays, error, requests } = await retryDelays("soon", {
    maxDelay: Infinity,
    backoff: () => longest,
  });
  assertEquals(delays, [longest]);
  assert(isGrabTransportError(error), String(error));
  assertEquals(error.kind, "abort");
  assertEquals(requests, 1);
});

Deno.test("a backoff longer than a timer holds (2^31 ms) returns the 503 at once", async () => {
  const { delays, error, requests } = await retryDelays("soon", {
    maxDelay: Infinity,
    backoff: () => 2 ** 31,
  });
  assertEquals(delays, []);
  assert(isGrabHttpError(error), String(error));
  assertEquals(error.statusCode, 503);
  assertEquals(requests, 1);
});

Deno.test("a retry whose wait ends past the timeout, the loop busy, is not begun", async () => {
  // The wait's timer is due before the timeout's, and both are overdue when
  // the loop frees: the wait ends first, and the retry must see the time.
  await using server = startServer(() => new Response("busy", { status: 503 }));
  const start = performance.now();
  let sent = 0;
  const grab = createGrab(server.url, {
    retry: { backoff: () => 50 },
    hooks: {
      beforeRequest: () => void sent++,
      beforeRetry: () => {
        setTimeout(() => {
          while (performance.now() - start < 600) { /* the loop is busy */ }
        }, 0);
      },
    },
  });
  const [data, error] = await grab("GET /busy", { timeout: 397 });
  assertEquals(data, null);
  assert(isGrabTransportError(error), String(error));
  assertEquals(error.kind, "timeout");
  assertEquals(sent, 1);
  assertEquals(server.requests.length, 1);
});

// The drain of a retried status's body stalls, and ends only when the wait
// no longer fits (see retried_success_test.ts): 2xx is nothing without its
// body, so 200 ends as the time did; 300 is no success, and is returned.
for (
  const [status, expected] of [["200 OK", "timeout"], [
    "300 Multiple Choices",
    300,
  ]] as const
) {
  Deno.test(`a retried ${status} whose body stalls while it is drained ends as ${expected}`, async () => {
    await using server = startFaultServer(
      firstThen(1, stalledBody(status), ok({ done: true })),
    );
    const grab = createGrab(server.url);
    const [data, error] = await grab("GET /job", {
      timeout: 1_500,
      retry: { statusCodes: [Number.parseInt(status)], backoff: () => 1_000 },
    });
    assertEquals(data, null);
    assertEquals(server.requests.length, 1);
    if (expected === "timeout") {
      assert(isGrabTransportError(error), String(error));
      assertEquals(error.kind, "timeout");
    } else {
      assert(isGrabHttpError(error), String(error));
      assertEquals(error.statusCode, expected);
    }
  });
}

Deno.test("a stream body from a custom fetch is read on past the timeout", async () => {
  // `timeout` bounds a "stream" grab up to the head only: the body, read
  // when the timeout has passed, still gives every byte.
  const { promise: more, resolve: sendMore } = Promise.withResolvers<void>();
  await using server = startServer(() =>
    new Response(
      new ReadableStream({
        async start(controller) {
          controller.enqueue(new TextEncoder().encode("a"));
          await more;
          controller.enqueue(new TextEncoder().encode("b"));
          controller.close();
        },
      }),
    )
  );
  const grab = createGrab(server.url, {
    // A response of its own making, not the platform's: each read of its
    // body looks at the clock, which the timeout no longer counts on.
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      return new Response(response.body, response);
    },
  });
  const [body, error] = await grab("GET /live", {
    timeout: 200,
    responseType: "stream",
  });
  assertEquals(error, null);
  await new Promise((resolve) => setTimeout(resolve, 300));
  sendMore();
  assertEquals(await new Response(body).text(), "ab");
});
