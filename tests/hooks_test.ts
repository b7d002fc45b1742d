import {
  assert,
  assertEquals,
  assertMatch,
  assertRejects,
  assertStrictEquals,
} from "@std/assert";
import { assertSpyCalls, returnsNext, spy } from "@std/testing/mock";
import { FakeTime } from "@std/testing/time";
import createGrab, {
  Call,
  GrabTransportError,
  type Hooks,
  isGrabHttpError,
  paginate,
} from "../mod.ts";
import { silent, startFaultServer } from "./_faults.ts";
import { closedPort, json, startServer } from "./_server.ts";
import { settle, until, watch } from "./_time.ts";
import { assertTransport, settles } from "./_bounds.ts";
import { NUMBERS } from "./_streams.ts";
import { runAfterResponse } from "../src/after_response.ts";
import type { BodySource } from "../src/body.ts";
import * as moduleHooks from "./_hook_module.ts";
import * as moduleRetry from "./_retry_module.ts";

const NO_WAIT = { backoff: () => 0 };

/** A server whose `/private` wants `Bearer new` and whose `/flaky` fails twice. */
function apiServer() {
  let flaky = 0;
  return startServer({
    "/private": (_request, seen) =>
      seen.headers.get("authorization") === "Bearer new"
        ? json({ secret: 42 })
        : json({ error: "expired" }, { status: 401 }),
    "/flaky": () =>
      ++flaky <= 2 ? json({ n: flaky }, { status: 503 }) : json({ n: flaky }),
    "/echo": (_request, seen) =>
      json({
        method: seen.method,
        path: seen.url.pathname,
        headers: Object.fromEntries(seen.headers),
        body: seen.body,
      }),
    "/big": () => new Response("x".repeat(256 * 1024)),
  });
}

Deno.test("Hooks.beforeRequest", async (t) => {
  await using server = apiServer();
  const grab = createGrab(server.url);

  await t.step("a returned Request is sent instead", async () => {
    const [data] = await grab<{ headers: Record<string, string> }>(
      "GET /echo",
      {
        hooks: {
          beforeRequest(request) {
            const headers = new Headers(request.headers);
            headers.set("x-signed", "yes");
            return new Request(request, { headers });
          },
        },
      },
    );
    assertEquals(data?.headers["x-signed"], "yes");
    assertEquals(data?.headers["accept"], "application/json");
  });

  await t.step(
    "a hooks object that is a class instance keeps its this",
    async () => {
      class Signer implements Hooks {
        #secret = "yes";
        beforeRequest(request: Request): void {
          request.headers.set("x-signed", this.#secret);
        }
      }
      const signed = createGrab(server.url, { hooks: new Signer() });
      const [echo] = await signed<{ headers: Record<string, string> }>(
        "GET /echo",
      );
      assertEquals(echo?.headers["x-signed"], "yes");
      const [data] = await grab<{ headers: Record<string, string> }>(
        "GET /echo",
        { hooks: new Signer() },
      );
      assertEquals(data?.headers["x-signed"], "yes");
    },
  );

  await t.step("a Request to another path replaces the target", async () => {
    const [data] = await grab<{ path: string }>("GET /private", {
      hooks: {
        beforeRequest: (request) =>
          new Request(new URL("/echo", request.url), request),
      },
    });
    assertEquals(data?.path, "/echo");
  });

  await t.step(
    "a Request to another path: a GrabError and the outcome name where it went",
    async () => {
      // As after a redirect: the URL is the one that gave the response.
      const hooks: Hooks = {
        beforeRequest: (request) =>
          new Request(new URL("/gone?token=s3cret", request.url), request),
      };
      const [, error] = await grab("GET /echo", { hooks });
      assert(isGrabHttpError(error));
      assertEquals([error.statusCode, error.url], [404, `${server.url}/gone`]);
      assertEquals(error.message, `404 Not Found: GET ${server.url}/gone`);
      const outcome = await new Call("GET /echo", server.url).send({ hooks });
      assert(outcome.ok);
      assertEquals(outcome.url, `${server.url}/gone?token=s3cret`);
    },
  );

  await t.step(
    "another method: the errors and the outcome name the method sent",
    async () => {
      const as = (method: string, to = "/gone"): Hooks => ({
        beforeRequest: (request) =>
          new Request(new URL(to, request.url), { method }),
      });
      const [, error] = await grab("GET /echo", { hooks: as("DELETE") });
      assert(isGrabHttpError(error));
      assertEquals(error.method, "DELETE");
      assertEquals(error.message, `404 Not Found: DELETE ${server.url}/gone`);
      const outcome = await new Call("GET /echo", server.url).send({
        hooks: as("DELETE"),
      });
      assert(outcome.ok);
      assertEquals(outcome.method, "DELETE");
      // Read as the method sent: a GET for a HEAD endpoint has a body.
      const [data] = await grab<{ method: string }>("HEAD /echo", {
        hooks: as("GET", "/echo"),
      });
      assertEquals(data?.method, "GET");
      const closed = `http://127.0.0.1:${closedPort()}/down`;
      const [, failed] = await grab("GET /echo", {
        retry: 0,
        hooks: { beforeRequest: () => new Request(closed, { method: "PUT" }) },
      });
      assert(failed instanceof GrabTransportError);
      assertEquals([failed.method, failed.url], ["PUT", closed]);
      const [, schema] = await grab("GET /gone", {
        hooks: as("PATCH", "/echo"),
        schema: NUMBERS,
      });
      assert(schema instanceof GrabTransportError);
      assertEquals([schema.kind, schema.method], ["schema", "PATCH"]);
    },
  );

  await t.step(
    "another method the policy does not retry: sent once",
    async () => {
      await using busy = startServer(() => json({}, { status: 503 }));
      const [, error] = await grab(`GET ${busy.url}/`, {
        retry: NO_WAIT,
        hooks: {
          beforeRequest: (request) =>
            new Request(request.url, { method: "POST", body: "{}" }),
        },
      });
      assert(isGrabHttpError(error));
      assertEquals([error.statusCode, error.method], [503, "POST"]);
      assertEquals(busy.requests.map((seen) => seen.method), ["POST"]);
    },
  );

  await t.step("headers set in place are sent", async () => {
    const [data] = await grab("GET /private", {
      hooks: {
        beforeRequest(request) {
          request.headers.set("authorization", "Bearer new");
        },
      },
    });
    assertEquals(data, { secret: 42 });
  });

  await t.step("runs before each attempt with the body intact", async () => {
    const bodies: string[] = [];
    const [data] = await grab("PUT /flaky", {
      body: { a: 1 },
      retry: NO_WAIT,
      hooks: {
        async beforeRequest(request) {
          bodies.push(await request.clone().text());
        },
      },
    });
    assertEquals(data, { n: 3 });
    assertEquals(bodies, ['{"a":1}', '{"a":1}', '{"a":1}']);
  });

  await t.step("the timeout still applies to a replaced Request", async () => {
    await using slow = startFaultServer(silent);
    using time = new FakeTime();
    const result = watch(grab(`GET ${slow.url}/`, {
      timeout: 30,
      hooks: { beforeRequest: (request) => new Request(request.url) },
    }));
    await until(time, () => slow.requests.length === 1, "the request");
    await time.tickAsync(29);
    assertEquals(result.settled, false);
    await time.tickAsync(1);
    const [, error] = await settle(time, result);
    assert(error instanceof GrabTransportError);
    assertEquals(error.kind, "timeout");
  });
});

const never = new Promise<void>(() => {});

/** A `beforeRequest` hook that sends the request with another method. */
function as(method: string, body: string | null = null): Hooks {
  return { beforeRequest: (request) => new Request(request, { method, body }) };
}

Deno.test("Hooks.beforeRequest: the method it sends is the one read and retried", async (t) => {
  await using server = startServer({
    "/big": () => new Response("x".repeat(64 * 1024)),
    "/ok": () => json({ ok: true }),
    "/busy": () => json({ busy: true }, { status: 503 }),
    // The head, then nothing until the client lets go.
    "/hang": () => new Response(new ReadableStream({ pull: () => never })),
  });
  const grab = createGrab(server.url, { retry: NO_WAIT });
  const sent = (path: string) =>
    server.requests.filter((seen) => seen.url.pathname === path)
      .map((seen) => seen.method);

  await t.step("a GET made a HEAD has no body to cap", async () => {
    const [data, error, meta] = await grab("GET /big", {
      maxBodyBytes: 1024,
      hooks: as("HEAD"),
    });
    assertStrictEquals(error, null);
    assertStrictEquals(data, null);
    assertStrictEquals(meta.statusCode, 200);
  });

  await t.step(
    "a GET made a POST is not retried when its body outlasts attemptTimeout",
    async () => {
      const result = await grab("GET /hang", {
        attemptTimeout: 20,
        timeout: 5_000,
        hooks: as("POST", "x"),
      });
      assertEquals(assertTransport(result, "timeout").method, "POST");
      assertEquals(sent("/hang"), ["POST"]);
    },
  );

  await t.step("unless the policy retries that method", async () => {
    const before = sent("/busy").length;
    const [, error] = await grab("GET /busy", {
      retry: { ...NO_WAIT, limit: 1, methods: ["GET", "POST"] },
      hooks: as("POST", "x"),
    });
    assert(isGrabHttpError(error));
    assertEquals(sent("/busy").slice(before), ["POST", "POST"]);
  });
});

Deno.test("Hooks.afterResponse", async (t) => {
  await using server = apiServer();

  await t.step("refreshes a token on 401 and repeats with fetch", async () => {
    let token = "old";
    let original: Response | undefined;
    const hooks: Hooks = {
      beforeRequest(request) {
        request.headers.set("authorization", `Bearer ${token}`);
      },
      async afterResponse(request, response) {
        if (response.status !== 401) return;
        original = response;
        token = await Promise.resolve("new");
        const again = new Request(request);
        again.headers.set("authorization", `Bearer ${token}`);
        return fetch(again);
      },
    };
    const grab = createGrab(server.url, { hooks });
    const before = server.requests.length;
    const [data, error, meta] = await grab("GET /private");
    assertStrictEquals(error, null);
    assertEquals(data, { secret: 42 });
    assertEquals(meta.statusCode, 200);
    assertEquals(
      server.requests.slice(before).map((r) => r.headers.get("authorization")),
      ["Bearer old", "Bearer new"],
    );
    // The 401's body was cancelled by the library, not left open.
    assertEquals(original?.bodyUsed, true);
  });

  await t.step("repeats a POST with its body after a refresh", async () => {
    let token = "old";
    const grab = createGrab(server.url, {
      hooks: {
        beforeRequest(request) {
          request.headers.set("authorization", `Bearer ${token}`);
        },
        async afterResponse(request, response) {
          if (response.status !== 401) return;
          await response.body?.cancel();
          token = "new";
          const again = new Request(request);
          again.headers.set("authorization", `Bearer ${token}`);
          return fetch(again);
        },
      },
    });
    const before = server.requests.length;
    const [data, error] = await grab("POST /private", {
      body: { note: "keep" },
    });
    assertStrictEquals(error, null);
    assertEquals(data, { secret: 42 });
    const seen = server.requests.slice(before);
    assertEquals(seen.map((r) => r.body), [
      '{"note":"keep"}',
      '{"note":"keep"}',
    ]);
  });

  await t.step(
    "a body is sent with its Content-Length, not chunked, as without hooks",
    async () => {
      // A server may refuse a body without a length (411, or a 500 from a
      // framework that reads it whole).
      const grab = createGrab(server.url);
      const cases: Hooks[] = [
        { afterResponse() {} },
        { beforeRequest() {}, afterResponse() {} },
      ];
      for (const hooks of cases) {
        const [data] = await grab<{ headers: Record<string, string> }>(
          "PUT /echo",
          { body: { a: 1 }, hooks },
        );
        assertEquals(data?.headers["content-length"], "7");
        assertEquals(data?.headers["transfer-encoding"], undefined);
      }
    },
  );

  await t.step("a replacement Response is read like the original", async () => {
    const grab = createGrab(server.url);
    const [data, error, meta] = await grab("GET /big", {
      hooks: {
        afterResponse: () => new Response('{"swapped":true}', { status: 201 }),
      },
    });
    assertStrictEquals(error, null);
    assertEquals(data, { swapped: true });
    assertEquals(meta.statusCode, 201);
  });

  await t.step("a replacement with a retryable status is retried", async () => {
    const afterResponse = spy(returnsNext([
      new Response(null, { status: 503 }),
      new Response(null, { status: 503 }),
      undefined,
    ]));
    const grab = createGrab(server.url, { retry: NO_WAIT });
    const [data] = await grab("GET /echo", { hooks: { afterResponse } });
    assertSpyCalls(afterResponse, 3);
    assertEquals((data as { path: string }).path, "/echo");
  });

  await t.step(
    "a hook that uses the body and returns nothing rejects",
    async () => {
      const grab = createGrab(server.url, { retry: NO_WAIT });
      const before = server.requests.length;
      let text = "";
      const error = await assertRejects(
        () =>
          grab("GET /echo", {
            hooks: {
              async afterResponse(_request, response) {
                text = await response.text();
              },
            },
          }),
        TypeError,
      );
      assert(error.message.startsWith("Cannot read the response"));
      assertMatch(text, /"path":"\/echo"/);
      // Not mistaken for a network failure and retried.
      assertStrictEquals(server.requests.length, before + 1);
    },
  );

  await t.step(
    "a clone returned in place of the response is read",
    async () => {
      // The original's cancel settles only once the clone is read: waiting
      // for it first held the grab until its timeout.
      const grab = createGrab(server.url, { timeout: 5_000 });
      const [data, error] = await grab<{ path: string }>("GET /echo", {
        hooks: { afterResponse: (_request, response) => response.clone() },
      });
      assertStrictEquals(error, null);
      assertEquals(data?.path, "/echo");
    },
  );

  await t.step(
    "a replacement made of the response's own stream is read",
    async () => {
      // Re-wrapping to change a header: cancelling the original body would
      // cancel the replacement's too.
      const grab = createGrab(server.url, { timeout: 5_000 });
      const [data, error, meta] = await grab<{ path: string }>("GET /echo", {
        hooks: {
          afterResponse(_request, response) {
            const headers = new Headers(response.headers);
            headers.set("x-seen", "1");
            return new Response(response.body, {
              status: response.status,
              headers,
            });
          },
        },
      });
      assertStrictEquals(error, null);
      assertEquals(data?.path, "/echo");
      assertEquals(meta.headers.get("x-seen"), "1");
    },
  );

  await t.step(
    "a hook that keeps a clone and throws rejects at once",
    async () => {
      // Cancelling a body whose clone nobody reads would wait for ever.
      const thrown = new Error("after a clone");
      const grab = createGrab(server.url, { timeout: false });
      const kept: Response[] = [];
      const rejection = settles(grab("GET /echo", {
        hooks: {
          afterResponse(_request, response) {
            kept.push(response.clone());
            throw thrown;
          },
        },
      }));
      assertStrictEquals(await assertRejects(() => rejection), thrown);
      // The clone is the hook's to release.
      await Promise.all(kept.map((clone) => clone.body?.cancel()));
    },
  );

  await t.step(
    "a hook that keeps an unread clone: a 503 is still retried",
    async () => {
      let calls = 0;
      await using flaky = startServer(() =>
        ++calls === 1 ? json({ busy: true }, { status: 503 }) : json({ calls })
      );
      const grab = createGrab(flaky.url, { retry: NO_WAIT, timeout: false });
      const kept: Response[] = [];
      const [data, error] = await settles(grab("GET /x", {
        hooks: {
          afterResponse: (_request, response) =>
            void kept.push(response.clone()),
        },
      }));
      assertStrictEquals(error, null);
      assertEquals(data, { calls: 2 });
      await Promise.all(kept.map((clone) => clone.body?.cancel()));
    },
  );

  await t.step(
    "a hook that keeps a clone of a live body: cancelling it does not wait",
    async () => {
      const grab = createGrab(server.url, { timeout: false });
      const kept: Response[] = [];
      const [stream, error] = await grab("GET /big", {
        responseType: "stream",
        hooks: {
          afterResponse: (_request, response) =>
            void kept.push(response.clone()),
        },
      });
      assertStrictEquals(error, null);
      await settles(stream!.cancel(), "the cancel");
      await Promise.all(kept.map((clone) => clone.body?.cancel()));
    },
  );

  await t.step("a hook may read a clone and return nothing", async () => {
    const grab = createGrab(server.url);
    let text = "";
    const [data] = await grab<{ path: string }>("GET /echo", {
      hooks: {
        async afterResponse(_request, response) {
          text = await response.clone().text();
        },
      },
    });
    assertEquals(data?.path, "/echo");
    assertEquals(JSON.parse(text).path, "/echo");
  });
});

/** A response made of another's body with one more header: it has no URL. */
function rewrapped(_request: Request, response: Response): Response {
  const replacement = new Response(response.body, response);
  replacement.headers.set("x-seen", "1");
  return replacement;
}

Deno.test("Hooks.afterResponse: a replacement without a URL answers where the response it replaced did", async (t) => {
  await using server = startServer({
    "/old/:name": (_request, { url }) =>
      new Response(null, {
        status: 301,
        headers: { location: url.pathname.replace("/old/", "/new/") },
      }),
    "/new/items": (_request, { url }) => {
      const n = Number(url.searchParams.get("page") ?? "1");
      const link = n < 3 ? `<items?page=${n + 1}>; rel="next"` : "";
      return json([n], { headers: link ? { link } : {} });
    },
    "/new/gone": () => json({ gone: true }, { status: 404 }),
  });
  const grab = createGrab(server.url, { hooks: { afterResponse: rewrapped } });

  await t.step("a GrabError names the URL redirected to", async () => {
    const [, error] = await grab("GET /old/gone");
    assert(isGrabHttpError(error));
    assertStrictEquals(error.url, `${server.url}/new/gone`);
  });

  await t.step("Call.send's outcome has that URL", async () => {
    const call = new Call("GET /old/gone", server.url);
    const outcome = await call.send({ hooks: { afterResponse: rewrapped } });
    assert(outcome.ok);
    assertStrictEquals(outcome.url, `${server.url}/new/gone`);
    assertEquals(outcome.headers.get("x-seen"), "1");
  });

  await t.step(
    "paginate resolves a relative next link against it",
    async () => {
      const pages: unknown[] = [];
      for await (
        const [page] of paginate(grab, "GET /old/items", { limit: 5 })
      ) {
        pages.push(page);
      }
      assertEquals(pages, [[1], [2], [3]]);
    },
  );

  await t.step(
    "a later hook sees the URL and that it was redirected",
    async () => {
      const seen: [string, boolean][] = [];
      const [, error] = await grab("GET /old/gone", {
        hooks: {
          afterResponse(_request, response) {
            seen.push([response.url, response.redirected]);
          },
        },
      });
      assert(isGrabHttpError(error));
      assertEquals(seen, [[`${server.url}/new/gone`, true]]);
    },
  );

  await t.step(
    "one bodyless response returned for every grab answers where each was",
    async () => {
      const gone = new Response(null, { status: 410 });
      const replace = async (_request: Request, response: Response) => {
        await response.body?.cancel();
        return gone;
      };
      const urls: [string, boolean][] = [];
      const endpoints = [
        "GET /old/items",
        "GET /new/items",
        "GET /new/gone",
      ] as const;
      for (const endpoint of endpoints) {
        const [, error] = await grab(endpoint, {
          hooks: { afterResponse: replace },
        });
        assert(isGrabHttpError(error));
        urls.push([error.url, gone.redirected]);
      }
      assertEquals(urls, [
        [`${server.url}/new/items`, true],
        [`${server.url}/new/items`, false],
        [`${server.url}/new/gone`, false],
      ]);
    },
  );

  await t.step("a response fetched again keeps its own URL", async () => {
    const [, error] = await grab("GET /old/items", {
      hooks: {
        async afterResponse(_request, response) {
          await response.body?.cancel();
          return await fetch(`${server.url}/new/gone`);
        },
      },
    });
    assert(isGrabHttpError(error));
    assertStrictEquals(error.url, `${server.url}/new/gone`);
  });
});

Deno.test("Hooks.beforeRetry", async (t) => {
  await using server = apiServer();

  await t.step("gets attempt numbers, status and delay", async () => {
    const infos: unknown[] = [];
    const grab = createGrab(server.url, {
      retry: { backoff: (attempt) => attempt - 1 },
    });
    const [data] = await grab("GET /flaky", {
      hooks: {
        beforeRetry({ request, attempt, error, statusCode, delay }) {
          infos.push({ url: request.url, attempt, error, statusCode, delay });
        },
      },
    });
    assertEquals(data, { n: 3 });
    const url = `${server.url}/flaky`;
    assertEquals(infos, [
      { url, attempt: 1, error: undefined, statusCode: 503, delay: 0 },
      { url, attempt: 2, error: undefined, statusCode: 503, delay: 1 },
    ]);
  });

  await t.step("gets the network error of a failed attempt", async () => {
    const infos: { attempt: number; kind: string | undefined }[] = [];
    const grab = createGrab(undefined, { retry: { ...NO_WAIT, limit: 3 } });
    const [, error] = await grab(`GET http://127.0.0.1:${closedPort()}/`, {
      hooks: {
        beforeRetry({ attempt, error, statusCode }) {
          assertStrictEquals(statusCode, undefined);
          infos.push({ attempt, kind: error?.kind });
        },
      },
    });
    assert(error instanceof GrabTransportError);
    assertEquals(error.kind, "network");
    assertEquals(infos, [
      { attempt: 1, kind: "network" },
      { attempt: 2, kind: "network" },
      { attempt: 3, kind: "network" },
    ]);
  });

  await t.step("is not called without a retry", async () => {
    const beforeRetry = spy();
    const grab = createGrab(server.url);
    await grab("POST /flaky", { retry: NO_WAIT, hooks: { beforeRetry } });
    assertSpyCalls(beforeRetry, 0);
  });
});

Deno.test("combineHooks()", async (t) => {
  await using server = apiServer();

  await t.step("factory hooks run before call hooks", async () => {
    const log: string[] = [];
    const hooks = (who: string): Hooks => ({
      beforeRequest: () => void log.push(`${who} beforeRequest`),
      afterResponse: () => void log.push(`${who} afterResponse`),
      beforeRetry: () => void log.push(`${who} beforeRetry`),
    });
    const grab = createGrab(server.url, {
      retry: { ...NO_WAIT, limit: 1 },
      hooks: hooks("factory"),
    });
    await grab("GET /flaky", { hooks: hooks("call") });
    assertEquals(log, [
      "factory beforeRequest",
      "call beforeRequest",
      "factory afterResponse",
      "call afterResponse",
      "factory beforeRetry",
      "call beforeRetry",
      "factory beforeRequest",
      "call beforeRequest",
      "factory afterResponse",
      "call afterResponse",
    ]);
  });

  await t.step("each hook gets what the one before returned", async () => {
    const grab = createGrab(server.url, {
      hooks: {
        beforeRequest(request) {
          const headers = new Headers(request.headers);
          headers.set("x-factory", "1");
          return new Request(request, { headers });
        },
        afterResponse: () => new Response('"factory"'),
      },
    });
    let seenHeader: string | null = null;
    let seenBody = "";
    const [data] = await grab("GET /echo", {
      hooks: {
        beforeRequest(request) {
          seenHeader = request.headers.get("x-factory");
        },
        async afterResponse(_request, response) {
          seenBody = await response.text();
          return new Response('"call"');
        },
      },
    });
    assertEquals(seenHeader, "1");
    assertEquals(seenBody, '"factory"');
    assertEquals(data, "call");
  });

  await t.step("a response replaced twice leaks neither body", async () => {
    const grab = createGrab(server.url, {
      hooks: { afterResponse: () => fetch(`${server.url}/big`) },
    });
    const [data] = await grab("GET /big", {
      hooks: { afterResponse: () => fetch(`${server.url}/echo`) },
    });
    assertEquals((data as { path: string }).path, "/echo");
  });

  await t.step("a factory clone and a call clone", async () => {
    const clone = (_request: Request, response: Response) => response.clone();
    const grab = createGrab(server.url, {
      timeout: 5_000,
      hooks: { afterResponse: clone },
    });
    const [data, error] = await grab<{ path: string }>("GET /echo", {
      hooks: { afterResponse: clone },
    });
    assertStrictEquals(error, null);
    assertEquals(data?.path, "/echo");
  });

  await t.step(
    "a factory replacement is cancelled when a call hook outlasts the timeout",
    async () => {
      const cancelled = Promise.withResolvers<void>();
      let replaced = false;
      const grab = createGrab(server.url, {
        timeout: 50,
        hooks: {
          afterResponse: () => {
            replaced = true;
            return new Response(
              new ReadableStream({ cancel: () => cancelled.resolve() }),
            );
          },
        },
      });
      // The timeout is to pass while the call hook holds the replacement: a
      // machine so busy that the head came later is asked again, a few times
      // at most.
      for (let tries = 0; tries < 5 && !replaced; tries++) {
        const result = await settles(grab("GET /echo", {
          hooks: { afterResponse: () => new Promise<never>(() => {}) },
        }));
        assertTransport(result, "timeout");
      }
      assert(replaced, "the head never came before the timeout, 5 times");
      await settles(cancelled.promise, "the cancel of the replacement");
    },
  );

  await t.step(
    "a call beforeRetry is not called once a factory beforeRetry outlasted the grab",
    async () => {
      await using busy = startServer(() => json({}, { status: 503 }));
      const held = Promise.withResolvers<void>();
      const log: string[] = [];
      const grab = createGrab(busy.url, {
        retry: { ...NO_WAIT, limit: 1 },
        hooks: {
          beforeRetry: () => {
            log.push("factory");
            return held.promise;
          },
        },
      });
      const controller = new AbortController();
      const pending = grab("GET /busy", {
        signal: controller.signal,
        hooks: { beforeRetry: () => void log.push("call") },
      });
      await settles(
        (async () => {
          while (log.length === 0) await new Promise((r) => setTimeout(r, 1));
        })(),
        "the factory beforeRetry",
      );
      controller.abort();
      assertTransport(await settles(pending), "abort");
      held.resolve();
      // The chain's next turn, had it gone on, would have come by now.
      await new Promise((resolve) => setTimeout(resolve, 10));
      assertEquals(log, ["factory"]);
    },
  );

  await t.step("a call hook throwing after a factory replacement", async () => {
    const thrown = new Error("call hook");
    const grab = createGrab(server.url, {
      hooks: { afterResponse: () => fetch(`${server.url}/big`) },
    });
    const rejection = grab("GET /big", {
      hooks: {
        afterResponse() {
          throw thrown;
        },
      },
    });
    assertStrictEquals(await assertRejects(() => rejection), thrown);
  });
});

Deno.test("Hooks that throw", async (t) => {
  await using server = apiServer();
  const cases: [string, (error: Error) => Hooks, string][] = [
    ["beforeRequest", (error) => ({
      beforeRequest() {
        throw error;
      },
    }), "/big"],
    ["afterResponse", (error) => ({
      afterResponse() {
        throw error;
      },
    }), "/big"],
    ["an async afterResponse", (error) => ({
      afterResponse: () => Promise.reject(error),
    }), "/big"],
    ["beforeRetry", (error) => ({
      beforeRetry() {
        throw error;
      },
    }), "/flaky"],
  ];
  for (const [name, make, path] of cases) {
    await t.step(`${name} rejects the grab with the same error`, async () => {
      const thrown = new Error(`${name} failed`);
      // The default 30 s timeout is running: the sanitizers catch a timer or
      // a response body left behind.
      const grab = createGrab(server.url, {
        retry: NO_WAIT,
        hooks: make(thrown),
      });
      const error = await assertRejects(() => grab(`GET ${path}` as "GET /x"));
      assertStrictEquals(error, thrown);
    });
  }

  await t.step(
    "a user signal's listener is removed after a throw",
    async () => {
      const controller = new AbortController();
      const signal = controller.signal;
      using add = spy(signal, "addEventListener");
      using remove = spy(signal, "removeEventListener");
      const thrown = new TypeError("bad hook");
      const grab = createGrab(server.url);
      const error = await assertRejects(() =>
        grab("GET /echo", {
          signal,
          hooks: {
            afterResponse() {
              throw thrown;
            },
          },
        })
      );
      assertStrictEquals(error, thrown);
      assertSpyCalls(add, 1);
      assertSpyCalls(remove, 1);
      assertStrictEquals(remove.calls[0]!.args[1], add.calls[0]!.args[1]);
    },
  );
});

Deno.test("runAfterResponse() tells whether a hook may keep a clone", async (t) => {
  const request = new Request("http://127.0.0.1:9/x");
  const kept: Response[] = [];
  const run = async (hook: NonNullable<Hooks["afterResponse"]>) => {
    const source: BodySource = { platform: true };
    const used = await runAfterResponse(
      hook,
      request,
      new Response("body"),
      source,
    );
    // A tee'd body's cancel waits for its clone's: both go at once.
    await Promise.all(
      [used, ...kept.splice(0)].map((response) => response.body?.cancel()),
    );
    return source.cloned;
  };

  await t.step("a hook that reads the headers only: no", async () => {
    assertEquals(
      await run((_request, response) => void response.headers),
      false,
    );
  });

  await t.step("a hook that clones: yes", async () => {
    assertEquals(
      await run((_request, response) => void kept.push(response.clone())),
      true,
    );
  });

  await t.step("a hook that replaces the response: yes", async () => {
    assertEquals(await run(() => new Response("other")), true);
  });
});

Deno.test("Hooks as given", async (t) => {
  await using server = apiServer();
  const names = ["beforeRequest", "afterResponse", "beforeRetry"] as const;

  for (const name of names) {
    await t.step(
      `${name}: null means none, in the factory, the call or both`,
      async () => {
        await using busy = startServer(() => json({}, { status: 503 }));
        const none = { [name]: null } as unknown as Hooks;
        const retry = { ...NO_WAIT, limit: 1 };
        const grabs = [
          () => createGrab(busy.url, { retry, hooks: none })("GET /busy"),
          () => createGrab(busy.url, { retry })("GET /busy", { hooks: none }),
          () =>
            createGrab(busy.url, { retry, hooks: none })("GET /busy", {
              hooks: none,
            }),
        ];
        for (const grab of grabs) {
          const [, error] = await grab();
          assert(error?.name === "GrabError" && error.statusCode === 503);
        }
        // Each grab retried once: every hook slot was skipped, none called.
        assertEquals(busy.requests.length, 6);
      },
    );
  }

  await t.step(
    "a factory's hooks are the ones createGrab checked",
    async () => {
      const calls: string[] = [];
      const hooks: Record<string, unknown> = {
        beforeRequest: () => void calls.push("checked"),
      };
      const grab = createGrab(server.url, { hooks: hooks as Hooks });
      hooks.beforeRequest = "not a function";
      hooks.afterResponse = null;
      const [data, error] = await grab("GET /echo");
      assertStrictEquals(error, null);
      assert(data !== null);
      assertEquals(calls, ["checked"]);
    },
  );

  await t.step(
    "a class instance keeps its this beside other hooks",
    async () => {
      class Signer implements Hooks {
        #secret = "yes";
        beforeRequest(request: Request): void {
          request.headers.set("x-signed", this.#secret);
        }
      }
      const other: Hooks = { beforeRequest() {} };
      const cases = [
        createGrab(server.url, { hooks: new Signer() })("GET /echo", {
          hooks: other,
        }),
        createGrab(server.url, { hooks: other })("GET /echo", {
          hooks: new Signer(),
        }),
      ];
      for (const [data, error] of await Promise.all(cases)) {
        assertStrictEquals(error, null);
        const echo = data as { headers: Record<string, string> };
        assertEquals(echo.headers["x-signed"], "yes");
      }
    },
  );

  await t.step(
    "a module's namespace (import * as hooks) holds hooks, and a policy",
    async () => {
      await using busy = startServer((_request, seen) =>
        json({ hook: seen.headers.get("x-module-hook") }, { status: 503 })
      );
      const grabs = [
        createGrab(busy.url, { hooks: moduleHooks, retry: moduleRetry })(
          "GET /busy",
        ),
        createGrab(busy.url)("GET /busy", {
          hooks: moduleHooks,
          retry: moduleRetry,
        }),
      ];
      for (const [, error] of await Promise.all(grabs)) {
        assert(error?.name === "GrabError" && error.statusCode === 503);
        assertEquals(error.body, { hook: "yes" });
      }
      // Each grab retried once, as the module's limit says.
      assertEquals(busy.requests.length, 4);
    },
  );

  await t.step("a call's hooks are the ones the grab checked", async () => {
    const hooks: Record<string, unknown> = {
      beforeRequest: () => {
        hooks.afterResponse = 5;
      },
      afterResponse: () => {},
    };
    const grab = createGrab(server.url);
    const [, error] = await grab("GET /echo", { hooks: hooks as Hooks });
    assertStrictEquals(error, null);
  });
});
