import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertMatch,
  assertNotMatch,
  assertRejects,
  assertStrictEquals,
} from "@std/assert";
import createGrab, {
  GrabTransportError,
  GrabValidationError,
  isGrabHttpError,
  isGrabTransportError,
  type Progress,
} from "../mod.ts";
import { settles } from "./_bounds.ts";
import { CHANGED_BODIES } from "./_changes.ts";
import { startServer } from "./_server.ts";

function server() {
  let failFirst = 0;
  const fixture = startServer({
    "/echo": (request, seen) =>
      Response.json({
        body: seen.body,
        type: request.headers.get("content-type"),
      }),
    // Each byte sent is 7, one character of the text the server read.
    "/size": (_request, seen) => Response.json({ size: seen.body.length }),
    "/old": () =>
      new Response(null, { status: 307, headers: { location: "/echo" } }),
    "/nowhere": () => new Response(null, { status: 302 }),
    // A redirect to whatever the query names: fetch follows only http(s).
    "/away": (_request, { url }) =>
      new Response(null, {
        status: Number(url.searchParams.get("status")),
        headers: { location: url.searchParams.get("to")! },
      }),
    "/see-other": () =>
      new Response(null, { status: 303, headers: { location: "/method" } }),
    "/method": (request, seen) =>
      Response.json({ method: request.method, body: seen.body }),
    "/flaky": (_request, seen) =>
      ++failFirst === 1
        ? new Response("busy", { status: 503 })
        : Response.json({ body: seen.body }),
  });
  return fixture;
}

function recorder(): {
  seen: Progress[];
  onUploadProgress: (p: Progress) => void;
} {
  const seen: Progress[] = [];
  return {
    seen,
    onUploadProgress: (progress) => void seen.push({ ...progress }),
  };
}

/** A progress callback that keeps what it is told once `settled()` is called. */
function reportsAfterSettling(): {
  onUploadProgress: (progress: Progress) => void;
  settled: () => void;
  late: Progress[];
} {
  let settled = false;
  const late: Progress[] = [];
  return {
    onUploadProgress: (progress) =>
      void (settled && late.push({ ...progress })),
    settled: () => void (settled = true),
    late,
  };
}

function assertGrowing(seen: Progress[], total: number | undefined): void {
  assertEquals(seen[0]?.loaded, 0);
  for (let i = 1; i < seen.length; i++) {
    assert(seen[i]!.loaded >= seen[i - 1]!.loaded, "loaded only grows");
    assertEquals(seen[i]!.total, total);
  }
}

Deno.test("onUploadProgress", async (t) => {
  await using fixture = server();
  const grab = createGrab(fixture.url);

  await t.step(
    "a beforeRequest hook's body and URL reach the redirect's target",
    async () => {
      // Hooks that keep the request's own settings (its redirect mode too).
      const newBody = (request: Request) =>
        new Request(request, { body: "changed" });
      const newUrl = (request: Request) =>
        new Request(request.url.replace("/o", "/old"), request);
      for (
        const [endpoint, beforeRequest] of [
          ["PUT /old", newBody],
          ["PUT /o", newUrl],
        ] as const
      ) {
        const runs = [];
        for (const onUploadProgress of [undefined, () => {}]) {
          const before = fixture.requests.length;
          const [echo] = await grab(endpoint, {
            body: "original",
            hooks: { beforeRequest },
            ...(onUploadProgress ? { onUploadProgress } : {}),
          });
          runs.push({
            echo,
            seen: fixture.requests.slice(before).map((seen) =>
              `${seen.method} ${seen.url.pathname} ${seen.body}`
            ),
          });
        }
        assertEquals(runs[1], runs[0], endpoint);
        assertEquals(runs[0]!.seen.at(-1)?.startsWith("PUT /echo"), true);
      }
    },
  );

  await t.step(
    "a string body is sent whole, its media type kept, counted to the end",
    async () => {
      const { seen, onUploadProgress } = recorder();
      const [echo] = await grab<{ body: string; type: string }>("POST /echo", {
        body: "héllo",
        onUploadProgress,
      });
      assertEquals(echo, { body: "héllo", type: "text/plain;charset=UTF-8" });
      assertGrowing(seen, 6);
      assertEquals(seen.at(-1), { loaded: 6, total: 6 });
    },
  );

  await t.step("a large byte body in many reports", async () => {
    const { seen, onUploadProgress } = recorder();
    const bytes = new Uint8Array(300_000).fill(7);
    const [size] = await grab<{ size: number }>("PUT /size", {
      body: bytes,
      onUploadProgress,
    });
    assertEquals(size, { size: 300_000 });
    assert(seen.length > 3, `${seen.length} reports`);
    assertGrowing(seen, 300_000);
    assertEquals(seen.at(-1)?.loaded, 300_000);
  });

  await t.step("a JSON body keeps its media type", async () => {
    const { onUploadProgress } = recorder();
    const [echo] = await grab<{ body: string; type: string }>("POST /echo", {
      body: { a: 1 },
      onUploadProgress,
    });
    assertEquals(echo, { body: '{"a":1}', type: "application/json" });
  });

  await t.step("a form keeps its boundary", async () => {
    const form = new FormData();
    form.set("name", "cat");
    const { onUploadProgress } = recorder();
    const [echo] = await grab<{ body: string; type: string }>("POST /echo", {
      body: form,
      onUploadProgress,
    });
    const boundary = echo!.type.split("boundary=")[1]!;
    assert(echo!.type.startsWith("multipart/form-data"));
    assert(echo!.body.includes(boundary) && echo!.body.includes("cat"));
  });

  await t.step(
    "a replayable body is still retried, counted again",
    async () => {
      const { seen, onUploadProgress } = recorder();
      const [echo, error] = await grab<{ body: string }>("PUT /flaky", {
        body: "again",
        onUploadProgress,
        retry: { limit: 1, backoff: () => 0 },
      });
      assertEquals(error, null);
      assertEquals(echo, { body: "again" });
      assertEquals(seen.filter((p) => p.loaded === 0).length, 2);
    },
  );

  await t.step(
    "a body the caller changes once the grab has begun is sent as it was, as without progress",
    async () => {
      // A `beforeRequest` hook, which may replace the body, has it sent
      // whole rather than streamed: taken when the grab began all the same.
      const hooked = { hooks: { beforeRequest: () => {} } };
      for (const [name, make] of CHANGED_BODIES) {
        for (const hooks of [{}, hooked]) {
          const sent = [];
          for (const counted of [{}, { onUploadProgress: () => {} }]) {
            const [body, change] = make();
            // POST is not retried, so the body is handed on as it is.
            const grabbing = grab<{ body: string }>("POST /echo", {
              body,
              ...hooks,
              ...counted,
            });
            change();
            const [echo, error] = await grabbing;
            assertEquals(error, null, name);
            sent.push(echo?.body);
          }
          assertEquals(sent[1], sent[0], `${name}, hooks: ${"hooks" in hooks}`);
        }
      }
    },
  );

  await t.step("a stream body is counted, its total unknown", async () => {
    const { seen, onUploadProgress } = recorder();
    const body = new Blob(["ab", "cd"]).stream();
    const [echo] = await grab<{ body: string }>("POST /echo", {
      body,
      onUploadProgress,
    });
    assertEquals(echo?.body, "abcd");
    assertEquals(seen.at(-1), { loaded: 4, total: undefined });
  });

  await t.step(
    "redirects are followed as without progress, each hop sent once",
    async () => {
      const paths = async (run: () => Promise<unknown>) => {
        const before = fixture.requests.length;
        const result = await run();
        const seen = fixture.requests.slice(before).map((request) =>
          `${request.method} ${request.url.pathname} ${request.body} ${
            request.headers.get("x-token")
          }`
        );
        return { result, seen };
      };
      const hooks = {
        beforeRequest: (request: Request) =>
          request.headers.set("x-token", "t"),
      };
      for (
        const [endpoint, body] of [
          ["PUT /old", "moved"],
          ["POST /see-other", "form"],
          ["POST /nowhere", "lost"],
        ] as const
      ) {
        const counted = await paths(() =>
          grab(endpoint, { body, hooks, onUploadProgress: () => {} })
        );
        const plain = await paths(() => grab(endpoint, { body, hooks }));
        assertEquals(counted.seen, plain.seen, endpoint);
        assertEquals(
          JSON.stringify(counted.result),
          JSON.stringify(plain.result),
          endpoint,
        );
      }
      const { seen, onUploadProgress } = recorder();
      const [echo] = await grab<{ body: string }>("PUT /old", {
        body: "moved",
        onUploadProgress,
      });
      assertEquals(echo?.body, "moved");
      assertEquals(seen.at(-1), { loaded: 5, total: 5 });
    },
  );

  await t.step(
    "a redirect to a location that is not an http(s) URL fails as with fetch",
    async () => {
      const file = new URL("../deno.json", import.meta.url).href;
      const targets = [
        "data:application/json,%7B%22injected%22%3Atrue%7D",
        file,
        "http://[not a host",
      ];
      for (const to of targets) {
        for (const status of [303, 307]) {
          const query = { to, status };
          const counted = await grab("POST /away", {
            body: "hello",
            query,
            onUploadProgress: () => {},
          });
          const plain = await grab("POST /away", { body: "hello", query });
          for (const [data, error] of [counted, plain]) {
            assertEquals(data, null, `${status} to ${to}`);
            assertInstanceOf(error, GrabTransportError);
            assertEquals(error.kind, "network", `${status} to ${to}`);
          }
        }
      }
    },
  );

  await t.step(
    "a blob is streamed from itself, its size the total",
    async () => {
      const { seen, onUploadProgress } = recorder();
      const blob = new Blob([new Uint8Array(150_000).fill(7)], {
        type: "application/octet-stream",
      });
      const [size] = await grab<{ size: number }>("PUT /size", {
        body: blob,
        onUploadProgress,
      });
      assertEquals(size, { size: 150_000 });
      assertGrowing(seen, 150_000);
      assertEquals(seen.at(-1)?.loaded, 150_000);
    },
  );

  await t.step(
    "where bodies are not streamed: 0, then the end at the head",
    async () => {
      const agent = Object.getOwnPropertyDescriptor(
        Navigator.prototype,
        "userAgent",
      )!;
      Object.defineProperty(navigator, "userAgent", {
        value: "Mozilla/5.0 (a browser)",
        configurable: true,
      });
      try {
        const { seen, onUploadProgress } = recorder();
        const [echo] = await grab<{ body: string }>("POST /echo", {
          body: "whole",
          onUploadProgress,
        });
        assertEquals(echo?.body, "whole");
        assertEquals(seen, [{ loaded: 0, total: 5 }, { loaded: 5, total: 5 }]);
        // A callback that throws at the end rejects; the response is released.
        const oops = new Error("end of upload bar");
        const error = await assertRejects(() =>
          grab("POST /echo", {
            body: "whole",
            onUploadProgress: ({ loaded }) => {
              if (loaded === 5) throw oops;
            },
          })
        );
        assertStrictEquals(error, oops);
      } finally {
        delete (navigator as unknown as Record<string, unknown>).userAgent;
        assertEquals(
          Object.getOwnPropertyDescriptor(Navigator.prototype, "userAgent"),
          agent,
        );
      }
    },
  );

  await t.step(
    "a callback that throws rejects the grab, nothing retried",
    async () => {
      const before = fixture.requests.length;
      const oops = new Error("upload bar broke");
      const error = await assertRejects(() =>
        grab("PUT /size", {
          body: new Uint8Array(200_000).fill(7),
          onUploadProgress: ({ loaded }) => {
            if (loaded > 0) throw oops;
          },
        })
      );
      assertStrictEquals(error, oops);
      assert(fixture.requests.length - before <= 1);
    },
  );

  // A live type's error body is read to its end as JSON's is: only a 2xx
  // live body is the caller's from its head.
  for (const [responseType, status] of [["json", 200], ["sse", 500]] as const) {
    await t.step(
      `a callback that throws while the answer is read rejects the grab: no network failure (${responseType}, ${status})`,
      async () => {
        // The server answers at once and reads the upload only once the head
        // has arrived; its answer ends when the upload does.
        const head = Promise.withResolvers<void>();
        let requests = 0;
        const text = new TextEncoder();
        await using early = Deno.serve(
          { hostname: "127.0.0.1", port: 0, onListen() {} },
          (request) => {
            requests++;
            const read = head.promise.then(() =>
              request.body!.pipeTo(new WritableStream())
            ).catch(() => {});
            const answer = new ReadableStream<Uint8Array>({
              start: (controller) => controller.enqueue(text.encode("[")),
              pull: async (controller) => {
                await read;
                controller.enqueue(text.encode("1]"));
                controller.close();
              },
            });
            return new Response(answer, { status });
          },
        );
        const oops = new Error("upload bar broke late");
        let headSeen = false;
        const error = await assertRejects(() =>
          createGrab(`http://127.0.0.1:${early.addr.port}`, { retry: 0 })(
            "PUT /",
            {
              body: new Uint8Array(64 * 1024 * 1024),
              responseType,
              hooks: {
                afterResponse: () => {
                  headSeen = true;
                  head.resolve();
                },
              },
              onUploadProgress: () => {
                if (headSeen) throw oops;
              },
            },
          )
        );
        assertStrictEquals(error, oops);
        assertEquals(requests, 1);
      },
    );
  }
});

Deno.test("an upload callback that throws before a retry rejects the grab, the retry unsent", async () => {
  // The server answers a 503 at once and reads the upload on meanwhile; the
  // callback throws while an afterResponse hook is still at work.
  let requests = 0;
  await using busy = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      requests++;
      const read = request.body!.pipeTo(new WritableStream()).catch(() => {});
      const answer = new ReadableStream<Uint8Array>({
        pull: async (controller) => {
          await read;
          controller.close();
        },
      });
      return new Response(answer, { status: 503 });
    },
  );
  const oops = new Error("upload bar broke during the hook");
  const thrown = Promise.withResolvers<void>();
  let headSeen = false;
  let throws = 0;
  const error = await assertRejects(() =>
    createGrab(`http://127.0.0.1:${busy.addr.port}`, {
      retry: { limit: 1, backoff: () => 0 },
    })("PUT /", {
      body: new Uint8Array(64 * 1024 * 1024),
      hooks: {
        afterResponse: async () => {
          headSeen = true;
          await thrown.promise;
        },
      },
      // It throws once: a retry would go out, counted, to the end.
      onUploadProgress: () => {
        if (!headSeen || throws++ > 0) return;
        thrown.resolve();
        throw oops;
      },
    })
  );
  assertStrictEquals(error, oops);
  assertEquals(requests, 1);
});

Deno.test("onUploadProgress is not called once its grab settled", async (t) => {
  await using fixture = server();
  // A fetch that goes on sending after the grab gave up on it: it waits,
  // then sends without the signal, as a careless wrapper would.
  for (
    const [name, body] of [
      ["bytes", () => new TextEncoder().encode("some bytes")],
      ["a stream", () => new Blob(["streamed"]).stream()],
    ] as const
  ) {
    await t.step(`${name} read by a fetch after an abort`, async () => {
      const called = Promise.withResolvers<void>();
      const gate = Promise.withResolvers<void>();
      let sending: Promise<Response> | undefined;
      const grab = createGrab(fixture.url, {
        retry: 0,
        fetch: (input, init) => {
          called.resolve();
          const { signal: _, ...rest } = init ?? {};
          sending = gate.promise.then(() => fetch(input, rest));
          return sending;
        },
      });
      const after = reportsAfterSettling();
      const controller = new AbortController();
      const pending = grab("PUT /size", {
        body: body(),
        signal: controller.signal,
        onUploadProgress: after.onUploadProgress,
      });
      await called.promise;
      controller.abort();
      const [, error] = await pending;
      after.settled();
      assertInstanceOf(error, GrabTransportError);
      assertEquals(error.kind, "abort");
      gate.resolve();
      // The body the fetch reads now ends at once, unsent and unreported.
      await sending!.then((response) => response.body?.cancel(), () => {});
      assertEquals(after.late, []);
    });
  }

  await t.step("a stream a fetch began to read before the abort", async () => {
    // It reads a chunk, then the rest once the grab has given up on it.
    const began = Promise.withResolvers<void>();
    const gate = Promise.withResolvers<void>();
    let reading: Promise<unknown> | undefined;
    const grab = createGrab(fixture.url, {
      retry: 0,
      fetch: (input, init) => {
        // A counted upload comes to a custom fetch as a Request.
        const reader = (input as Request).body!.getReader();
        reading = reader.read().then(async () => {
          began.resolve();
          await gate.promise;
          while (!(await reader.read()).done);
        }).catch((error) => error);
        const { signal } = init!;
        return new Promise((_, reject) =>
          signal!.addEventListener("abort", () => reject(signal!.reason))
        );
      },
    });
    // The caller's source, with more than the fetch reads before the abort.
    let pulls = 0;
    const ended = Promise.withResolvers<string>();
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        if (++pulls <= 1000) return controller.enqueue(new Uint8Array(9));
        controller.close();
        ended.resolve("read to its end");
      },
      cancel: (reason) => {
        cancelledWith = reason;
        ended.resolve("cancelled");
      },
    });
    let cancelledWith: unknown;
    const after = reportsAfterSettling();
    const controller = new AbortController();
    const pending = grab("PUT /size", {
      body,
      signal: controller.signal,
      onUploadProgress: after.onUploadProgress,
    });
    await began.promise;
    controller.abort();
    const [, error] = await pending;
    after.settled();
    assertInstanceOf(error, GrabTransportError);
    assertEquals(error.kind, "abort");
    gate.resolve();
    const refused = await reading;
    assertInstanceOf(refused, TypeError);
    assertEquals(after.late, []);
    assertEquals(await ended.promise, "cancelled");
    // No response came: the reasons the body ended say none did.
    assertStrictEquals(cancelledWith, error);
    assertNotMatch(refused.message, /response/);
    assertMatch(refused.message, /^The request body is not sent on: /);
  });
});

Deno.test("a counted stream body whose response came ends then, its source idle", async () => {
  // The server answers at once and reads on; the caller's source sends a
  // chunk, then waits for more that may never come.
  const read = Promise.withResolvers<string>();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) => {
      request.body!.pipeTo(new WritableStream()).then(
        () => read.resolve("read whole"),
        () => read.resolve("cut"),
      );
      return new Response("busy", { status: 503 });
    },
  );
  const idle = Promise.withResolvers<void>();
  const ended = Promise.withResolvers<string>();
  let pulls = 0;
  const body = new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      if (++pulls === 1) return controller.enqueue(new Uint8Array(9));
      await idle.promise;
      controller.close();
      ended.resolve("read to its end");
    },
    cancel: () => ended.resolve("cancelled"),
  }, { highWaterMark: 0 });
  const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
    retry: 0,
  });
  try {
    const [, error] = await settles(
      grab("PUT /", { body, onUploadProgress: () => {} }),
    );
    assert(isGrabHttpError(error));
    assertEquals(await settles(ended.promise, "the source"), "cancelled");
    assertEquals(await settles(read.promise, "the server's read"), "cut");
  } finally {
    idle.resolve();
    await server.shutdown();
  }
});

Deno.test("a stream body given to two counted grabs at once goes out with one, the other refused with a GrabValidationError", async () => {
  await using fixture = server();
  const grab = createGrab(fixture.url, { retry: 0 });
  const body = new Blob(["ab", "cd"]).stream();
  const both = await settles(
    Promise.allSettled([
      grab("POST /echo", { body, onUploadProgress: () => {} }),
      grab("POST /echo", { body, onUploadProgress: () => {} }),
    ]),
  );
  const sent = both.filter((settled) => settled.status === "fulfilled");
  const refused = both.flatMap((settled) =>
    settled.status === "rejected" ? [settled.reason] : []
  );
  assertEquals(sent.length, 1);
  assertEquals(refused.length, 1);
  // Refused as a stream that another is reading, not a raw TypeError.
  assertInstanceOf(refused[0], GrabValidationError);
  assertMatch(refused[0].message, /locked/);
  assertEquals(fixture.requests.map((seen) => seen.body), ["abcd"]);
});

Deno.test("a counted stream body that a redirect cannot take, or whose source breaks, fails the grab and leaves no source open", async (t) => {
  // Answers without reading the body, which may never end.
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      await request.body?.cancel();
      return new URL(request.url).pathname === "/moved"
        ? new Response(null, { status: 307, headers: { location: "/final" } })
        : new Response("ok");
    },
  );
  const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
    retry: 0,
  });
  try {
    await t.step("a 307: the source, never ending, is cancelled", async () => {
      const cancelled = Promise.withResolvers<void>();
      const body = new ReadableStream<Uint8Array>({
        pull: (controller) => controller.enqueue(new Uint8Array(1024)),
        cancel: () => cancelled.resolve(),
      }, { highWaterMark: 0 });
      const [, error] = await settles(
        grab("POST /moved", { body, onUploadProgress: () => {} }),
      );
      assert(isGrabTransportError(error));
      assertEquals(error.kind, "network");
      assertMatch(error.message, /Cannot follow the redirect/);
      await settles(cancelled.promise, "the cancel of the source");
    });

    await t.step("a source that breaks: a network failure", async () => {
      let pulls = 0;
      const body = new ReadableStream<Uint8Array>({
        pull: (controller) =>
          ++pulls === 1
            ? controller.enqueue(new Uint8Array(8))
            : controller.error(new Error("the source broke")),
      }, { highWaterMark: 0 });
      const [, error] = await settles(
        grab("POST /final", { body, onUploadProgress: () => {} }),
      );
      assert(isGrabTransportError(error));
      assertEquals(error.kind, "network");
    });
  } finally {
    await server.shutdown();
  }
});
