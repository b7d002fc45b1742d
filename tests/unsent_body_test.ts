/**
 * A stream body that a grab never sent is cancelled when the grab fails, as
 * `fetch` cancels a body it could not send: a caller's source (a file, a
 * socket) is never left open by a grab that has settled.
 *
 * @module
 */

import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import createGrab, {
  Call,
  type GrabCallOptions,
  GrabValidationError,
  isGrabTransportError,
} from "../mod.ts";
import { assertTransport, settles } from "./_bounds.ts";
import { startServer } from "./_server.ts";
import { watchedSource as source } from "./_streams.ts";

/** The ways a stream body is sent: as it is, counted, through a hook. */
const WAYS: [string, GrabCallOptions][] = [
  ["plain", {}],
  ["counted", { onUploadProgress: () => {} }],
  ["through a hook", { hooks: { beforeRequest: () => {} } }],
];

/** A signal already aborted. */
function aborted(): AbortSignal {
  const controller = new AbortController();
  controller.abort();
  return controller.signal;
}

Deno.test("a stream body a failed grab never sent is cancelled", async (t) => {
  await using server = startServer((_request, seen) => new Response(seen.body));
  const never = () => new Promise<never>(() => {});
  const cases: [string, string, GrabCallOptions, object?][] = [
    ["a signal aborted before the call", "abort", { signal: aborted() }],
    ["the same, with upload progress", "abort", {
      signal: aborted(),
      onUploadProgress: () => {},
    }],
    ["a header function that outlasts the timeout", "timeout", {
      timeout: 50,
    }, { headers: never }],
    ["a beforeRequest hook that outlasts the timeout", "timeout", {
      timeout: 50,
      hooks: { beforeRequest: never },
    }],
    ["the same, with upload progress", "timeout", {
      timeout: 50,
      hooks: { beforeRequest: never },
      onUploadProgress: () => {},
    }],
    ["a fetch that fails without reading it, with upload progress", "network", {
      onUploadProgress: () => {},
    }, { fetch: () => Promise.reject(new TypeError("offline")) }],
  ];
  for (const [what, kind, options, factory] of cases) {
    await t.step(what, async () => {
      const body = source();
      const grab = createGrab(server.url, { retry: 0, ...factory });
      const result = await settles(
        grab("POST /", { ...options, body: body.body }),
      );
      assertTransport(result, kind);
      await settles(body.cancelled, "the cancel of the body");
    });
  }

  await t.step(
    "a hook that throws, with upload progress or without",
    async () => {
      for (const counted of [{}, { onUploadProgress: () => {} }]) {
        const body = source();
        const grab = createGrab(server.url);
        const failing = grab("POST /", {
          body: body.body,
          hooks: {
            beforeRequest: () => {
              throw new Error("the hook's bug");
            },
          },
          ...counted,
        });
        const error = await settles(failing.catch((error: Error) => error));
        assertEquals((error as Error).message, "the hook's bug");
        await settles(body.cancelled, "the cancel of the body");
      }
    },
  );

  await t.step(
    "a request an earlier beforeRequest hook made, left when a later hook throws or outlasts the timeout",
    async () => {
      // The factory's hook moves the body into a request of its own: the
      // caller's stream is no longer the grab's to cancel, that request is.
      const grab = createGrab(server.url, {
        retry: 0,
        hooks: {
          beforeRequest(request) {
            const headers = new Headers(request.headers);
            headers.set("x-signed", "yes");
            return new Request(request, { headers });
          },
        },
      });
      const later: [string, () => Promise<never>][] = [
        ["timeout", () => new Promise<never>(() => {})],
        ["throws", () => Promise.reject(new Error("the call hook's bug"))],
      ];
      for (const [what, beforeRequest] of later) {
        const body = source();
        const settled = await settles(
          grab("POST /", {
            body: body.body,
            timeout: 50,
            hooks: { beforeRequest },
          }).catch((error: Error) => error),
        );
        if (settled instanceof Error) {
          assertEquals([what, settled.message], [
            "throws",
            "the call hook's bug",
          ]);
        } else assertTransport(settled, "timeout");
        await settles(body.cancelled, `the cancel of the body (${what})`);
      }
    },
  );

  await t.step(
    "a request a beforeRequest hook gives after the timeout passed, alone or in a chain",
    async () => {
      for (const factory of [{}, { hooks: { beforeRequest: () => {} } }]) {
        const grab = createGrab(server.url, { retry: 0, ...factory });
        const body = source();
        const settled = Promise.withResolvers<void>();
        const late = grab("POST /", {
          body: "hello",
          timeout: 50,
          hooks: {
            async beforeRequest(request) {
              await settled.promise;
              return new Request(request.url, {
                method: "POST",
                body: body.body,
                duplex: "half",
              } as RequestInit);
            },
          },
        });
        assertTransport(await settles(late), "timeout");
        settled.resolve();
        const what = `the cancel of the hook's body (${Object.keys(factory)})`;
        await settles(body.cancelled, what);
      }
    },
  );

  await t.step("Call.send with a signal aborted", async () => {
    const body = source();
    const outcome = await settles(
      new Call("POST /", server.url).send({
        body: body.body,
        signal: aborted(),
      }),
    );
    assert(!outcome.ok);
    assertEquals(outcome.error.kind, "abort");
    await settles(body.cancelled, "the cancel of the body");
  });

  await t.step(
    "a body handed to fetch is left to it when the grab succeeds",
    async () => {
      // A mock that reads the body only after the grab settled.
      let captured: Request | undefined;
      const grab = createGrab(server.url, {
        fetch: (input, init) => {
          captured = new Request(input, init);
          return Promise.resolve(new Response("ok"));
        },
      });
      const body = source();
      const [data, error] = await grab("POST /", {
        body: body.body,
        responseType: "text",
      });
      assertEquals([data, error], ["ok", null]);
      const reader = captured!.body!.getReader();
      assertEquals((await reader.read()).value?.byteLength, 8);
      assert(!body.isCancelled);
      await reader.cancel();
    },
  );
});

Deno.test("a stream body of a grab refused with a GrabValidationError is left to the caller", async () => {
  await using server = startServer(() => new Response("ok"));
  const badHeader = { headers: () => ({ "x-note": "a\nb" }) };
  const cases: [string, GrabCallOptions, object?][] = [
    ["read from already", {}],
    ["read from already, with upload progress", { onUploadProgress: () => {} }],
    ["read from already, with a beforeRequest hook", {
      hooks: { beforeRequest: () => {} },
    }],
    ["a header function's header refused", {}, badHeader],
    [
      "the same, with upload progress",
      { onUploadProgress: () => {} },
      badHeader,
    ],
  ];
  for (const [what, options, factory] of cases) {
    const before = server.requests.length;
    const body = source();
    if (factory === undefined) {
      const reader = body.body.getReader();
      await reader.read();
      reader.releaseLock();
    }
    const grab = createGrab(server.url, factory);
    const error = await settles(
      grab("POST /", { ...options, body: body.body }).then(
        () => undefined,
        (error: unknown) => error,
      ),
    );
    assertInstanceOf(error, GrabValidationError, what);
    assertEquals(server.requests.length, before, what);
    // As `fetch` leaves a stream it refused with a TypeError: the
    // caller's, to read on or to cancel, not cancelled by the grab.
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert(!body.isCancelled, `${what}: the stream was cancelled`);
    await body.body.cancel();
  }
});

/** The body a custom `fetch` is given, in a request or its init. */
function bodyOf(
  input: RequestInfo | URL,
  init: RequestInit | undefined,
): ReadableStream<Uint8Array<ArrayBuffer>> {
  const body = input instanceof Request && init?.body === undefined
    ? input.body
    : init?.body;
  return body as ReadableStream<Uint8Array<ArrayBuffer>>;
}

Deno.test("a stream body is cancelled and let go when the grab ends, whatever fetch does with it", async (t) => {
  await using server = startServer(() => new Response("ok"));
  // A fetch that reads a chunk, then holds the body and never settles, deaf
  // to the signal: the caller's source is grab's to cancel all the same.
  const holding: typeof fetch = (input, init) => {
    void bodyOf(input, init).getReader().read();
    return new Promise<never>(() => {});
  };
  for (const [way, more] of WAYS) {
    for (const kind of ["timeout", "abort"]) {
      await t.step(`${way}, ${kind}`, async () => {
        const body = source();
        const controller = new AbortController();
        const ends = kind === "timeout"
          ? { timeout: 50 }
          : { signal: controller.signal };
        const grab = createGrab(server.url, { retry: 0, fetch: holding });
        const pending = grab("POST /", { ...more, ...ends, body: body.body });
        if (kind === "abort") setTimeout(() => controller.abort(), 20);
        assertTransport(await settles(pending), kind);
        await settles(body.cancelled, "the cancel of the body");
        assert(!body.body.locked, "the body is still locked");
      });
    }
  }
});

Deno.test("a stream body that fails partway fails the grab, not sent again", async (t) => {
  await using server = startServer((_request, seen) => new Response(seen.body));
  const failing = () => {
    let pulls = 0;
    return new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulls++ < 2) controller.enqueue(new TextEncoder().encode("part"));
        else controller.error(new Error("the source broke"));
      },
    });
  };
  // A fetch that sends the body cut short, as if it had ended, and gives
  // the server's answer (as workerd does).
  const cutting: typeof fetch = async (input, init) => {
    const reader = bodyOf(input, init).getReader();
    const parts: BlobPart[] = [];
    try {
      for (let read; !(read = await reader.read()).done;) {
        parts.push(read.value);
      }
    } catch {
      // Sent as far as it went.
    }
    const url = input instanceof Request ? input.url : String(input);
    return fetch(url, { method: "PUT", body: new Blob(parts) });
  };
  const fetches: [string, object][] = [
    ["the platform's fetch", {}],
    ["a fetch that sends it cut short", { fetch: cutting }],
  ];
  for (const [which, factory] of fetches) {
    for (const [way, more] of WAYS) {
      await t.step(`${which}, ${way}`, async () => {
        const before = server.requests.length;
        const grab = createGrab(server.url, { retry: 2, ...factory });
        const result = await settles(
          grab("PUT /", { ...more, body: failing(), responseType: "text" }),
        );
        const error = assertTransport(result, "network");
        assertEquals(
          error.message.split(": PUT ")[0],
          "Cannot complete the request: the body's stream failed while it was sent, so the server got at most part of it (see the cause); it is not sent again",
        );
        assertEquals((error.cause as Error).message, "the source broke");
        assert(server.requests.length - before <= 1, "the body was sent again");
      });
    }
  }
});

Deno.test("a stream body whose own cancel never settles, rejects or throws is let go once the grab fails", async (t) => {
  await using server = startServer(() => new Response("ok"));
  const cancels: [string, () => Promise<void>][] = [
    ["never settles", () => new Promise<void>(() => {})],
    ["rejects", () => Promise.reject(new Error("the source's cancel broke"))],
    ["throws", () => {
      throw new Error("the source's cancel broke");
    }],
  ];
  for (const [what, cancel] of cancels) {
    for (
      const [way, more] of [["plain", {}], ["counted", {
        onUploadProgress: () => {},
      }]] as const
    ) {
      await t.step(`${what}, ${way}`, async () => {
        const reasons: unknown[] = [];
        const body = new ReadableStream<Uint8Array>({
          pull: () => new Promise<never>(() => {}),
          cancel: (reason) => {
            reasons.push(reason);
            return cancel();
          },
        }, { highWaterMark: 0 });
        const grab = createGrab(server.url, { retry: 0 });
        const result = await settles(
          grab("POST /", { ...more, body, timeout: 50 }),
        );
        assertTransport(result, "timeout");
        await settles(
          (async () => {
            while (reasons.length === 0) {
              await new Promise((resolve) => setTimeout(resolve, 1));
            }
          })(),
          "the cancel of the body",
        );
        assertEquals(reasons.length, 1);
        assert(!body.locked, "the body is still locked");
      });
    }
  }
});

/**
 * A server that answers without reading the request's body (but `/echo`,
 * which sends it back as it reads it), and a 303 to `/done`.
 */
function answeringServer(): Deno.HttpServer<Deno.NetAddr> & { url: string } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      const { pathname } = new URL(request.url);
      if (pathname === "/echo") return new Response(request.body);
      if (pathname === "/see") {
        return new Response(null, {
          status: 303,
          headers: { location: "/done" },
        });
      }
      if (pathname === "/refused") {
        return Response.json({ reason: "too much" }, { status: 413 });
      }
      if (pathname === "/nothing") return new Response(null, { status: 204 });
      if (pathname === "/ticks") {
        // Server-Sent Events without end, a tick every 20 ms.
        let timer: ReturnType<typeof setInterval>;
        const ticks = new ReadableStream<Uint8Array>({
          start(controller) {
            const tick = () =>
              controller.enqueue(new TextEncoder().encode("data: tick\n\n"));
            tick();
            timer = setInterval(tick, 20);
          },
          cancel: () => clearInterval(timer),
        });
        return new Response(ticks, {
          headers: { "content-type": "text/event-stream" },
        });
      }
      return new Response("ok");
    },
  );
  return Object.assign(server, { url: `http://127.0.0.1:${server.addr.port}` });
}

Deno.test("a stream body answered before it was sent whole is let go once the answer is read", async (t) => {
  await using server = answeringServer();
  const answers: [
    string,
    "/answer" | "/refused" | "/see" | "/nothing",
    GrabCallOptions,
    number,
  ][] = [
    ["a 200 read as text", "/answer", { responseType: "text" }, 200],
    ["a 200 read as bytes", "/answer", { responseType: "bytes" }, 200],
    ["a 413, an HTTP error", "/refused", {}, 413],
    ["a 303 to a GET", "/see", { responseType: "text" }, 200],
    [
      "a 204 to a live response type",
      "/nothing",
      { responseType: "stream" },
      204,
    ],
  ];
  // A wrapper of the platform's `fetch` (a tracer's, a logger's) gives the
  // platform's responses: its body is let go as well.
  const wrapper: typeof fetch = (input, init) => fetch(input, init);
  const ways: [string, GrabCallOptions, object?][] = [
    ...WAYS,
    ["through a wrapper of fetch", {}, { fetch: wrapper }],
  ];
  for (const [what, path, options, status] of answers) {
    for (const [way, more, factory] of ways) {
      await t.step(`${what}, ${way}`, async () => {
        const body = source();
        const grab = createGrab(server.url, { retry: 0, ...factory });
        const [, error, meta] = await settles(
          grab(`POST ${path}`, { ...options, ...more, body: body.body }),
        );
        if (status === 413) {
          assertEquals(error?.name === "GrabError" && error.statusCode, 413);
        } else assertEquals([error, meta.statusCode], [null, status]);
        await settles(body.cancelled, "the cancel of the body");
        assert(!body.body.locked, "the body is still locked");
      });
    }
  }
});

/** The live echo of `body` sent to `/echo` as `more` says, once its head came. */
async function liveEcho(
  grab: ReturnType<typeof createGrab>,
  more: GrabCallOptions,
  body: ReadableStream<Uint8Array>,
): Promise<ReadableStream<Uint8Array>> {
  const [stream, error] = await settles(
    grab("POST /echo", { ...more, body, responseType: "stream" }),
  );
  assertEquals(error, null);
  return stream!;
}

Deno.test("a stream body goes on being sent while a live response is read", async (t) => {
  await using server = answeringServer();
  for (const [way, more] of WAYS) {
    await t.step(way, async () => {
      // 400 chunks of 8 bytes, far more than `fetch` reads ahead of the head.
      const body = source(400);
      const grab = createGrab(server.url, { retry: 0 });
      const stream = await liveEcho(grab, more, body.body);
      let echoed = 0;
      for await (const chunk of stream) echoed += chunk.byteLength;
      assertEquals(echoed, 3200);
      assert(!body.isCancelled, "the body was cancelled");
    });
  }
});

Deno.test("a stream body that gives a chunk other than bytes fails the grab, saying so", async (t) => {
  await using server = startServer((_request, seen) => new Response(seen.body));
  // Each chunk's label, the chunk, and how the message names it when not
  // as its label.
  const chunks: [string, unknown, string?][] = [
    ["a string", "text"],
    ["an ArrayBuffer", new ArrayBuffer(4)],
    ["a DataView", new DataView(new ArrayBuffer(4))],
    ["a Uint16Array", new Uint16Array(2)],
    ["an object", { length: 4 }],
    ["null", null],
    ["a number", 7],
    ["undefined", undefined],
    ["an Int8Array", new Int8Array(2)],
    // Hostile: a Proxy whose every trap throws, and bytes whose class
    // getter throws, are refused, named as objects.
    [
      "a Proxy that throws",
      new Proxy({}, {
        getPrototypeOf: () => {
          throw new Error("trap");
        },
        get: () => {
          throw new Error("trap");
        },
      }),
      "an object",
    ],
    [
      "bytes whose class getter throws",
      Object.defineProperty(new Uint16Array(2), Symbol.toStringTag, {
        get: () => {
          throw new Error("getter");
        },
      }),
      "an object",
    ],
  ];
  for (const [what, chunk, named = what] of chunks) {
    for (const [way, more] of WAYS) {
      await t.step(`${what}, ${way}`, async () => {
        let cancelled = false;
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode("first"));
            controller.enqueue(chunk as Uint8Array);
          },
          cancel: () => void (cancelled = true),
        });
        const grab = createGrab(server.url, { retry: 2 });
        const before = server.requests.length;
        const result = await settles(grab("POST /", { ...more, body }));
        const error = assertTransport(result, "network");
        assert(/body's stream failed/.test(error.message), error.message);
        assertEquals(
          (error.cause as Error).message,
          `A request body's stream must give Uint8Array chunks, as fetch takes them; it gave ${named}`,
        );
        assert(cancelled, "the body was not cancelled");
        assert(!body.locked, "the body is still locked");
        assert(server.requests.length - before <= 1, "the body was sent again");
      });
    }
  }
});

Deno.test("a stream body is let go once the live response it was sent with is done with", async (t) => {
  await using server = answeringServer();
  const grab = createGrab(server.url, { retry: 0 });
  for (const [way, more] of WAYS) {
    await t.step(`a "stream" response read to its end, ${way}`, async () => {
      const body = source();
      const [stream, error] = await settles(
        grab("POST /answer", {
          ...more,
          body: body.body,
          responseType: "stream",
        }),
      );
      assertEquals(error, null);
      assertEquals(await new Response(stream).text(), "ok");
      await settles(body.cancelled, "the cancel of the body");
      assert(!body.body.locked, "the body is still locked");
    });
    await t.step(`a "stream" response cancelled, ${way}`, async () => {
      const body = source();
      const reader = (await liveEcho(grab, more, body.body)).getReader();
      assert((await reader.read()).value!.byteLength > 0);
      await reader.cancel();
      await settles(body.cancelled, "the cancel of the body");
      assert(!body.body.locked, "the body is still locked");
    });
    await t.step(`an "sse" response cancelled, ${way}`, async () => {
      const body = source();
      const [events, error] = await settles(
        grab("POST /ticks", { ...more, body: body.body, responseType: "sse" }),
      );
      assertEquals(error, null);
      for await (const event of events!) {
        assertEquals(event.data, "tick");
        break;
      }
      await settles(body.cancelled, "the cancel of the body");
      assert(!body.body.locked, "the body is still locked");
    });
  }
});

Deno.test("a stream body that fails after a live response's head fails that body, saying so", async (t) => {
  // Echoes the request's body as it reads it.
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => new Response(request.body),
  );
  const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
    retry: 0,
  });
  const failures: [
    string,
    string,
    (c: ReadableStreamDefaultController) => void,
  ][] = [
    [
      "a string chunk",
      "A request body's stream must give Uint8Array chunks, as fetch takes them; it gave a string",
      (controller) => controller.enqueue("text"),
    ],
    [
      "an error",
      "the source broke",
      (controller) => controller.error(new Error("the source broke")),
    ],
  ];
  for (const [what, said, failing] of failures) {
    for (const [way, more] of WAYS) {
      await t.step(`${what}, ${way}`, async () => {
        // One chunk, then the failure once the echo of it was read.
        const echoed = Promise.withResolvers<void>();
        let pulls = 0;
        const body = new ReadableStream<Uint8Array>({
          async pull(controller) {
            if (pulls++ === 0) return controller.enqueue(new Uint8Array(8));
            await echoed.promise;
            failing(controller);
          },
        });
        const [stream, error] = await settles(
          grab("POST /", { ...more, body, responseType: "stream" }),
        );
        assertEquals(error, null);
        const reader = stream!.getReader();
        assertEquals((await settles(reader.read())).value?.byteLength, 8);
        echoed.resolve();
        const failure = await settles(
          (async () => {
            while (!(await reader.read()).done);
          })().then(() => undefined, (failure: unknown) => failure),
          "the echo's end",
        );
        assert(isGrabTransportError(failure), String(failure));
        assertEquals(failure.kind, "network");
        assert(/body's stream failed/.test(failure.message), failure.message);
        assertEquals((failure.cause as Error).message, said);
        assert(!body.locked, "the body is still locked");
      });
    }
  }
});
