/**
 * A request that `beforeRequest` hooks replaced is released once the request
 * left in its place is sent: the caller's stream body it holds, or a branch
 * of it a `clone()` teed, is cancelled unless the request sent carries it or
 * something reads it. Its source (a file, a socket) is never left open by a
 * grab that has settled, and a stream the request sent carries is never cut
 * off.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import createGrab, { type GrabCallOptions, type Hooks } from "../mod.ts";
import { assertOk, assertTransport, settles } from "./_bounds.ts";
import { startServer } from "./_server.ts";
import { watchedSource as source } from "./_streams.ts";

/** The bytes of each chunk of a watched source. */
const CHUNK = 8;

/** A request like `request`, to `path` on its origin, with a body of its own. */
function fresh(request: Request, path = "/other"): Request {
  return new Request(new URL(path, request.url), {
    method: request.method,
    headers: request.headers,
    body: "x",
  });
}

/** `request` to another path, made of it: it shares its stream, unlocked. */
function moved(request: Request): Request {
  return new Request(new URL("/moved", request.url), request);
}

/** The caller's stream in a request of the hook's own, as it is. */
function wrapped(request: Request): Request {
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    duplex: "half",
  } as RequestInit);
}

/** What the server was sent: the path and the body's size. */
function seen(server: { requests: { url: URL; body: string }[] }) {
  return server.requests.map((r) => [r.url.pathname, r.body.length]);
}

Deno.test("Hooks.beforeRequest: a request it replaced is released once the one left is sent", async (t) => {
  await using server = startServer(() => new Response("ok"));

  const replacing: [string, Hooks, Hooks?][] = [
    ["a hook's new request", { beforeRequest: (r) => fresh(r) }],
    ["the same, after a factory hook moved the body", {
      beforeRequest: (r) => fresh(r),
    }, { beforeRequest: moved }],
    ["the same, after a factory hook cloned the request", {
      beforeRequest: (r) => fresh(r),
    }, { beforeRequest: (r) => r.clone() }],
    ["the same, after a factory hook made its own", {
      beforeRequest: (r) => fresh(r),
    }, { beforeRequest: (r) => fresh(r, "/factory") }],
    ["a factory hook's new request, then a call hook's no answer", {
      beforeRequest: () => {},
    }, { beforeRequest: (r) => fresh(r) }],
  ];
  for (const [what, hooks, factoryHooks] of replacing) {
    await t.step(what, async () => {
      server.requests.length = 0;
      const body = source();
      const grab = createGrab(server.url, { hooks: factoryHooks });
      const result = await settles(
        grab("POST /", { body: body.body, hooks, responseType: "text" }),
      );
      assertEquals(assertOk(result), "ok");
      assertEquals(seen(server), [["/other", 1]]);
      await settles(body.cancelled, "the cancel of the caller's stream");
    });
  }

  await t.step("with upload progress", async () => {
    const body = source();
    const grab = createGrab(server.url);
    const result = await settles(grab("POST /", {
      body: body.body,
      hooks: { beforeRequest: (r) => fresh(r) },
      onUploadProgress: () => {},
      responseType: "text",
    }));
    assertEquals(assertOk(result), "ok");
    await settles(body.cancelled, "the cancel of the caller's stream");
  });

  await t.step(
    "a hook's stream a later hook replaced, on each attempt",
    async () => {
      // A replayable body is retried: each attempt's hooks replace anew.
      let answered = 0;
      await using flaky = startServer(() =>
        new Response("ok", { status: answered++ === 0 ? 503 : 200 })
      );
      const made: ReturnType<typeof source>[] = [];
      const grab = createGrab(flaky.url, {
        retry: { limit: 1, backoff: () => 0 },
        hooks: {
          beforeRequest(request) {
            const body = source();
            made.push(body);
            return new Request(request.url, {
              method: request.method,
              body: body.body,
              duplex: "half",
            } as RequestInit);
          },
        },
      });
      const result = await settles(grab("PUT /", {
        body: "hello",
        hooks: { beforeRequest: (r) => fresh(r) },
        responseType: "text",
      }));
      assertEquals(assertOk(result), "ok");
      assertEquals(made.length, 2);
      for (const [n, body] of made.entries()) {
        await settles(
          body.cancelled,
          `the cancel of attempt ${n + 1}'s stream`,
        );
      }
    },
  );
});

Deno.test("Hooks.beforeRequest: a stream the request sent carries is not cut off", async (t) => {
  await using server = startServer(() => new Response("ok"));

  const carrying: [string, Hooks, Hooks?][] = [
    ["the same request", { beforeRequest: (r) => r }],
    ["a request made of it, to another path", { beforeRequest: moved }],
    ["a request of the hook's own with the caller's stream", {
      beforeRequest: wrapped,
    }],
    ["a request with the caller's stream piped through", {
      beforeRequest: (r) =>
        new Request(r.url, {
          method: r.method,
          body: r.body!.pipeThrough(new TransformStream()),
          duplex: "half",
        } as RequestInit),
    }],
    ["a clone", { beforeRequest: (r) => r.clone() }],
    ["a factory hook's request made of it, then a call hook's of that", {
      beforeRequest: wrapped,
    }, { beforeRequest: moved }],
  ];
  for (const [what, hooks, factoryHooks] of carrying) {
    await t.step(what, async () => {
      server.requests.length = 0;
      const body = source(4);
      const grab = createGrab(server.url, { hooks: factoryHooks });
      const result = await settles(
        grab("POST /", { body: body.body, hooks, responseType: "text" }),
      );
      assertEquals(assertOk(result), "ok");
      assertEquals(server.requests.map((r) => r.body.length), [4 * CHUNK]);
      assert(!body.isCancelled, "the caller's stream was cancelled");
    });
  }

  await t.step("by a custom fetch that reads it after answering", async () => {
    for (const beforeRequest of [moved, wrapped]) {
      let taken: Request | undefined;
      const grab = createGrab(server.url, {
        fetch: (input) => {
          taken = input as Request;
          return Promise.resolve(new Response("ok"));
        },
      });
      const body = source(4);
      const result = await settles(grab("POST /", {
        body: body.body,
        hooks: { beforeRequest },
        responseType: "text",
      }));
      assertEquals(assertOk(result), "ok");
      assertEquals((await taken!.bytes()).byteLength, 4 * CHUNK);
      assert(!body.isCancelled, "the caller's stream was cancelled");
    }
  });
});

Deno.test("Hooks.beforeRequest: a request it replaced is released when the grab fails", async (t) => {
  await using server = startServer(() => new Response("ok"));
  // A factory hook clones: the caller's stream is teed, and each branch is
  // a request's to release.
  const factory = { hooks: { beforeRequest: (r: Request) => r.clone() } };
  const hooks = { beforeRequest: (r: Request) => fresh(r) };
  const cases: [string, string, GrabCallOptions, object][] = [
    ["a fetch that fails", "network", {}, {
      fetch: () => Promise.reject(new TypeError("offline")),
    }],
    ["a fetch that outlasts the timeout", "timeout", { timeout: 50 }, {
      fetch: () => new Promise<never>(() => {}),
    }],
  ];
  for (const [what, kind, options, more] of cases) {
    await t.step(what, async () => {
      const body = source();
      const grab = createGrab(server.url, { retry: 0, ...factory, ...more });
      const result = await settles(
        grab("POST /", { ...options, body: body.body, hooks }),
      );
      assertTransport(result, kind);
      await settles(body.cancelled, "the cancel of the caller's stream");
    });
  }

  await t.step("a later hook that throws", async () => {
    const body = source();
    const grab = createGrab(server.url, factory);
    const failing = grab("POST /", {
      body: body.body,
      hooks: {
        beforeRequest: () => {
          throw new Error("the hook's bug");
        },
      },
    });
    const error = await settles(failing.catch((error: Error) => error));
    assertEquals((error as Error).message, "the hook's bug");
    await settles(body.cancelled, "the cancel of the caller's stream");
  });
});
