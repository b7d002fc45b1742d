import {
  assert,
  assertEquals,
  assertMatch,
  assertStrictEquals,
  assertStringIncludes,
} from "@std/assert";
import { assertSpyCalls, spy, stub } from "@std/testing/mock";
import { FakeTime } from "@std/testing/time";
import createGrab, {
  GrabError,
  GrabTransportError,
  type Hooks,
} from "../mod.ts";
import {
  drip,
  type Fault,
  firstThen,
  garbage,
  head,
  httpFaults,
  hugeChunked,
  hugeDeclared,
  longBody,
  neverEnds,
  ok,
  resetMidBody,
  shortBody,
  silent,
  startFaultServer,
  untilClosed,
  write,
} from "./_faults.ts";
import { closedPort, startServer } from "./_server.ts";
import { settle, until, watch } from "./_time.ts";

const NO_WAIT = { backoff: () => 0 };
/** The head of an empty answer, its connection then closed. */
const CLOSE_EMPTY = { "content-length": "0", connection: "close" };

type RetryInfo = Parameters<NonNullable<Hooks["beforeRetry"]>>[0];

/** Hooks that only record: `beforeRequest` per attempt, `beforeRetry` per wait. */
function spyHooks() {
  return {
    beforeRequest: spy((_request: Request) => {}),
    beforeRetry: spy((_info: RetryInfo) => {}),
  };
}

/**
 * Checks under fake time that a grab whose first attempt fails retries after
 * exactly `wait` ms: `beforeRetry` announces that delay, no second attempt
 * starts a millisecond early, and one starts on time. `send` starts the grab
 * with the recording hooks it is given; the grab's result is returned.
 */
async function retriedAfter<T>(
  time: FakeTime,
  wait: number,
  send: (hooks: Hooks) => Promise<T>,
): Promise<T> {
  const hooks = spyHooks();
  const result = watch(send(hooks));
  await until(time, () => hooks.beforeRetry.calls.length === 1, "a retry");
  assertEquals(hooks.beforeRetry.calls[0]!.args[0].delay, wait);
  await time.tickAsync(wait - 1);
  assertSpyCalls(hooks.beforeRequest, 1);
  await time.tickAsync(1);
  const value = await settle(time, result);
  assertSpyCalls(hooks.beforeRequest, 2);
  assertSpyCalls(hooks.beforeRetry, 1);
  return value;
}

/** Asserts a transport failure tuple of `kind`. */
function assertTransport(
  result: readonly [unknown, unknown, unknown],
  kind: string,
): GrabTransportError {
  const [data, error, meta] = result;
  assertStrictEquals(data, null);
  assert(error instanceof GrabTransportError);
  assertStrictEquals(error.kind, kind);
  assertEquals(meta, { statusCode: 0 });
  return error;
}

/** Asserts an HTTP error tuple with `status`. */
/** A 200 body that broke off after its head: the message says so. */
function assertBrokeOff(error: GrabTransportError, after = "before its end") {
  assertStringIncludes(
    error.message,
    `Cannot read the response: the body of the 200 response broke off ${after} ` +
      "(the connection closed early, or its length, chunks or encoding were " +
      "bad; see the cause): GET http://127.0.0.1:",
  );
}

function assertHttp(
  result: readonly [unknown, unknown, unknown],
  status: number,
): GrabError {
  const [data, error, meta] = result;
  assertStrictEquals(data, null);
  assert(error instanceof GrabError);
  assertStrictEquals(error.statusCode, status);
  assertEquals(meta, {});
  return error;
}

Deno.test("grab() against broken framing", async (t) => {
  const cases: {
    name: string;
    fault: Fault;
    options?: { maxBodyBytes?: number };
    attempts: number;
    check: (result: readonly [unknown, unknown, unknown]) => void;
  }[] = [
    {
      name: "a 2xx body reset mid-way is a network failure, retried twice",
      fault: resetMidBody,
      attempts: 3,
      check: (result) => {
        const error = assertTransport(result, "network");
        assert(error.cause !== undefined);
        assertBrokeOff(error, "before its end on the last of 3 attempts");
      },
    },
    {
      name: "a Content-Length that says 100 for 10 bytes is a network failure",
      fault: shortBody(),
      attempts: 3,
      check: (result) =>
        assertBrokeOff(
          assertTransport(result, "network"),
          "before its end on the last of 3 attempts",
        ),
    },
    {
      name: "a body reset once, then a good response, gives the data",
      fault: firstThen(1, resetMidBody, ok({ second: true })),
      attempts: 2,
      check: ([data, error, meta]) => {
        assertStrictEquals(error, null);
        assertEquals(data, { second: true });
        assertEquals((meta as { statusCode: number }).statusCode, 200);
      },
    },
    {
      name: "a non-2xx body cut short stays an HTTP error with a null body",
      fault: shortBody("404 Not Found"),
      attempts: 1,
      check: (result) => assertStrictEquals(assertHttp(result, 404).body, null),
    },
    {
      name: "a retryable status with a broken body is retried without reading",
      fault: firstThen(2, shortBody("503 Service Unavailable"), ok([1])),
      attempts: 3,
      check: ([data, error]) => {
        assertStrictEquals(error, null);
        assertEquals(data, [1]);
      },
    },
    {
      name: "a Content-Length of 5 with more bytes reads the 5",
      fault: longBody,
      attempts: 1,
      check: ([data, error]) => {
        assertStrictEquals(error, null);
        assertEquals(data, [1, 2]);
      },
    },
    {
      name: "a body dripped a byte at a time is read whole",
      fault: drip('{"slow":"but sure"}'),
      attempts: 1,
      check: ([data, error]) => {
        assertStrictEquals(error, null);
        assertEquals(data, { slow: "but sure" });
      },
    },
    {
      name: "garbage instead of HTTP is a network failure, not retried",
      fault: garbage,
      attempts: 1,
      check: (result) => assertTransport(result, "network"),
    },
    {
      name: "an endless chunked body is too-large, not retried",
      fault: hugeChunked(),
      options: { maxBodyBytes: 1 << 20 },
      attempts: 1,
      check: (result) => assertTransport(result, "too-large"),
    },
    {
      name: "a declared 10 MB body over the cap is too-large, not retried",
      fault: hugeDeclared(10 << 20),
      options: { maxBodyBytes: 1 << 20 },
      attempts: 1,
      check: (result) => assertTransport(result, "too-large"),
    },
    {
      name: "a 10 MB body under the default cap is read",
      fault: hugeDeclared(10 << 20),
      attempts: 1,
      check: ([data, error]) => {
        assertStrictEquals(error, null);
        assertStrictEquals((data as string).length, (10 << 20) - 2);
      },
    },
    {
      name: "a finite 4 MB chunked body is read",
      fault: hugeChunked(4 << 20),
      options: { maxBodyBytes: Infinity },
      attempts: 1,
      // 64 "x…" chunks are not JSON.
      check: (result) => assertTransport(result, "parse"),
    },
  ];
  for (const { name, fault, options, attempts, check } of cases) {
    await t.step(name, async () => {
      await using server = startFaultServer(fault);
      const grab = createGrab(server.url, { retry: NO_WAIT });
      check(await grab("GET /fault", options));
      assertStrictEquals(server.requests.length, attempts);
      assertStrictEquals(server.connections, attempts);
      assert(
        server.requests.every((line) => line === "GET /fault HTTP/1.1"),
      );
    });
  }

  await t.step(
    "a live body that breaks off says so, and after how many bytes",
    async () => {
      for (const responseType of ["stream", "ndjson"] as const) {
        await using server = startFaultServer(shortBody());
        const grab = createGrab(server.url, { retry: NO_WAIT });
        const [data, error] = await grab("GET /fault", { responseType });
        assertStrictEquals(error, null);
        let failed: unknown;
        if (data instanceof ReadableStream) {
          failed = await new Response(data).arrayBuffer().then(
            () => null,
            (error: unknown) => error,
          );
        } else {
          for await (const _ of data!) {
            // the one line never ends
          }
          failed = data!.error;
        }
        assert(failed instanceof GrabTransportError, String(failed));
        assertStrictEquals(failed.kind, "network");
        assertBrokeOff(failed, "after 9 bytes");
      }
    },
  );

  const stalls: [string, Fault][] = [
    ["a body that never ends times out, not retried", neverEnds],
    ["a server that never answers times out, not retried", silent],
  ];
  for (const [name, fault] of stalls) {
    await t.step(name, async () => {
      await using server = startFaultServer(fault);
      using time = new FakeTime();
      const grab = createGrab(server.url, { retry: NO_WAIT });
      const result = watch(grab("GET /fault", { timeout: 50 }));
      await until(time, () => server.requests.length === 1, "the request");
      await time.tickAsync(49);
      assertEquals(result.settled, false);
      await time.tickAsync(1);
      assertTransport(await settle(time, result), "timeout");
      assertEquals(server.requests.length, 1);
      assertEquals(server.connections, 1);
      assertEquals(server.requests, ["GET /fault HTTP/1.1"]);
    });
  }

  await t.step(
    "beforeRetry sees the body failure as a network error",
    async () => {
      await using server = startFaultServer(firstThen(1, resetMidBody, ok(1)));
      const infos: { attempt: number; kind?: string; status?: number }[] = [];
      const grab = createGrab(server.url, {
        retry: NO_WAIT,
        hooks: {
          beforeRetry({ attempt, error, statusCode }) {
            const info: { attempt: number; kind?: string; status?: number } = {
              attempt,
            };
            if (error) info.kind = error.kind;
            if (statusCode !== undefined) info.status = statusCode;
            infos.push(info);
          },
        },
      });
      const [data] = await grab("GET /fault");
      assertEquals(data, 1);
      assertEquals(infos, [{ attempt: 1, kind: "network" }]);
    },
  );
});

Deno.test("grab() retries HTTP failures", async (t) => {
  await using server = startServer(httpFaults());
  const grab = createGrab(server.url, { retry: NO_WAIT });
  const seen = (path: string) =>
    server.requests.filter((request) => request.url.pathname === path).length;

  await t.step("503, 503, 503 gives 3 attempts and the last 503", async () => {
    const error = assertHttp(await grab("GET /status/503/a"), 503);
    assertEquals(error.body, { status: 503 });
    assertEquals(error.headers.get("content-type"), "application/json");
    assertEquals(seen("/status/503/a"), 3);
  });

  await t.step("503 then 200 gives 2 attempts and the data", async () => {
    const [data, error, meta] = await grab("GET /flaky/1/503/b");
    assertStrictEquals(error, null);
    assertEquals(data, { attempt: 2 });
    assertEquals(meta.statusCode, 200);
    assertEquals(seen("/flaky/1/503/b"), 2);
  });

  for (const status of [408, 429, 500, 502, 504]) {
    await t.step(`${status} is retried by default`, async () => {
      const [data] = await grab(`GET /flaky/2/${status}/c`);
      assertEquals(data, { attempt: 3 });
      assertEquals(seen(`/flaky/2/${status}/c`), 3);
    });
  }

  await t.step("a 501 or 404 is not retried", async () => {
    assertHttp(await grab("GET /status/501/d"), 501);
    assertHttp(await grab("GET /status/404/d"), 404);
    assertEquals(seen("/status/501/d"), 1);
    assertEquals(seen("/status/404/d"), 1);
  });

  await t.step("POST with a 503 is sent once", async () => {
    assertHttp(await grab("POST /flaky/1/503/e", { body: { a: 1 } }), 503);
    assertEquals(seen("/flaky/1/503/e"), 1);
  });

  await t.step("PATCH with a 502 is sent once", async () => {
    assertHttp(await grab("PATCH /status/502/f", { body: {} }), 502);
    assertEquals(seen("/status/502/f"), 1);
  });

  for (const method of ["HEAD", "PUT", "DELETE", "OPTIONS"] as const) {
    await t.step(`${method} is retried by default`, async () => {
      const path = `/flaky/1/503/${method}`;
      const [data, error, meta] = await grab(`${method} ${path}` as "GET /x");
      assertStrictEquals(error, null);
      assertEquals(meta.statusCode, 200);
      assertEquals(data, method === "HEAD" ? null : { attempt: 2 });
      assertEquals(seen(path), 2);
    });
  }

  await t.step("retry.methods can allow POST", async () => {
    const [data] = await grab("POST /flaky/2/503/g", {
      body: { a: 1 },
      retry: { ...NO_WAIT, methods: ["POST"] },
    });
    assertEquals(data, { attempt: 3 });
    assertEquals(seen("/flaky/2/503/g"), 3);
  });

  await t.step("retry.methods can exclude GET", async () => {
    assertHttp(
      await grab("GET /status/503/h", { retry: { methods: ["PUT"] } }),
      503,
    );
    assertEquals(seen("/status/503/h"), 1);
  });

  await t.step("retry.statusCodes replaces the retried statuses", async () => {
    const retry = { ...NO_WAIT, statusCodes: [418] };
    assertHttp(await grab("GET /status/418/i", { retry }), 418);
    assertEquals(seen("/status/418/i"), 3);
    assertHttp(await grab("GET /status/500/i", { retry }), 500);
    assertEquals(seen("/status/500/i"), 1);
  });

  await t.step("retry.limit and a number set the retries", async () => {
    assertHttp(
      await grab("GET /status/504/j", { retry: { ...NO_WAIT, limit: 4 } }),
      504,
    );
    assertEquals(seen("/status/504/j"), 5);
    // A number keeps the default backoff, up to 300 ms with full jitter:
    // with Math.random() at 0.5, 408 then 200 waits 150 ms once.
    using time = new FakeTime();
    using _random = stub(Math, "random", () => 0.5);
    const [data] = await retriedAfter(
      time,
      150,
      (hooks) => grab("GET /flaky/1/408/j", { retry: 1, hooks }),
    );
    assertEquals(data, { attempt: 2 });
    assertEquals(seen("/flaky/1/408/j"), 2);
  });

  await t.step("retry: 0 sends once", async () => {
    assertHttp(await grab("GET /flaky/1/500/k", { retry: 0 }), 500);
    assertEquals(seen("/flaky/1/500/k"), 1);
  });

  await t.step(
    "retry: 0 returns a 429 with Retry-After: 0 at once",
    async () => {
      const error = assertHttp(
        await grab("GET /flaky/1/429/l?retry-after=0", { retry: 0 }),
        429,
      );
      assertEquals(error.headers.get("retry-after"), "0");
      assertEquals(seen("/flaky/1/429/l"), 1);
    },
  );
});

Deno.test("grab() honours Retry-After", async (t) => {
  await using server = startServer(httpFaults());
  // A backoff that would stall the suite proves Retry-After was used.
  const grab = createGrab(server.url, {
    retry: { backoff: () => 60_000, maxDelay: 60_000 },
    timeout: 5_000,
  });
  const seen = (path: string) =>
    server.requests.filter((request) => request.url.pathname === path).length;

  await t.step("Retry-After: 0 retries at once", async () => {
    const [data] = await grab("GET /flaky/2/429/a?retry-after=0");
    assertEquals(data, { attempt: 3 });
    assertEquals(seen("/flaky/2/429/a"), 3);
  });

  await t.step(
    "Retry-After as an HTTP date of now retries at once",
    async () => {
      const date = new Date().toUTCString();
      const [data] = await grab("GET /flaky/1/503/b", {
        query: { "retry-after": date },
      });
      assertEquals(data, { attempt: 2 });
      assertEquals(seen("/flaky/1/503/b"), 2);
    },
  );

  await t.step("Retry-After: 2 waits two seconds", async () => {
    using time = new FakeTime();
    const [data] = await retriedAfter(
      time,
      2_000,
      (hooks) => grab("GET /flaky/1/503/g?retry-after=2", { hooks }),
    );
    assertEquals(data, { attempt: 2 });
    assertEquals(seen("/flaky/1/503/g"), 2);
  });

  await t.step("Retry-After as an HTTP date waits until then", async () => {
    // A whole second: the HTTP date loses nothing of it.
    using time = new FakeTime(Date.UTC(2015, 9, 21, 7, 28));
    const date = new Date(Date.now() + 3_000).toUTCString();
    assertEquals(date, "Wed, 21 Oct 2015 07:28:03 GMT");
    const [data] = await retriedAfter(
      time,
      3_000,
      (hooks) =>
        grab("GET /flaky/1/503/h", { query: { "retry-after": date }, hooks }),
    );
    assertEquals(data, { attempt: 2 });
    assertEquals(seen("/flaky/1/503/h"), 2);
  });

  await t.step(
    "a Retry-After over maxDelay returns the 429 at once",
    async () => {
      const error = assertHttp(
        await grab("GET /status/429/c?retry-after=3600", {
          retry: { backoff: () => 0 },
        }),
        429,
      );
      assertEquals(error.headers.get("retry-after"), "3600");
      assertEquals(error.body, { status: 429 });
      assertEquals(seen("/status/429/c"), 1);
    },
  );

  await t.step("a Retry-After date past maxDelay returns at once", async () => {
    const date = new Date(Date.now() + 3_600_000).toUTCString();
    const error = assertHttp(
      await grab("GET /status/503/d", {
        query: { "retry-after": date },
        retry: { backoff: () => 0, maxDelay: 1_000 },
      }),
      503,
    );
    assertStrictEquals(error.headers.get("retry-after"), date);
    assertEquals(seen("/status/503/d"), 1);
  });

  await t.step("a Retry-After past the timeout returns at once", async () => {
    const error = assertHttp(
      await grab("GET /status/502/e?retry-after=5", { timeout: 1_000 }),
      502,
    );
    assertEquals(error.headers.get("retry-after"), "5");
    assertEquals(seen("/status/502/e"), 1);
  });

  await t.step(
    "an unreadable Retry-After falls back to the backoff",
    async () => {
      const [data] = await grab("GET /flaky/1/504/f?retry-after=soon", {
        retry: { backoff: () => 0 },
      });
      assertEquals(data, { attempt: 2 });
      assertEquals(seen("/flaky/1/504/f"), 2);
    },
  );
});

Deno.test("grab() bounds retries by the timeout and the signal", async (t) => {
  await using server = startServer(httpFaults());
  const grab = createGrab(server.url);
  const seen = (path: string) =>
    server.requests.filter((request) => request.url.pathname === path).length;

  await t.step(
    "a backoff that would pass the timeout is not waited for: the 503 at once",
    async () => {
      const hooks = spyHooks();
      const [, error] = await grab("GET /status/503/late", {
        retry: { backoff: () => 60_000 },
        timeout: 10_000,
        hooks,
      });
      assertEquals((error as GrabError | null)?.statusCode, 503);
      assertSpyCalls(hooks.beforeRetry, 0);
      assertEquals(seen("/status/503/late"), 1);
    },
  );

  await t.step(
    "nor after a network failure: kind network at once",
    async () => {
      const port = closedPort();
      const result = await grab(`GET http://127.0.0.1:${port}/x`, {
        retry: { backoff: () => 60_000 },
        timeout: 10_000,
      });
      assertTransport(result, "network");
    },
  );

  await t.step("the timeout ends a retry wait: kind timeout", async () => {
    using time = new FakeTime();
    const hooks = spyHooks();
    const result = watch(grab("GET /status/503/a", {
      // The wait fits when it is decided; the hook then uses the time up.
      retry: { backoff: () => 50 },
      timeout: 100,
      hooks: {
        ...hooks,
        beforeRetry: (info) => {
          hooks.beforeRetry(info);
          return new Promise((resolve) => setTimeout(resolve, 80));
        },
      },
    }));
    await until(time, () => hooks.beforeRetry.calls.length === 1, "a retry");
    assertEquals(hooks.beforeRetry.calls[0]!.args[0].delay, 50);
    await time.tickAsync(99);
    assertEquals(result.settled, false);
    await time.tickAsync(1);
    const error = assertTransport(await settle(time, result), "timeout");
    assertEquals(error.method, "GET");
    assertSpyCalls(hooks.beforeRequest, 1);
    assertEquals(seen("/status/503/a"), 1);
  });

  await t.step("an abort during the first attempt is not retried", async () => {
    await using silentServer = startFaultServer(silent);
    const controller = new AbortController();
    const pending = grab(`GET ${silentServer.url}/hang`, {
      signal: controller.signal,
      retry: NO_WAIT,
    });
    while (silentServer.requests.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    controller.abort();
    assertTransport(await pending, "abort");
    assertEquals(silentServer.requests.length, 1);
    assertEquals(silentServer.connections, 1);
  });

  await t.step("an abort during a retry wait is not retried", async () => {
    const controller = new AbortController();
    const result = await grab("GET /status/500/b", {
      signal: controller.signal,
      retry: { backoff: () => 10_000 },
      hooks: { beforeRetry: () => controller.abort() },
    });
    assertTransport(result, "abort");
    assertEquals(seen("/status/500/b"), 1);
  });

  const answers: [string, string][] = [
    ["a retryable status", head("503 Service Unavailable", CLOSE_EMPTY)],
    // A head cut short by the server's end of the connection: answers that
    // are not HTTP are not retried.
    ["a network failure", "HTTP/1.1 200 OK\r\n"],
  ];
  for (const [name, answer] of answers) {
    await t.step(
      `without hooks, an abort in the wait after ${name} is not retried`,
      async () => {
        const controller = new AbortController();
        // The client lets go of the connection once it has the answer (or
        // its failure), and then waits to retry: the abort comes then.
        await using waiting = startFaultServer(async (conn) => {
          await write(conn, answer);
          await conn.closeWrite();
          await untilClosed(conn);
          controller.abort();
        });
        const result = await grab(`GET ${waiting.url}/wait`, {
          signal: controller.signal,
          retry: { backoff: () => 10_000 },
        });
        assertTransport(result, "abort");
        assertEquals(waiting.requests, ["GET /wait HTTP/1.1"]);
      },
    );
  }

  await t.step("a body that never ends times out once", async () => {
    using time = new FakeTime();
    const result = watch(grab("GET /never", { timeout: 50, retry: NO_WAIT }));
    await until(time, () => seen("/never") === 1, "the request");
    await time.tickAsync(49);
    assertEquals(result.settled, false);
    await time.tickAsync(1);
    assertTransport(await settle(time, result), "timeout");
    assertEquals(seen("/never"), 1);
  });

  await t.step("a redirect loop is a network failure, retried", async () => {
    assertTransport(await grab("GET /loop", { retry: 0 }), "network");
    const perAttempt = seen("/loop");
    assert(perAttempt > 1);
    assertTransport(await grab("GET /loop", { retry: NO_WAIT }), "network");
    assertStrictEquals(seen("/loop"), perAttempt * 4);
  });
});

Deno.test("grab() re-sends the body on retry", async (t) => {
  await using server = startServer(httpFaults());
  const grab = createGrab(server.url, { retry: NO_WAIT });
  const sent = (path: string) =>
    server.requests.filter((r) => r.url.pathname === path).map((r) => r.body);

  const bodies: [string, () => unknown, string][] = [
    [
      "JSON",
      () => ({ name: "Ada", tags: ["a"] }),
      '{"name":"Ada","tags":["a"]}',
    ],
    ["a string", () => "plain text", "plain text"],
    ["a Uint8Array", () => new TextEncoder().encode("bytes"), "bytes"],
    [
      "an ArrayBuffer",
      () => new TextEncoder().encode("buffer").buffer,
      "buffer",
    ],
    ["a Blob", () => new Blob(["blob"]), "blob"],
    ["URLSearchParams", () => new URLSearchParams({ a: "1 2" }), "a=1+2"],
  ];
  for (const [index, [name, make, wire]] of bodies.entries()) {
    for (const hooks of [undefined, { beforeRequest() {} }]) {
      const how = hooks ? "with hooks" : "without hooks";
      await t.step(
        `${name} arrives intact on each of 3 attempts ${how}`,
        async () => {
          const path = `/flaky/2/503/${index}${hooks ? "h" : ""}`;
          const options = hooks ? { body: make(), hooks } : { body: make() };
          const [data, error] = await grab(`PUT ${path}` as "PUT /x", options);
          assertStrictEquals(error, null);
          assertEquals(data, { attempt: 3 });
          assertEquals(sent(path), [wire, wire, wire]);
        },
      );
    }
  }

  await t.step(
    "FormData arrives with the same fields each attempt",
    async () => {
      const body = new FormData();
      body.set("name", "Ada");
      const [data] = await grab("PUT /flaky/2/503/form", { body });
      assertEquals(data, { attempt: 3 });
      const bodies = sent("/flaky/2/503/form");
      assertEquals(bodies.length, 3);
      for (const text of bodies) {
        assertMatch(
          text,
          /name="name"\r\n\r\nAda\r\n/,
        );
      }
    },
  );

  await t.step("a ReadableStream body is sent once", async () => {
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode("streamed"));
        controller.close();
      },
    });
    assertHttp(await grab("PUT /status/503/stream", { body }), 503);
    assertEquals(sent("/status/503/stream"), ["streamed"]);
  });
});
