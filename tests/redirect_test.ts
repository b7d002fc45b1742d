/**
 * Redirects, which `fetch` follows on grab's behalf: what crosses an origin,
 * how a loop ends, and the `redirect` option's `"manual"` and `"error"`.
 *
 * Two fixture servers on 127.0.0.1 with different ports are different
 * origins, which is all a cross-origin redirect needs.
 *
 * @module
 */

import {
  assert,
  assertEquals,
  assertNotMatch,
  assertStrictEquals,
} from "@std/assert";
import { STATUS_CODE } from "@std/http/status";
import createGrab, { GrabError, GrabTransportError } from "../mod.ts";
import { json, startServer } from "./_server.ts";

const NO_RETRY = { limit: 0, backoff: () => 0 };
const SECRET = "Bearer redirect-secret-7f3a";

Deno.test("createGrab() redirects", async (t) => {
  await using target = startServer({
    "/landing": (_request, seen) =>
      json({ method: seen.method, body: seen.body }),
  });
  await using origin = startServer({
    "/away/:status": (_request, seen) =>
      new Response(null, {
        status: Number(seen.url.pathname.split("/")[2]),
        headers: { location: `${target.url}/landing` },
      }),
    "/here": () =>
      new Response(null, {
        status: STATUS_CODE.Found,
        headers: { location: "/landing" },
      }),
    "/landing": () => json({ same: true }),
    "/loop": () =>
      new Response(null, {
        status: STATUS_CODE.Found,
        headers: { location: "/loop" },
      }),
  });
  const secretHeaders = {
    Authorization: SECRET,
    Cookie: "session=cookie-secret",
    "X-Api-Key": "kept-on-redirect",
    "X-Trace": "trace-1",
  };
  const grab = createGrab(origin.url, {
    headers: secretHeaders,
    // grab refuses Proxy-Authorization in its headers; a hook may add it.
    hooks: {
      beforeRequest: (request) => {
        request.headers.set("Proxy-Authorization", "Basic proxy-secret");
      },
    },
    retry: NO_RETRY,
    timeout: 10_000,
  });

  /** One request reached the target, with no credentials and the rest kept. */
  const assertHopped = (before: number) => {
    assertStrictEquals(target.requests.length, before + 1);
    const seen = target.requests.at(-1)!.headers;
    for (const name of ["authorization", "cookie", "proxy-authorization"]) {
      assertStrictEquals(seen.get(name), null, name);
    }
    // Other headers survive the hop: a caller with a secret in a custom
    // header must set redirect: "manual".
    assertEquals(seen.get("x-api-key"), "kept-on-redirect");
    assertEquals(seen.get("x-trace"), "trace-1");
  };

  await t.step(
    "a cross-origin redirect drops Authorization, Cookie and Proxy-Authorization but keeps other headers",
    async () => {
      const before = target.requests.length;
      const [data, error] = await grab("GET /away/:status", {
        params: { status: STATUS_CODE.Found },
      });
      assertStrictEquals(error, null);
      assertEquals(data, { method: "GET", body: "" });
      assertHopped(before);
    },
  );

  await t.step(
    "a counted upload's own redirect drops the same headers",
    async () => {
      // A counted upload goes out as a stream, so grab follows its first
      // hop itself, and must drop what fetch drops.
      const before = target.requests.length;
      const [data, error] = await grab("PUT /away/:status", {
        params: { status: STATUS_CODE.TemporaryRedirect },
        body: "hello",
        onUploadProgress: () => {},
      });
      assertStrictEquals(error, null);
      assertEquals(data, { method: "PUT", body: "hello" });
      assertHopped(before);
    },
  );

  await t.step("a same-origin redirect keeps Authorization", async () => {
    const [data, error] = await grab("GET /here");
    assertStrictEquals(error, null);
    assertEquals(data, { same: true });
    const seen = origin.requests.at(-1)!;
    assertEquals(seen.url.pathname, "/landing");
    assertStrictEquals(seen.headers.get("authorization"), SECRET);
  });

  await t.step("a 303 after POST becomes a GET without the body", async () => {
    const [data, error] = await grab("POST /away/:status", {
      params: { status: STATUS_CODE.SeeOther },
      body: { note: "x" },
    });
    assertStrictEquals(error, null);
    assertEquals(data, { method: "GET", body: "" });
  });

  await t.step("a 307 after POST keeps the method and the body", async () => {
    const [data, error] = await grab("POST /away/:status", {
      params: { status: STATUS_CODE.TemporaryRedirect },
      body: { note: "x" },
    });
    assertStrictEquals(error, null);
    assertEquals(data, { method: "POST", body: '{"note":"x"}' });
  });

  await t.step(
    "a redirect loop ends in a network error after fetch's 20 redirects",
    async () => {
      const before = origin.requests.length;
      const [data, error, meta] = await grab("GET /loop");
      assertStrictEquals(data, null);
      assert(error instanceof GrabTransportError);
      assertEquals(error.kind, "network");
      assertEquals(meta, { statusCode: 0 });
      // The first request and the 20 redirects fetch follows.
      assertEquals(origin.requests.length - before, 21);
      assertNotMatch(error.message, /redirect-secret/);
    },
  );

  await t.step(
    'redirect: "manual" gives the 3xx as a GrabError with Location',
    async () => {
      const before = target.requests.length;
      const [data, error, meta] = await grab("GET /away/:status", {
        params: { status: STATUS_CODE.Found },
        redirect: "manual",
      });
      assertStrictEquals(data, null);
      assert(error instanceof GrabError);
      assertEquals(error.statusCode, STATUS_CODE.Found);
      assertEquals(error.headers.get("location"), `${target.url}/landing`);
      assertStrictEquals(error.body, null);
      assertEquals(meta, {});
      assertStrictEquals(target.requests.length, before);
    },
  );

  await t.step('redirect: "error" gives a network error', async () => {
    const before = target.requests.length;
    const [data, error, meta] = await grab("GET /away/:status", {
      params: { status: STATUS_CODE.MovedPermanently },
      redirect: "error",
    });
    assertStrictEquals(data, null);
    assert(error instanceof GrabTransportError);
    assertEquals(error.kind, "network");
    assertEquals(meta, { statusCode: 0 });
    assertStrictEquals(target.requests.length, before);
  });

  await t.step(
    'a factory redirect: "manual" applies to every grab',
    async () => {
      const manual = createGrab(origin.url, {
        redirect: "manual",
        retry: NO_RETRY,
        timeout: 10_000,
      });
      const [, error] = await manual("GET /here");
      assert(error instanceof GrabError);
      assertEquals(error.statusCode, STATUS_CODE.Found);
      assertEquals(error.headers.get("location"), "/landing");
    },
  );
});

Deno.test("createGrab() names the URL whose body failed after a redirect", async (t) => {
  await using target = startServer({
    "/not-json": () => new Response("<html>", { status: 200 }),
    "/big": () => json({ padding: "x".repeat(1024) }),
    "/lines": () => new Response('{"a":1}\nnot json\n'),
    "/fails-schema": () => json({ a: 1 }),
  });
  await using origin = startServer((_request, seen) =>
    new Response(null, {
      status: STATUS_CODE.TemporaryRedirect,
      headers: { location: `${target.url}${seen.url.pathname}?sig=SECRET` },
    })
  );
  const grab = createGrab(origin.url, { retry: NO_RETRY, timeout: 10_000 });
  const refuse = {
    "~standard": {
      version: 1 as const,
      vendor: "test",
      validate: () => ({ issues: [{ message: "refused" }] }),
    },
  };
  const cases = [
    ["parse", "/not-json", {}],
    ["too-large", "/big", { maxBodyBytes: 64 }],
    ["schema", "/fails-schema", { schema: refuse }],
  ] as const;
  for (const [kind, path, options] of cases) {
    for (const counted of [false, true]) {
      await t.step(
        `kind "${kind}"${counted ? ", upload counted" : ""}`,
        async () => {
          const [, error] = await grab(`PUT ${path}` as "PUT /", {
            body: "hello",
            ...options,
            ...(counted ? { onUploadProgress: () => {} } : {}),
          });
          assert(error instanceof GrabTransportError);
          assertEquals([error.kind, error.url], [kind, `${target.url}${path}`]);
          assert(error.message.endsWith(`: PUT ${target.url}${path}`));
        },
      );
    }
  }

  for (const counted of [false, true]) {
    await t.step(
      `a live body's failure${counted ? ", upload counted" : ""}`,
      async () => {
        const [stream, error] = await grab("PUT /lines", {
          body: "hello",
          responseType: "ndjson",
          ...(counted ? { onUploadProgress: () => {} } : {}),
        });
        assertStrictEquals(error, null);
        for await (const _value of stream!) {
          // Read to the line that fails.
        }
        assertEquals(stream!.error?.kind, "parse");
        assertEquals(stream!.error?.url, `${target.url}/lines`);
      },
    );
  }
});

Deno.test('createGrab() with redirect: "manual" in a browser', async () => {
  // A browser's fetch answers a redirect under "manual" with an opaque
  // redirect: status 0, no headers, no body.
  const opaqueRedirect = () =>
    Promise.resolve(
      Object.defineProperties(new Response(null), {
        status: { value: 0 },
        type: { value: "opaqueredirect" },
      }),
    );
  const grab = createGrab("https://api.example.com", {
    fetch: opaqueRedirect,
    redirect: "manual",
    retry: NO_RETRY,
  });
  const [data, error, meta] = await grab("GET /moved");
  assertStrictEquals(data, null);
  assert(error instanceof GrabError);
  assertEquals([error.statusCode, error.body], [0, null]);
  assertEquals([...error.headers], []);
  assertEquals(
    error.message,
    '0 (the server redirected, which a browser hides under redirect "manual": ' +
      "its status and Location cannot be read; grab the final URL, or use " +
      'redirect "follow")' +
      ": GET https://api.example.com/moved",
  );
  assertEquals(meta, {});
});

Deno.test("a status 0 GrabError says what the response's type says", async () => {
  // A no-cors request (a hook's or a custom fetch's mode) under
  // redirect "manual" that was not redirected, and a custom fetch that asks
  // for "manual" itself: the browser's response says which it hid.
  const hidden = (type: ResponseType) => () =>
    Promise.resolve(
      Object.defineProperties(new Response(null), {
        status: { value: 0 },
        type: { value: type },
      }),
    );
  const cases = [
    ["opaque", "manual", "an opaque response, as a no-cors request gets"],
    ["opaqueredirect", undefined, "the server redirected"],
    // A type that says nothing: the redirect mode tells, as before.
    ["default", "manual", "the server redirected"],
    ["default", undefined, "an opaque response, as a no-cors request gets"],
  ] as const;
  for (const [type, redirect, said] of cases) {
    const grab = createGrab("https://api.example.com", {
      fetch: hidden(type),
      redirect,
      retry: NO_RETRY,
    });
    const [, error] = await grab("GET /users/1");
    assert(error instanceof GrabError);
    assertEquals(error.statusCode, 0);
    assert(error.message.startsWith(`0 (${said}`), `${type}: ${error.message}`);
  }
});

Deno.test("createGrab() given an opaque response in a browser", async () => {
  // A no-cors request's answer: status 0, its headers and body hidden.
  const opaque = () =>
    Promise.resolve(
      Object.defineProperties(new Response(null), {
        status: { value: 0 },
        type: { value: "opaque" },
      }),
    );
  const grab = createGrab("https://api.example.com", {
    fetch: opaque,
    retry: NO_RETRY,
  });
  const [data, error, meta] = await grab("GET /users/1");
  assertStrictEquals(data, null);
  assert(error instanceof GrabError);
  assertEquals([error.statusCode, error.body], [0, null]);
  assertEquals(
    error.message,
    "0 (an opaque response, as a no-cors request gets, which a browser " +
      "hides: its status, headers and body cannot be read; send the request " +
      "in cors mode): GET https://api.example.com/users/1",
  );
  assertEquals(meta, {});
});
