/**
 * Grabs inside grabs, as programs nest them: a hook that grabs its token
 * with a grab (of its own factory or another's), one that grabs again and
 * again without end, and the outer grab's time and signal around the
 * inner ones.
 *
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";
import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import createGrab, {
  GrabValidationError,
  type Hooks,
  isGrabTransportError,
  orThrow,
} from "../mod.ts";

/** A grab of the default factory. */
type Grab = ReturnType<typeof createGrab>;
import { startServer } from "./_server.ts";

/** A hook called more often than this has run away: the test stops it. */
const CAP = 5_000;

/** The grab's promise settled: its tuple, or what it rejected with. */
function settled<T>(
  promise: Promise<T>,
): Promise<{ value: T } | { error: unknown }> {
  return promise.then((value) => ({ value }), (error) => ({ error }));
}

/** A server whose `/token` answers only once `release` is called. */
function heldTokenServer() {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const server = startServer({
    "/token": async () => {
      await held;
      return Response.json({ token: "t1" });
    },
    "/me": (request) => Response.json(request.headers.get("authorization")),
  });
  return { server, release };
}

const isToken = (request: Request) =>
  new URL(request.url).pathname === "/token";

Deno.test("a beforeRequest hook that grabs with its own factory for its own request", async (t) => {
  await t.step(
    "is refused with a GrabValidationError that says why, not a stack overflow",
    async () => {
      await using server = startServer(() => Response.json({ token: "t" }));
      let calls = 0;
      const api = createGrab(server.url, {
        timeout: 5_000,
        hooks: {
          async beforeRequest(request) {
            if (++calls > CAP) throw new Error("the hook ran away");
            const [body] = await orThrow(api<{ token: string }>("POST /token"));
            request.headers.set("authorization", `Bearer ${body.token}`);
          },
        },
      });
      const outcome = await settled(api("GET /me"));
      assert("error" in outcome);
      assertInstanceOf(outcome.error, GrabValidationError);
      assertEquals(
        outcome.error.message,
        "Cannot start the grab: 32 grabs are already nested, each started by a hook or header function of the one before; skip the grab's own request in the hook, or make it with a factory without that hook",
      );
      assertEquals(calls, 32);
      assertEquals(server.requests.length, 0);
    },
  );

  await t.step("through another factory's hook too", async () => {
    await using server = startServer(() => Response.json({ token: "t" }));
    let calls = 0;
    const hooks = (other: () => Grab): Hooks => ({
      async beforeRequest() {
        if (++calls > CAP) throw new Error("the hook ran away");
        await orThrow(other()("POST /token"));
      },
    });
    const a: Grab = createGrab(server.url, { hooks: hooks(() => b) });
    const b: Grab = createGrab(server.url, { hooks: hooks(() => a) });
    const outcome = await settled(a("GET /me"));
    assert("error" in outcome);
    assertInstanceOf(outcome.error, GrabValidationError);
    assertEquals(calls, 32);
    assertEquals(server.requests.length, 0);
  });

  await t.step("through a header function", async () => {
    await using server = startServer(() => Response.json({ token: "t" }));
    let calls = 0;
    const api: Grab = createGrab(server.url, {
      async headers(): Promise<Record<string, string>> {
        if (++calls > CAP) throw new Error("the header function ran away");
        const [token] = await orThrow(api<string>("POST /token"));
        return { authorization: `Bearer ${token}` };
      },
    });
    const outcome = await settled(api("GET /me"));
    assert("error" in outcome);
    assertInstanceOf(outcome.error, GrabValidationError);
    assertEquals(calls, 32);
  });

  await t.step("leaves grabs that nest less deeply alone", async () => {
    await using server = startServer(() => Response.json(1));
    let depth = 0;
    const api = createGrab(server.url, {
      hooks: {
        async beforeRequest() {
          // Each grab starts one more, to a depth of 31.
          if (++depth < 31) await orThrow(api("GET /deeper"));
        },
      },
    });
    const [data, error] = await api("GET /me");
    assertEquals([data, error], [1, null]);
    assertEquals(server.requests.length, 31);
  });
});

Deno.test("a token grabbed by the same factory, its own request skipped, one flight for many", async () => {
  await using server = startServer({
    "/token": () => Response.json({ token: "t1" }),
    "/me": (request) => Response.json(request.headers.get("authorization")),
  });
  let token = "";
  let refreshing: Promise<string> | undefined;
  const api = createGrab(server.url, {
    timeout: 5_000,
    hooks: {
      async beforeRequest(request) {
        if (isToken(request)) return;
        refreshing ??= orThrow(api<{ token: string }>("POST /token"))
          .then(([body]) => (token = body.token))
          .finally(() => (refreshing = undefined));
        if (!token) await refreshing;
        request.headers.set("authorization", `Bearer ${token}`);
      },
    },
  });
  const all = await Promise.all(
    Array.from({ length: 20 }, () => api("GET /me")),
  );
  for (const [data, error] of all) {
    assertEquals([data, error], ["Bearer t1", null]);
  }
  assertEquals(
    server.requests.filter((seen) => seen.url.pathname === "/token").length,
    1,
  );
});

Deno.test("a token grab that fails rejects every grab that waited for it, with its error", async () => {
  await using server = startServer({
    "/token": () => new Response("down", { status: 500 }),
    "/me": () => Response.json(1),
  });
  let refreshing: Promise<unknown> | undefined;
  const api = createGrab(server.url, {
    retry: 0,
    hooks: {
      async beforeRequest(request) {
        if (isToken(request)) return;
        refreshing ??= orThrow(api("POST /token"))
          .finally(() => (refreshing = undefined));
        await refreshing;
      },
    },
  });
  const all = await Promise.all(
    Array.from({ length: 5 }, () => settled(api("GET /me"))),
  );
  const errors = all.map((outcome) =>
    "error" in outcome ? outcome.error : undefined
  );
  for (const error of errors) {
    assertEquals((error as { statusCode?: number }).statusCode, 500);
  }
  assertEquals(new Set(errors).size, 1);
  assertEquals(server.requests.length, 1);
});

Deno.test("the outer grab's end ends the token grab given its request's signal", async (t) => {
  for (const how of ["timeout", "abort"] as const) {
    await t.step(how, async () => {
      const { server, release } = heldTokenServer();
      await using _ = server;
      const controller = new AbortController();
      let inner: Promise<unknown> | undefined;
      const api = createGrab(server.url, {
        timeout: how === "timeout" ? 200 : 10_000,
        hooks: {
          async beforeRequest(request) {
            if (isToken(request)) return;
            inner = api("POST /token", {
              timeout: 10_000,
              signal: request.signal,
            });
            if (how === "abort") queueMicrotask(() => controller.abort());
            await inner;
          },
        },
      });
      const [, error] = await api("GET /me", { signal: controller.signal });
      assert(isGrabTransportError(error));
      assertEquals(error.kind, how);
      const [, innerError] = await (inner as ReturnType<typeof api>);
      assert(isGrabTransportError(innerError));
      assertEquals(innerError.kind, "abort");
      release();
    });
  }
});

Deno.test("an inner grab's hooks see the context it was started in", async () => {
  const context = new AsyncLocalStorage<string>();
  await using server = startServer(() => Response.json(1));
  const wrong: string[] = [];
  const api = createGrab(server.url, {
    hooks: {
      async beforeRequest(request) {
        const expected = request.headers.get("x-context");
        if (context.getStore() !== expected) {
          wrong.push(`${expected} saw ${context.getStore()}`);
        }
        if (new URL(request.url).pathname !== "/me") return;
        await context.run(
          "inner",
          () => api("GET /token", { headers: { "x-context": "inner" } }),
        );
      },
      afterResponse(request) {
        const expected = request.headers.get("x-context");
        if (context.getStore() !== expected) {
          wrong.push(`after: ${expected} saw ${context.getStore()}`);
        }
      },
    },
  });
  await Promise.all(
    Array.from(
      { length: 8 },
      (_, at) =>
        context.run(
          `outer${at}`,
          () => api("GET /me", { headers: { "x-context": `outer${at}` } }),
        ),
    ),
  );
  assertEquals(wrong, []);
  assertEquals(server.requests.length, 16);
});
