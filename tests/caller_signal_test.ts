// The caller's `signal` at every stage of a grab, and every shape of abort:
// before the call, waiting for the head, half way through a body of each
// response type, in a retry's wait, inside each hook and callback, between
// pages and sends; a signal shared by many grabs, one that never aborts, one
// that aborts as the response, the timeout or `idleTimeout` does. Each grab
// settles at once with kind "abort" and the caller's reason as its cause, and
// lets go of what it held.
import { assert, assertEquals, assertStrictEquals } from "@std/assert";
import createGrab, { GrabTransportError, orThrow, paginate } from "../mod.ts";
import { settles } from "./_bounds.ts";
import { RESPONSE_TYPES } from "../src/response_type.ts";

type R = readonly [unknown, unknown, unknown];

function unhandled(): { list: unknown[]; stop: () => void } {
  const list: unknown[] = [];
  const on = (e: PromiseRejectionEvent) => {
    e.preventDefault();
    list.push(e.reason);
  };
  globalThis.addEventListener("unhandledrejection", on);
  return {
    list,
    stop: () => globalThis.removeEventListener("unhandledrejection", on),
  };
}

function transport(result: R, kind: string): GrabTransportError {
  const error = result[1];
  assert(
    error instanceof GrabTransportError,
    `expected a transport error, got ${error}`,
  );
  assertEquals(error.kind, kind);
  return error;
}

/** A server that holds each request until the connection closes. */
function holding() {
  let closed = 0;
  let started = 0;
  const waiters: (() => void)[] = [];
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      started++;
      waiters.splice(0).forEach((w) => w());
      const url = new URL(request.url);
      request.signal.addEventListener("abort", () => {
        closed++;
        waiters.splice(0).forEach((w) => w());
      });
      if (url.pathname === "/head") {
        return new Promise<Response>((resolve) =>
          request.signal.addEventListener(
            "abort",
            () => resolve(new Response(null)),
          )
        );
      }
      // a body half sent
      const type = url.searchParams.get("type") ?? "application/json";
      const first = url.searchParams.get("first") ?? '{"a":';
      let timer: number | undefined;
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new TextEncoder().encode(first));
        },
        cancel() {
          clearTimeout(timer);
        },
      });
      const status = Number(url.searchParams.get("status") ?? 200);
      return new Response(body, { status, headers: { "content-type": type } });
    },
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise<void>((r) => waiters.push(r));
  };
  return {
    url,
    get closed() {
      return closed;
    },
    get started() {
      return started;
    },
    until,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

const REASONS: [string, () => unknown][] = [
  ["an Error", () => new Error("mine")],
  ["a string", () => "gone"],
  ["null", () => null],
  ["0", () => 0],
];

Deno.test("aborted before the call keeps the reason", async (t) => {
  await using server = holding();
  const grab = createGrab(server.url, { timeout: 5000 });
  for (const [name, make] of REASONS) {
    await t.step(name, async () => {
      const reason = make();
      const c = new AbortController();
      c.abort(reason);
      const r = await settles(grab("GET /head", { signal: c.signal }));
      const e = transport(r, "abort");
      assertStrictEquals(e.cause, reason);
    });
  }
  await t.step("AbortSignal.timeout", async () => {
    const s = AbortSignal.timeout(1);
    await new Promise((r) => setTimeout(r, 20));
    const r = await settles(grab("GET /head", { signal: s }));
    const e = transport(r, "abort");
    assertStrictEquals(e.cause, s.reason);
  });
});

const TYPES = RESPONSE_TYPES;

Deno.test("aborted while waiting for headers and mid-body", async (t) => {
  await using server = holding();
  const grab = createGrab(server.url, { timeout: 5000, retry: 0 });
  for (const [name, make] of REASONS) {
    await t.step(`head, ${name}`, async () => {
      const reason = make();
      const c = new AbortController();
      const before = server.closed;
      const started = server.started;
      const p = grab("GET /head", { signal: c.signal });
      await server.until(() => server.started > started);
      c.abort(reason);
      const e = transport(await settles(p), "abort");
      assertStrictEquals(e.cause, reason);
      await settles(server.until(() => server.closed > before));
    });
  }
  for (const type of TYPES) {
    for (const [name, make] of REASONS) {
      await t.step(`${type} body, ${name}`, async () => {
        const reason = make();
        const c = new AbortController();
        const before = server.closed;
        const started = server.started;
        const ct = type === "sse"
          ? "text/event-stream"
          : type === "ndjson"
          ? "application/x-ndjson"
          : "application/json";
        const first = type === "sse"
          ? "data: 1\n\ndata: 2"
          : type === "ndjson"
          ? "1\n2"
          : '{"a":';
        const p = grab(
          `GET /body?type=${encodeURIComponent(ct)}&first=${
            encodeURIComponent(first)
          }`,
          {
            signal: c.signal,
            responseType: type,
            onDownloadProgress: () => {},
          },
        );
        if (type === "stream" || type === "sse" || type === "ndjson") {
          const r = await settles(p);
          assert(r[1] === null, String(r[1]));
          if (type === "stream") {
            const reader = (r[0] as ReadableStream<Uint8Array>).getReader();
            await reader.read();
            const pending = reader.read();
            c.abort(reason);
            let caught: unknown = "none";
            try {
              await settles(pending);
            } catch (error) {
              caught = error;
            }
            assert(caught instanceof GrabTransportError, String(caught));
            assertEquals(caught.kind, "abort");
            assertStrictEquals(caught.cause, reason);
          } else {
            const stream = r[0] as AsyncIterable<unknown> & { error: unknown };
            const seen: unknown[] = [];
            for await (const item of stream) {
              seen.push(item);
              if (seen.length === 1) c.abort(reason);
            }
            const e = stream.error as GrabTransportError;
            assert(e instanceof GrabTransportError, String(e));
            assertEquals(e.kind, "abort");
            assertStrictEquals(e.cause, reason);
          }
        } else {
          // This grab's request, not an earlier step's: an abort before it
          // reaches the server would leave the server nothing to close.
          await server.until(() => server.started > started);
          await new Promise((r) => setTimeout(r, 20));
          c.abort(reason);
          const e = transport(await settles(p), "abort");
          assertStrictEquals(e.cause, reason);
        }
        await settles(server.until(() => server.closed > before));
      });
    }
  }
});

/** A server: /retry answers 503 with Retry-After 3, /ok a JSON body, /pages links pages. */
function plain() {
  let hits = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      hits++;
      const url = new URL(request.url);
      if (url.pathname === "/retry") {
        return new Response("busy", {
          status: 503,
          headers: { "retry-after": "3" },
        });
      }
      if (url.pathname === "/pages") {
        const n = Number(url.searchParams.get("n") ?? 1);
        return Response.json({ n }, {
          headers: { link: `</pages?n=${n + 1}>; rel="next"` },
        });
      }
      if (url.pathname === "/upload") {
        return request.arrayBuffer().then(() => Response.json({ ok: true }));
      }
      return Response.json({ ok: true, pad: "x".repeat(100_000) });
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    get hits() {
      return hits;
    },
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

Deno.test("aborting in each stage settles at once with the reason", async (t) => {
  await using server = plain();
  const grab = createGrab(server.url, { timeout: 20_000 });
  const reason = new Error("mine");
  const run = async (
    endpoint: string,
    options: (c: AbortController) => Record<string, unknown>,
  ) => {
    const c = new AbortController();
    const e = transport(
      await settles(
        grab(endpoint as "GET /ok", options(c) as { signal: AbortSignal }),
      ),
      "abort",
    );
    assertStrictEquals(e.cause, reason);
  };
  await t.step("during a Retry-After wait", async () => {
    await run(
      "GET /retry",
      (c) => ({
        signal: c.signal,
        hooks: {
          beforeRetry: () => {
            setTimeout(() => c.abort(reason), 10);
          },
        },
      }),
    );
  });
  // Each hook aborts, then returns (sync) or never settles (pending).
  const hooks = [
    ["beforeRetry", "GET /retry"],
    ["beforeRequest", "GET /ok"],
    ["afterResponse", "GET /ok"],
  ] as const;
  for (const [hook, endpoint] of hooks) {
    for (const pending of [false, true]) {
      const how = pending ? "a pending " : "";
      await t.step(`inside ${how}${hook}`, async () => {
        await run(endpoint, (c) => ({
          signal: c.signal,
          hooks: {
            [hook]: () => {
              c.abort(reason);
              return pending ? new Promise(() => {}) : undefined;
            },
          },
        }));
      });
    }
  }
  await t.step("inside onDownloadProgress", async () => {
    await run(
      "GET /ok",
      (c) => ({ signal: c.signal, onDownloadProgress: () => c.abort(reason) }),
    );
  });
  for (const type of ["text", "bytes", "blob"]) {
    await t.step(`inside onDownloadProgress, ${type}`, async () => {
      await run(
        "GET /ok",
        (c) => ({
          signal: c.signal,
          responseType: type,
          onDownloadProgress: () => c.abort(reason),
        }),
      );
    });
  }
  await t.step("inside onUploadProgress", async () => {
    await run(
      "POST /upload",
      (c) => ({
        signal: c.signal,
        body: "x".repeat(200_000),
        onUploadProgress: () => c.abort(reason),
      }),
    );
  });
  await t.step("inside a pending validate", async () => {
    await run("GET /ok", (c) => ({
      signal: c.signal,
      schema: {
        "~standard": {
          version: 1,
          vendor: "t",
          validate: () => {
            c.abort(reason);
            return new Promise(() => {});
          },
        },
      },
    }));
  });
  await t.step("between paginate pages", async () => {
    const c = new AbortController();
    let caught: unknown;
    let pages = 0;
    try {
      for await (
        const _ of paginate(grab, "GET /pages", { signal: c.signal, limit: 5 })
      ) {
        pages++;
        if (pages === 1) c.abort(reason);
      }
    } catch (error) {
      caught = error;
    }
    assertEquals(pages, 1);
    assert(caught instanceof GrabTransportError, String(caught));
    assertEquals(caught.kind, "abort");
    assertStrictEquals(caught.cause, reason);
  });
  await t.step("orThrow", async () => {
    const c = new AbortController();
    c.abort(reason);
    let caught: unknown;
    try {
      await orThrow(grab("GET /ok", { signal: c.signal }));
    } catch (error) {
      caught = error;
    }
    assert(caught instanceof GrabTransportError);
    assertEquals(caught.kind, "abort");
    assertStrictEquals(caught.cause, reason);
  });
});

Deno.test("a signal that never aborts keeps no listener after grabs of every outcome", async (t) => {
  const { watchListeners } = await import("./_memory.ts");
  let n = 0;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      const url = new URL(request.url);
      n++;
      switch (url.pathname) {
        case "/500":
          return new Response("no", { status: 500 });
        case "/503":
          return n % 2
            ? new Response("busy", { status: 503 })
            : Response.json({ n });
        case "/404":
          return Response.json({ no: 1 }, { status: 404 });
        case "/bad":
          return new Response("{", {
            headers: { "content-type": "application/json" },
          });
        case "/big":
          return new Response("x".repeat(5000));
        case "/sse":
          return new Response("data: 1\n\ndata: 2\n\n", {
            headers: { "content-type": "text/event-stream" },
          });
        case "/nd":
          return new Response("1\n2\n{\n", {
            headers: { "content-type": "application/x-ndjson" },
          });
        case "/pages": {
          const p = Number(url.searchParams.get("n") ?? 1);
          return Response.json({ p }, {
            headers: p < 3 ? { link: `</pages?n=${p + 1}>; rel="next"` } : {},
          });
        }
        case "/stall": {
          const body = new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode("{"));
            },
          });
          return new Response(body);
        }
        default:
          return Response.json({ ok: n });
      }
    },
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  const grab = createGrab(url, { retry: { limit: 1, backoff: () => 0 } });
  const c = new AbortController();
  const signal = c.signal;
  const listeners = watchListeners(signal);
  const { Call } = await import("../mod.ts");
  const failingSchema = {
    "~standard": {
      version: 1 as const,
      vendor: "t",
      validate: () => ({ issues: [{ message: "no" }] }),
    },
  };
  const thrower = () => {
    throw new Error("x");
  };
  const cases: [string, () => Promise<unknown>][] = [
    ["ok", () => grab("GET /ok", { signal })],
    ["500", () => grab("GET /500", { signal })],
    ["404", () => grab("GET /404", { signal })],
    ["retried", () => grab("GET /503", { signal })],
    ["parse", () => grab("GET /bad", { signal })],
    [
      "too-large",
      () =>
        grab("GET /big", { signal, maxBodyBytes: 10, responseType: "text" }),
    ],
    ["schema", () => grab("GET /ok", { signal, schema: failingSchema })],
    ...([
      ["hook throws", { hooks: { beforeRequest: thrower } }],
      ["afterResponse throws", { hooks: { afterResponse: thrower } }],
      ["progress throws", { onDownloadProgress: thrower }],
    ] as const).map(([name, options]): [string, () => Promise<unknown>] => [
      name,
      () => grab("GET /ok", { signal, ...options }).catch(() => {}),
    ]),
    [
      "validation",
      () => grab("GET /:id", { signal, params: { id: ".." } }).catch(() => {}),
    ],
    [
      "attemptTimeout",
      () => grab("GET /stall", { signal, attemptTimeout: 20, retry: 0 }),
    ],
    ["timeout", () => grab("GET /stall", { signal, timeout: 20, retry: 0 })],
    ["stream cancelled", async () => {
      const [s] = await grab("GET /ok", { signal, responseType: "stream" });
      await s?.cancel();
    }],
    ["stream read", async () => {
      const [s] = await grab("GET /ok", { signal, responseType: "stream" });
      await new Response(s).arrayBuffer();
    }],
    ["sse read", async () => {
      const [s] = await grab("GET /sse", { signal, responseType: "sse" });
      for await (const _ of s!) { /* all */ }
    }],
    ["sse broken out", async () => {
      const [s] = await grab("GET /sse", { signal, responseType: "sse" });
      for await (const _ of s!) break;
    }],
    ["ndjson parse failure", async () => {
      const [s] = await grab("GET /nd", { signal, responseType: "ndjson" });
      for await (const _ of s!) { /* all */ }
    }],
    ["stream idle", async () => {
      const [s] = await grab("GET /stall", {
        signal,
        responseType: "ndjson",
        idleTimeout: 20,
      });
      for await (const _ of s!) { /* all */ }
    }],
    ["stream attemptTimeout", async () => {
      const [s] = await grab("GET /stall", {
        signal,
        responseType: "stream",
        attemptTimeout: 30,
      });
      await new Response(s).arrayBuffer().catch(() => {});
    }],
    ["paginate", async () => {
      for await (const _ of paginate(grab, "GET /pages", { signal })) {
        /* all */
      }
    }],
    ["paginate broken out", async () => {
      for await (const _ of paginate(grab, "GET /pages", { signal })) break;
    }],
    ["Call.send", () => new Call("GET /ok", url).send({ signal })],
    [
      "Call.send 500",
      () => new Call("GET /500", url).send({ signal, retry: 0 }),
    ],
  ];
  try {
    for (const [name, run] of cases) {
      await t.step(name, async () => {
        await settles(run());
        assertEquals(listeners.left(), 0, name);
      });
    }
  } finally {
    await server.shutdown();
  }
});

Deno.test("200 grabs on one signal, then races", async (t) => {
  await using server = holding();
  const grab = createGrab(server.url, { retry: 0 });
  const watch = unhandled();
  try {
    await t.step("200 grabs share a signal then abort", async () => {
      const c = new AbortController();
      const reason = new Error("all");
      const started = server.started;
      const all = Array.from(
        { length: 200 },
        (_, i) => grab(i % 2 ? "GET /head" : "GET /body", { signal: c.signal }),
      );
      await server.until(() => server.started >= started + 50);
      c.abort(reason);
      const results = await settles(Promise.all(all));
      for (const r of results) {
        assertStrictEquals(transport(r, "abort").cause, reason);
      }
    });
    await t.step("abort as the response arrives (custom fetch)", async () => {
      for (let i = 0; i < 20; i++) {
        const c = new AbortController();
        const g = createGrab(server.url, {
          retry: 0,
          fetch: async (input, init) => {
            const response = await fetch(
              new Request(input, init).url.replace("/x", "/head?") === ""
                ? input
                : input,
              init,
            );
            c.abort("late");
            return response;
          },
        });
        const r = await settles(
          g("GET /body", {
            signal: c.signal,
            responseType: i % 2 ? "json" : "stream",
          }),
        );
        if (r[1] !== null) {
          assertEquals((r[1] as GrabTransportError).kind, "abort");
        } else await (r[0] as ReadableStream).cancel();
      }
    });
    await t.step("abort as the timeout fires", async () => {
      for (let i = 0; i < 20; i++) {
        const c = new AbortController();
        const p = grab("GET /head", { signal: c.signal, timeout: 30 });
        setTimeout(() => c.abort("same"), 30);
        const r = await settles(p);
        const e = r[1] as GrabTransportError;
        assert(e.kind === "abort" || e.kind === "timeout", e.kind);
        if (e.kind === "abort") assertEquals(e.cause, "same");
      }
    });
    await t.step("abort as idleTimeout fires", async () => {
      for (let i = 0; i < 10; i++) {
        const c = new AbortController();
        const [s] = await settles(
          grab("GET /body?type=application/x-ndjson&first=1%0A", {
            signal: c.signal,
            responseType: "ndjson",
            idleTimeout: 30,
          }),
        );
        const items: unknown[] = [];
        const loop = (async () => {
          for await (const v of s!) items.push(v);
        })();
        setTimeout(() => c.abort("same"), 30);
        await settles(loop);
        const e = s!.error as GrabTransportError;
        assert(e.kind === "abort" || e.kind === "timeout", e.kind);
      }
    });
    await t.step("abort after settle does nothing", async () => {
      const c = new AbortController();
      const r = await settles(
        grab("GET /body?first=%7B%7D", {
          signal: c.signal,
          responseType: "stream",
        }),
      );
      const body = r[0] as ReadableStream<Uint8Array>;
      const reader = body.getReader();
      await reader.read();
      reader.releaseLock();
      await body.cancel();
      c.abort("after");
      await new Promise((r) => setTimeout(r, 20));
    });
    assertEquals(watch.list, []);
  } finally {
    watch.stop();
  }
});

Deno.test("more stages", async (t) => {
  await using server = holding();
  const reason = new Error("mine");
  await t.step("abort while a non-2xx body is half read", async () => {
    const grab = createGrab(server.url, { retry: 0 });
    const c = new AbortController();
    const started = server.started;
    const p = grab("GET /body?status=500", {
      signal: c.signal,
      onDownloadProgress: () => c.abort(reason),
    });
    const r = await settles(p);
    // Status beats the body: the abort is the error's cause.
    const error = r[1] as { statusCode?: number; cause?: unknown };
    assertEquals(error.statusCode, 500);
    assertEquals((error.cause as GrabTransportError).kind, "abort");
    assertStrictEquals((error.cause as GrabTransportError).cause, reason);
    await settles(server.until(() => server.started > started));
  });
  await t.step("abort inside a pending header function", async () => {
    const c = new AbortController();
    const grab = createGrab(server.url, {
      retry: 0,
      headers: () => {
        c.abort(reason);
        return new Promise(() => {});
      },
    });
    const e = transport(
      await settles(grab("GET /head", { signal: c.signal })),
      "abort",
    );
    assertStrictEquals(e.cause, reason);
  });
  await t.step("paginate with an aborted signal", async () => {
    const grab = createGrab(server.url, { retry: 0 });
    const c = new AbortController();
    c.abort(reason);
    let caught: unknown;
    try {
      for await (
        const _ of paginate(grab, "GET /head", { signal: c.signal })
      ) { /* none */ }
    } catch (error) {
      caught = error;
    }
    assert(caught instanceof GrabTransportError);
    assertStrictEquals(caught.cause, reason);
  });
  for (const type of ["sse", "ndjson"] as const) {
    const ct = type === "sse" ? "text/event-stream" : "application/x-ndjson";
    const first = type === "sse" ? "data: 1\n\n" : "1\n";
    const endpoint = `GET /body?type=${encodeURIComponent(ct)}&first=${
      encodeURIComponent(first)
    }` as const;
    const aborting = (c: AbortController) => ({
      "a pending validate": {
        schema: {
          "~standard": {
            version: 1 as const,
            vendor: "t",
            validate: () => {
              c.abort(reason);
              return new Promise<never>(() => {});
            },
          },
        },
      },
      onDownloadProgress: { onDownloadProgress: () => c.abort(reason) },
    });
    for (const where of ["a pending validate", "onDownloadProgress"] as const) {
      await t.step(`${type}: abort inside ${where}`, async () => {
        const grab = createGrab(server.url, { retry: 0 });
        const c = new AbortController();
        const [s] = await settles(grab(endpoint, {
          signal: c.signal,
          responseType: type,
          ...aborting(c)[where],
        }));
        await settles((async () => {
          for await (const _ of s!) { /* none */ }
        })());
        const e = s!.error as GrabTransportError;
        assertEquals(e?.kind, "abort");
        assertStrictEquals(e.cause, reason);
      });
    }
  }
  await t.step("abort while a stream body is uploading", async () => {
    const grab = createGrab(server.url, { retry: 0 });
    const c = new AbortController();
    let cancelled: unknown = "no";
    let pulls = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(ctl) {
        pulls++;
        if (pulls === 3) c.abort(reason);
        if (pulls < 5) return ctl.enqueue(new Uint8Array(1000));
        // then stall
        return new Promise(() => {});
      },
      cancel(why) {
        cancelled = why;
      },
    });
    const e = transport(
      await settles(grab("POST /head", { signal: c.signal, body })),
      "abort",
    );
    assertStrictEquals(e.cause, reason);
    assert(cancelled !== "no", "the upload stream was not cancelled");
  });
});

Deno.test("live bodies with attemptTimeout or idleTimeout still end at the caller's abort", async (t) => {
  await using server = holding();
  const grab = createGrab(server.url, { retry: 0 });
  const reason = new Error("mine");
  for (const type of ["stream", "sse", "ndjson"] as const) {
    for (
      const extra of [{ attemptTimeout: 20_000 }, { idleTimeout: 20_000 }, {
        attemptTimeout: 20_000,
        idleTimeout: 20_000,
      }, { timeout: false as const }]
    ) {
      await t.step(`${type} ${JSON.stringify(extra)}`, async () => {
        const c = new AbortController();
        const before = server.closed;
        const ct = type === "sse"
          ? "text/event-stream"
          : "application/x-ndjson";
        const first = type === "sse" ? "data: 1\n\n" : "1\n";
        const [s, error] = await settles(
          grab(
            `GET /body?type=${encodeURIComponent(ct)}&first=${
              encodeURIComponent(first)
            }`,
            {
              signal: c.signal,
              responseType: type,
              ...extra,
            },
          ),
        );
        assertEquals(error, null);
        if (type === "stream") {
          const reader = (s as ReadableStream<Uint8Array>).getReader();
          await reader.read();
          const pending = reader.read();
          c.abort(reason);
          let caught: unknown;
          try {
            await settles(pending);
          } catch (e) {
            caught = e;
          }
          assert(caught instanceof GrabTransportError, String(caught));
          assertEquals(caught.kind, "abort");
          assertStrictEquals(caught.cause, reason);
        } else {
          const stream = s as AsyncIterable<unknown> & { error: unknown };
          await settles((async () => {
            for await (const _ of stream) c.abort(reason);
          })());
          const e = stream.error as GrabTransportError;
          assertEquals(e?.kind, "abort");
          assertStrictEquals(e.cause, reason);
        }
        await settles(server.until(() => server.closed > before));
      });
    }
  }
});

Deno.test("abort while a retried answer's body drains", async (t) => {
  for (
    const extra of [{}, { attemptTimeout: 20_000 }, {
      hooks: { afterResponse: () => {} },
    }]
  ) {
    await t.step(JSON.stringify(Object.keys(extra)), async () => {
      const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const conns: Deno.Conn[] = [];
      let sawHead!: () => void;
      const headSent = new Promise<void>((r) => sawHead = r);
      const closed: Promise<void>[] = [];
      const accepting = (async () => {
        for await (const conn of listener) {
          conns.push(conn);
          closed.push((async () => {
            const buf = new Uint8Array(4096);
            await conn.read(buf);
            await conn.write(new TextEncoder().encode(
              "HTTP/1.1 503 Service Unavailable\r\ncontent-length: 100\r\nretry-after: 0\r\n\r\n0123456789",
            ));
            sawHead();
            try {
              while ((await conn.read(buf)) !== null) { /* wait for close */ }
            } catch { /* reset */ }
          })());
        }
      })();
      try {
        const url = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
        const grab = createGrab(url, {
          retry: { limit: 1, backoff: () => 0 },
          timeout: 20_000,
        });
        const c = new AbortController();
        const reason = new Error("mine");
        const p = grab("GET /x", { signal: c.signal, ...extra });
        await settles(headSent);
        await new Promise((r) => setTimeout(r, 50));
        c.abort(reason);
        assertStrictEquals(transport(await settles(p), "abort").cause, reason);
        await settles(Promise.all(closed));
      } finally {
        listener.close();
        await accepting.catch(() => {});
        for (const conn of conns) {
          try {
            conn.close();
          } catch { /* closed */ }
        }
      }
    });
  }
});

Deno.test("abort on a counted upload's redirect hop, and shapes", async (t) => {
  let held = 0;
  let closedHeld = 0;
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((w) => w());
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise<void>((r) => waiters.push(r));
  };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      const url = new URL(request.url);
      await request.arrayBuffer();
      if (url.pathname === "/r") {
        return new Response(null, {
          status: 307,
          headers: { location: "/held" },
        });
      }
      held++;
      wake();
      return new Promise<Response>((resolve) =>
        request.signal.addEventListener("abort", () => {
          closedHeld++;
          wake();
          resolve(new Response(null));
        })
      );
    },
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  try {
    for (const body of ["x".repeat(10), new Blob(["x"])]) {
      await t.step(typeof body, async () => {
        const grab = createGrab(url, { retry: 0 });
        const c = new AbortController();
        const reason = new Error("mine");
        const before = held;
        const closed = closedHeld;
        const p = grab("POST /r", {
          signal: c.signal,
          body,
          onUploadProgress: () => {},
        });
        await settles(until(() => held > before));
        c.abort(reason);
        const e = transport(await settles(p), "abort");
        assertStrictEquals(e.cause, reason);
        await settles(until(() => closedHeld > closed));
      });
    }
    await t.step("a signal given to createGrab", () => {
      const c = new AbortController();
      let threw: unknown;
      try {
        // deno-lint-ignore no-explicit-any
        createGrab(url, { signal: c.signal } as any);
      } catch (error) {
        threw = error;
      }
      assertEquals((threw as Error)?.name, "GrabValidationError");
    });
    await t.step("a hand-made signal", async () => {
      const grab = createGrab(url, { retry: 0 });
      const fake = {
        aborted: true,
        reason: "x",
        addEventListener() {},
        removeEventListener() {},
      };
      let threw: unknown;
      try {
        // deno-lint-ignore no-explicit-any
        await grab("GET /held", { signal: fake as any });
      } catch (error) {
        threw = error;
      }
      assertEquals((threw as Error)?.name, "GrabValidationError");
    });
    await t.step(
      "AbortSignal.timeout mid-flight and AbortSignal.any",
      async () => {
        const grab = createGrab(url, { retry: 0 });
        const s = AbortSignal.timeout(50);
        const e = transport(
          await settles(grab("POST /held", { signal: s })),
          "abort",
        );
        assertStrictEquals(e.cause, s.reason);
        const c = new AbortController();
        const any = AbortSignal.any([c.signal]);
        const p = grab("POST /held", { signal: any });
        c.abort("x");
        assertStrictEquals(transport(await settles(p), "abort").cause, "x");
      },
    );
  } finally {
    await server.shutdown();
  }
});

Deno.test("abort of a live body not yet read", async (t) => {
  await using server = holding();
  const grab = createGrab(server.url, { retry: 0 });
  const watch = unhandled();
  try {
    for (const type of ["stream", "sse", "ndjson"] as const) {
      for (
        const extra of [{}, { idleTimeout: 10_000 }, { attemptTimeout: 10_000 }]
      ) {
        await t.step(`${type} ${Object.keys(extra)}`, async () => {
          const c = new AbortController();
          const before = server.closed;
          const ct = type === "sse"
            ? "text/event-stream"
            : "application/x-ndjson";
          const first = type === "sse" ? "data: 1\n\n" : "1\n";
          const [s] = await settles(
            grab(
              `GET /body?type=${encodeURIComponent(ct)}&first=${
                encodeURIComponent(first)
              }`,
              {
                signal: c.signal,
                responseType: type,
                ...extra,
              },
            ),
          );
          c.abort("why");
          await settles(server.until(() => server.closed > before));
          await new Promise((r) => setTimeout(r, 30));
          if (type === "stream") {
            let caught: unknown;
            try {
              await (s as ReadableStream).getReader().read();
            } catch (e) {
              caught = e;
            }
            assertEquals((caught as GrabTransportError)?.kind, "abort");
          } else {
            const stream = s as AsyncIterable<unknown> & {
              error: GrabTransportError | null;
            };
            const seen: unknown[] = [];
            for await (const v of stream) seen.push(v);
            assertEquals(stream.error?.kind, "abort");
            assertEquals(stream.error?.cause, "why");
          }
        });
      }
    }
    assertEquals(watch.list, []);
  } finally {
    watch.stop();
  }
});

Deno.test("Call.send between and during sends", async (t) => {
  await using server = holding();
  const { Call } = await import("../mod.ts");
  const call = new Call("GET /head", server.url);
  const reason = new Error("mine");
  await t.step("aborted during a send, then a new send", async () => {
    const c = new AbortController();
    const started = server.started;
    const p = call.send({ signal: c.signal, retry: 0 });
    await server.until(() => server.started > started);
    c.abort(reason);
    const out = await settles(p);
    assert(!out.ok);
    assertEquals(out.error.kind, "abort");
    assertStrictEquals(out.error.cause, reason);
    const again = await settles(
      new Call("GET /body?first=%7B%7D", server.url).send({ signal: c.signal }),
    );
    assert(!again.ok);
    assertEquals(again.error.kind, "abort");
  });
  await t.step("aborted mid non-2xx body", async () => {
    const c = new AbortController();
    const before = server.closed;
    const p = new Call("GET /body?status=503", server.url).send({
      signal: c.signal,
      retry: 0,
      onDownloadProgress: () => c.abort(reason),
    });
    const out = await settles(p);
    assert(out.ok);
    assertEquals(out.status, 503);
    assertEquals(out.bodyError?.kind, "abort");
    await settles(server.until(() => server.closed > before));
  });
});

Deno.test("the signal a hook or custom fetch sees follows the caller's", async (t) => {
  await using server = plain();
  const reason = new Error("mine");
  const hookCases: [
    string,
    (
      c: AbortController,
      seen: (s: AbortSignal) => void,
    ) => Record<string, unknown>,
  ][] = [
    ["beforeRequest", (c, seen) => ({
      hooks: {
        beforeRequest: (r: Request) => {
          seen(r.signal);
          c.abort(reason);
        },
      },
    })],
    ["afterResponse", (c, seen) => ({
      hooks: {
        afterResponse: (r: Request) => {
          seen(r.signal);
          c.abort(reason);
        },
      },
    })],
    [
      "beforeRetry",
      (c, seen) => ({
        hooks: {
          beforeRetry: ({ request }: { request: Request }) => {
            seen(request.signal);
            c.abort(reason);
          },
        },
      }),
    ],
    [
      "afterResponse, live",
      (c, seen) => ({
        responseType: "stream",
        hooks: {
          afterResponse: (r: Request) => {
            seen(r.signal);
            c.abort(reason);
          },
        },
      }),
    ],
  ];
  for (const [name, make] of hookCases) {
    await t.step(name, async () => {
      const grab = createGrab(server.url, {
        retry: { limit: 1, backoff: () => 0 },
      });
      const c = new AbortController();
      let signal: AbortSignal | undefined;
      const options = make(c, (s) => signal = s);
      const endpoint = name === "beforeRetry" ? "GET /retry" : "GET /ok";
      const r = await settles(
        grab(endpoint as "GET /ok", { signal: c.signal, ...options }),
      );
      transport(r as R, "abort");
      assert(signal !== undefined);
      assert(
        signal.aborted,
        `${name}: the hook's request.signal did not abort`,
      );
      assertStrictEquals(signal.reason, reason);
    });
  }
  await t.step("custom fetch init.signal", async () => {
    const c = new AbortController();
    let signal: AbortSignal | undefined;
    const grab = createGrab(server.url, {
      retry: 0,
      fetch: (input, init) => {
        signal = init?.signal ?? (input as Request).signal;
        c.abort(reason);
        return fetch(input, init);
      },
    });
    transport(await settles(grab("GET /ok", { signal: c.signal })), "abort");
    assert(signal?.aborted);
    assertStrictEquals(signal.reason, reason);
  });
});

Deno.test("a body cut off by the caller's signal gets its reason in its cancel, whatever the type", async (t) => {
  await using server = plain();
  const reason = new Error("mine");
  for (const type of TYPES) {
    for (const via of ["hook", "fetch"]) {
      await t.step(`${type} via ${via}`, async () => {
        const c = new AbortController();
        let cancelled: unknown = "not cancelled";
        let gotCancel!: () => void;
        const cancelledP = new Promise<void>((r) => gotCancel = r);
        const make = () =>
          new Response(
            new ReadableStream<Uint8Array>({
              start(ctl) {
                ctl.enqueue(
                  new TextEncoder().encode(
                    type === "sse" ? "data: 1\n\n" : "1\n",
                  ),
                );
              },
              pull() {
                return new Promise(() => {});
              },
              cancel(why) {
                cancelled = why;
                gotCancel();
              },
            }),
            {
              headers: {
                "content-type": type === "sse"
                  ? "text/event-stream"
                  : "application/json",
              },
            },
          );
        const grab = createGrab(server.url, {
          retry: 0,
          ...(via === "fetch"
            ? {
              fetch: async () => {
                await Promise.resolve();
                return make();
              },
            }
            : {}),
        });
        const live = type === "stream" || type === "sse" || type === "ndjson";
        const p = grab("GET /ok", {
          signal: c.signal,
          responseType: type,
          // A whole body is cut off as its first chunk arrives.
          ...(live ? {} : { onDownloadProgress: () => c.abort(reason) }),
          ...(via === "hook"
            ? {
              hooks: {
                afterResponse: async (_q: Request, r: Response) => {
                  await r.body?.cancel();
                  return make();
                },
              },
            }
            : {}),
        });
        if (type === "stream" || type === "sse" || type === "ndjson") {
          const [s, e] = await settles(p);
          assertEquals(e, null);
          if (type === "stream") {
            const reader = (s as ReadableStream).getReader();
            await reader.read();
            const pending = reader.read();
            c.abort(reason);
            let caught: unknown;
            try {
              await settles(pending);
            } catch (error) {
              caught = error;
            }
            assertEquals((caught as GrabTransportError).kind, "abort");
          } else {
            const stream = s as AsyncIterable<unknown> & {
              error: GrabTransportError | null;
            };
            await settles((async () => {
              for await (const _ of stream) c.abort(reason);
            })());
            assertEquals(stream.error?.kind, "abort");
            assertStrictEquals(stream.error?.cause, reason);
          }
        } else {
          const e = transport(await settles(p), "abort");
          assertStrictEquals(e.cause, reason);
        }
        await settles(cancelledP, "the body's cancel");
        assertStrictEquals(cancelled, reason);
      });
    }
  }
});
