/**
 * Every grab settles within the bounds the caller set: a body that never
 * ends and ignores the abort signal, a `fetch` that never settles, a header
 * function or a hook that never resolves. A wait longer than a timer can
 * hold (2^31 − 1 ms) is never shortened: that retry is not made.
 *
 * No test asserts how fast anything is: each grab has a small `timeout`, and
 * {@linkcode settles} only turns a hang into a failure.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import createGrab, { Call, type GrabOptions } from "../mod.ts";
import { json, startServer } from "./_server.ts";
import {
  assertHttp,
  assertOk,
  assertTransport,
  assertValidation,
  runChild,
  settles,
  sleep,
} from "./_bounds.ts";

type Fetch = NonNullable<GrabOptions["fetch"]>;
const encoder = new TextEncoder();

/** A promise that never settles (and holds no timer or resource). */
function never<T = never>(): Promise<T> {
  return new Promise<T>(() => {});
}

/**
 * A response whose body sends `[` and then never another byte, and never
 * answers the abort signal. `cancelled` resolves if anyone cancels it.
 */
function endlessResponse(headers: HeadersInit = {}): {
  response: Response;
  cancelled: Promise<void>;
} {
  let onCancel: () => void = () => {};
  const cancelled = new Promise<void>((resolve) => (onCancel = resolve));
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode("["));
    },
    pull() {
      return never();
    },
    cancel() {
      onCancel();
    },
  });
  return {
    response: new Response(body, {
      headers: { "content-type": "application/json", ...headers },
    }),
    cancelled,
  };
}

/** A `fetch` that answers with an endless body and ignores its signal. */
function endlessFetch(headers: HeadersInit = {}): Fetch {
  return () => Promise.resolve(endlessResponse(headers).response);
}

Deno.test("grab() settles on its timeout whatever the fetch does", async (t) => {
  await t.step(
    "a streamed body that never ends and ignores the signal: timeout",
    async () => {
      const grab = createGrab("http://127.0.0.1:9", {
        fetch: endlessFetch(),
        timeout: 300,
        retry: 0,
      });
      assertTransport(await settles(grab("GET /endless")), "timeout");
    },
  );

  await t.step(
    "the same body with a Content-Length that it never reaches: timeout",
    async () => {
      const grab = createGrab("http://127.0.0.1:9", {
        fetch: endlessFetch({ "content-length": "100" }),
        timeout: 300,
        retry: 0,
      });
      assertTransport(await settles(grab("GET /endless")), "timeout");
    },
  );

  await t.step(
    "the same body with the default retry: still one timeout",
    async () => {
      const grab = createGrab("http://127.0.0.1:9", {
        fetch: endlessFetch(),
        timeout: 300,
      });
      assertTransport(await settles(grab("GET /endless")), "timeout");
    },
  );

  await t.step(
    "the caller's signal aborted after 100 ms, no timeout: abort",
    async () => {
      const grab = createGrab("http://127.0.0.1:9", {
        fetch: endlessFetch(),
        timeout: false,
        retry: 0,
      });
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 100);
      try {
        const result = await settles(
          grab("GET /endless", { signal: controller.signal }),
        );
        assertTransport(result, "abort");
      } finally {
        clearTimeout(timer);
      }
    },
  );

  await t.step(
    "a fetch whose promise never settles and ignores the signal: timeout",
    async () => {
      let calls = 0;
      const grab = createGrab("http://127.0.0.1:9", {
        fetch: () => {
          calls++;
          return never();
        },
        timeout: 300,
      });
      assertTransport(await settles(grab("GET /silent")), "timeout");
      assertEquals(calls, 1, "a timeout is not retried");
    },
  );

  await t.step(
    "the same fetch and the caller's signal aborted after 100 ms: abort",
    async () => {
      const grab = createGrab("http://127.0.0.1:9", {
        fetch: () => never(),
        timeout: false,
      });
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 100);
      try {
        const result = await settles(
          grab("GET /silent", { signal: controller.signal }),
        );
        assertTransport(result, "abort");
      } finally {
        clearTimeout(timer);
      }
    },
  );

  await t.step("Call.send with the endless body: timeout", async () => {
    const outcome = await settles(
      new Call("GET http://127.0.0.1:9/endless").send({
        fetch: endlessFetch(),
        timeout: 300,
        retry: 0,
      }),
    );
    assert(!outcome.ok, "the outcome should be a transport failure");
    assertEquals(outcome.error.kind, "timeout");
  });
});

Deno.test("grab() settles on its timeout whatever the caller's functions do", async (t) => {
  await using server = startServer({
    "/flaky": (_request, seen) =>
      seen.url.searchParams.get("n") === "1"
        ? json({ ok: false }, { status: 503 })
        : json({ ok: true }),
    "/ok": () => json({ ok: true }),
  });
  const requests = () => server.requests.length;

  await t.step(
    "a factory header function that never resolves: timeout, nothing sent",
    async () => {
      const before = requests();
      const grab = createGrab(server.url, {
        headers: () => never(),
        timeout: 300,
      });
      assertTransport(await settles(grab("GET /ok")), "timeout");
      assertEquals(requests(), before, "the server saw no request");
    },
  );

  await t.step(
    "a factory beforeRequest that never resolves: timeout, nothing sent",
    async () => {
      const before = requests();
      const grab = createGrab(server.url, {
        hooks: { beforeRequest: () => never() },
        timeout: 300,
      });
      assertTransport(await settles(grab("GET /ok")), "timeout");
      assertEquals(requests(), before, "the server saw no request");
    },
  );

  await t.step(
    "a call beforeRequest that never resolves: timeout",
    async () => {
      const grab = createGrab(server.url);
      const result = await settles(
        grab("GET /ok", {
          hooks: { beforeRequest: () => never() },
          timeout: 300,
        }),
      );
      assertTransport(result, "timeout");
    },
  );

  await t.step(
    "an afterResponse that never resolves: timeout, the body released",
    async () => {
      const grab = createGrab(server.url, { timeout: 300 });
      const result = await settles(
        grab("GET /ok", { hooks: { afterResponse: () => never() } }),
      );
      assertTransport(result, "timeout");
    },
  );

  await t.step(
    "a beforeRetry that never resolves: timeout",
    async () => {
      const grab = createGrab(server.url, { timeout: 300 });
      const result = await settles(
        grab("GET /flaky", {
          query: { n: 1 },
          retry: { limit: 1, backoff: () => 0 },
          hooks: { beforeRetry: () => never() },
        }),
      );
      assertTransport(result, "timeout");
    },
  );

  await t.step(
    "timeout: 100 and a beforeRequest that takes 200 ms: timeout",
    async () => {
      let hookDone: Promise<void> = Promise.resolve();
      const grab = createGrab(server.url);
      const result = await settles(
        grab("GET /ok", {
          timeout: 100,
          hooks: {
            beforeRequest: () => {
              hookDone = sleep(200);
              return hookDone;
            },
          },
        }),
      );
      assertTransport(result, "timeout");
      // The hook's own timer belongs to this test; let it finish.
      await hookDone;
    },
  );

  await t.step("a fast grab with every hook still succeeds", async () => {
    const grab = createGrab(server.url, {
      headers: async () => ({ "x-token": await Promise.resolve("t") }),
      timeout: 5_000,
    });
    const data = assertOk(
      await settles(
        grab("GET /ok", {
          hooks: {
            beforeRequest: async () => {},
            afterResponse: async () => {},
            beforeRetry: async () => {},
          },
        }),
      ),
    );
    assertEquals(data, { ok: true });
  });
});

Deno.test("a non-2xx head beats a body that never ends", async (t) => {
  let wasCancelled = false;
  let onCancel: () => void = () => {};
  const cancelled = new Promise<void>((resolve) => (onCancel = resolve));
  const streams: ReadableStreamDefaultController<Uint8Array>[] = [];
  await using server = startServer(() =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          streams.push(controller);
          controller.enqueue(encoder.encode('{"error":'));
        },
        cancel() {
          wasCancelled = true;
          onCancel();
        },
      }),
      { status: 500, headers: { "content-type": "application/json" } },
    )
  );

  await t.step(
    "a 500 whose body never ends, timeout: 300, retry: 0: GrabError 500 with a null body",
    async () => {
      let pending: Promise<unknown> = Promise.resolve();
      try {
        const grab = createGrab(server.url, { timeout: 300, retry: 0 });
        const grabbing = grab("GET /broken");
        pending = grabbing;
        const error = assertHttp(await settles(grabbing), 500);
        assertEquals(error.body, null);
        await settles(cancelled, "the cancellation of the server's stream");
      } finally {
        // When the grab failed to let go of the body, end it here, so that
        // the server can shut down and the failure is reported.
        if (!wasCancelled) {
          for (const controller of streams) {
            try {
              controller.close();
            } catch {
              // Already closed.
            }
          }
          await settles(pending, "the grab after its body ended").catch(
            () => {},
          );
        }
      }
    },
  );
});

Deno.test("a timer longer than 2^31 − 1 ms is refused, never shortened", async (t) => {
  await using server = startServer({
    "/ok": () => json({ ok: true }),
    "/busy": () =>
      json({ busy: true }, {
        status: 503,
        headers: { "retry-after": "3000000" },
      }),
    "/down": () => json({ down: true }, { status: 503 }),
  });

  for (const timeout of [2 ** 31, 1e10, Number.MAX_SAFE_INTEGER]) {
    await t.step(
      `timeout: ${timeout} on a call rejects, nothing sent`,
      async () => {
        const before = server.requests.length;
        const grab = createGrab(server.url);
        await assertValidation(
          () => grab("POST /ok", { body: { a: 1 }, timeout }),
          "timeout",
        );
        assertEquals(server.requests.length, before);
      },
    );
    await t.step(`timeout: ${timeout} on a factory throws`, async () => {
      await assertValidation(
        () => createGrab(server.url, { timeout }),
        "timeout",
      );
    });
    await t.step(`timeout: ${timeout} on Call.send rejects`, async () => {
      const before = server.requests.length;
      await assertValidation(
        () => new Call("POST /ok", server.url).send({ body: "x", timeout }),
        "timeout",
      );
      assertEquals(server.requests.length, before);
    });
  }

  await t.step("timeout: 2^31 − 1 is accepted", async () => {
    const grab = createGrab(server.url, { timeout: 2 ** 31 - 1 });
    assertEquals(assertOk(await settles(grab("GET /ok"))), { ok: true });
    assertOk(
      await settles(grab("POST /ok", { body: { a: 1 }, timeout: 2 ** 31 - 1 })),
    );
  });

  for (const timeout of [false, 2 ** 31 - 1, undefined] as const) {
    await t.step(
      `Retry-After: 3000000 with maxDelay: Infinity (timeout: ${timeout}): no retry, the 503 returned`,
      async () => {
        const before = server.requests.length;
        const grab = createGrab(server.url);
        const result = await settles(
          grab("GET /busy", {
            ...(timeout === undefined ? {} : { timeout }),
            retry: { limit: 2, maxDelay: Infinity },
          }),
        );
        const error = assertHttp(result, 503);
        assertEquals(error.headers.get("retry-after"), "3000000");
        assertEquals(error.body, { busy: true });
        assertEquals(server.requests.length - before, 1, "one request only");
      },
    );
  }

  await t.step(
    "backoff: () => 3e9 with maxDelay: Infinity and no timeout: no retry, the 503 returned",
    async () => {
      const before = server.requests.length;
      let retries = 0;
      const grab = createGrab(server.url, { timeout: false });
      const result = await settles(
        grab("GET /down", {
          retry: { limit: 2, maxDelay: Infinity, backoff: () => 3e9 },
          hooks: { beforeRetry: () => void retries++ },
        }),
      );
      assertHttp(result, 503);
      assertEquals(server.requests.length - before, 1, "one request only");
      assertEquals(retries, 0);
    },
  );

  await t.step(
    "a wait that fits a timer is still made (backoff: () => 1)",
    async () => {
      const before = server.requests.length;
      const grab = createGrab(server.url, { timeout: false });
      const result = await settles(
        grab("GET /down", {
          retry: { limit: 1, maxDelay: Infinity, backoff: () => 1 },
        }),
      );
      assertHttp(result, 503);
      assertEquals(server.requests.length - before, 2);
    },
  );
});

Deno.test("a header function and a live body: a deadline passed before the body's module is waited for leaves no unhandled rejection", async (t) => {
  await using server = startServer(() =>
    new Response("data: x\n\n", {
      headers: { "content-type": "text/event-stream" },
    })
  );
  const types = ["sse", "ndjson", "stream"] as const;

  await t.step(
    "a signal aborted before the grab: abort, nothing sent",
    async () => {
      const grab = createGrab(server.url, {
        retry: 0,
        headers: () => ({ "x-token": "t" }),
      });
      for (const responseType of types) {
        const result = await settles(
          grab("GET /live", { responseType, signal: AbortSignal.abort() }),
        );
        assertTransport(result, "abort");
      }
      // An unhandled rejection would end the test module here.
      await sleep(20);
      assertEquals(server.requests.length, 0);
    },
  );

  await t.step(
    "a signal aborted while the header function runs: abort",
    async () => {
      const grab = createGrab(server.url, {
        retry: 0,
        headers: () => never(),
      });
      for (const responseType of types) {
        const controller = new AbortController();
        const grabbing = grab("GET /live", {
          responseType,
          signal: controller.signal,
        });
        controller.abort();
        assertTransport(await settles(grabbing), "abort");
      }
      await sleep(20);
      assertEquals(server.requests.length, 0);
    },
  );

  await t.step(
    "a header function that throws, the signal aborted: its error rejects",
    async () => {
      const bug = new Error("header bug");
      const grab = createGrab(server.url, {
        retry: 0,
        headers: () => {
          throw bug;
        },
      });
      for (const responseType of types) {
        const error = await settles(
          grab("GET /live", { responseType, signal: AbortSignal.abort() }).then(
            () => undefined,
            (error: unknown) => error,
          ),
        );
        assert(error === bug, `expected the header function's error`);
      }
      await sleep(20);
      assertEquals(server.requests.length, 0);
    },
  );
});

Deno.test("a live body whose module cannot be loaded is a network failure, never a rejection", async () => {
  // The import map points src/streams.ts at a module that does not exist,
  // as a bundle's chunk that could not be fetched.
  const report = await runChild<{
    outcomes: Record<string, string>;
    unhandled: string[];
  }>("./_load_child.ts", [
    "--import-map=tests/_fixtures/missing_streams_map.json",
    "--allow-net=127.0.0.1",
    "--allow-read=.",
  ]);
  assertEquals(report.unhandled, []);
  const types = ["sse", "ndjson", "stream"];
  const names = [...types, ...types.map((type) => `${type}, header function`)];
  assertEquals(
    report.outcomes,
    Object.fromEntries(names.map((name) => [name, "network, unloaded"])),
  );
});

Deno.test("a JSON:API codec that cannot be loaded, or never loads, is a transport error within the timeout", async (t) => {
  for (
    const [map, kind, timeout] of [
      ["missing_codec_map.json", "network, unloaded", "10000"],
      ["hanging_codec_map.json", "timeout", "300"],
    ] as const
  ) {
    await t.step(kind, async () => {
      const report = await runChild<{
        outcomes: Record<string, string>;
        unhandled: string[];
      }>("./_codec_load_child.ts", [
        `--import-map=tests/_fixtures/${map}`,
        "--allow-net=127.0.0.1",
        "--allow-read=.",
      ], { args: [timeout] });
      assertEquals(report.unhandled, []);
      assertEquals(report.outcomes, {
        "grab, first": kind,
        "grab, second": kind,
        "grab, params": `${kind} /users/7`,
        "grab, missing param": "rejected: GrabValidationError",
        "Call.send": kind,
        "grab, stream body": `${kind} cancelled: true`,
      });
    });
  }
});

Deno.test("an upload progress module that cannot be loaded is a network failure, never a rejection", async () => {
  // The import map points src/upload.ts at a module that does not exist,
  // as a bundle's chunk that could not be fetched.
  const report = await runChild<{
    outcomes: Record<string, string>;
    unhandled: string[];
  }>("./_upload_load_child.ts", [
    "--import-map=tests/_fixtures/missing_upload_map.json",
    "--allow-net=127.0.0.1",
    "--allow-read=.",
  ]);
  assertEquals(report.unhandled, []);
  assertEquals(report.outcomes, {
    "text, first": "network, unloaded",
    "text, second": "network, unloaded",
    "text, hook": "network, unloaded",
    "stream": "network, unloaded cancelled: true",
    "requests": "0",
  });
});
