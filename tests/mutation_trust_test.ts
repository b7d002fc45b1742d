/**
 * Promises about paths, redirects and sizes that no other test held: each
 * test here fails when one line of the code that keeps the promise is
 * changed (a comparison flipped, a statement dropped).
 *
 * @module
 */

import { assertEquals, assertStringIncludes } from "@std/assert";
import createGrab from "../mod.ts";
import { json, startServer } from "./_server.ts";
import { assertOk, assertValidation, settles } from "./_bounds.ts";

Deno.test("a counted upload that a redirect turns into a GET sends a GET without the body, as fetch does", async (t) => {
  await using fixture = startServer({
    "/moved/:status": (_request, seen) =>
      new Response(null, {
        status: Number(seen.url.pathname.split("/").at(-1)),
        headers: { location: "/landed" },
      }),
    "/landed": () => json({ landed: true }),
  });
  const grab = createGrab(fixture.url, { retry: 0, timeout: 10_000 });
  const cases: ["POST" | "PUT" | "DELETE", number, string][] = [
    ["POST", 303, "GET"],
    ["PUT", 303, "GET"],
    ["DELETE", 303, "GET"],
    ["POST", 302, "GET"],
    ["POST", 301, "GET"],
    ["PUT", 302, "PUT"],
    ["POST", 307, "POST"],
  ];
  for (const [method, status, then] of cases) {
    await t.step(
      `${method} and a ${status}: ${then} at the next hop`,
      async () => {
        const seen = async (counted: boolean) => {
          const at = fixture.requests.length;
          const body = "hello";
          const endpoint = `${method} /moved/${status}` as "POST /x";
          const [data, error] = await grab(
            endpoint,
            counted ? { body, onUploadProgress: () => {} } : { body },
          );
          assertEquals(error, null);
          assertEquals(data, { landed: true });
          return fixture.requests.slice(at).map((r) =>
            `${r.method} ${r.url.pathname} ${JSON.stringify(r.body)} ${
              r.headers.get("content-type")
            }`
          );
        };
        const plain = await seen(false);
        const landed = then === "GET"
          ? `GET /landed "" null`
          : `${then} /landed "hello" text/plain;charset=UTF-8`;
        assertEquals(plain.at(-1), landed);
        assertEquals(await seen(true), plain);
      },
    );
  }
});

Deno.test("a lone colon segment is no path parameter: it is sent as written", async () => {
  await using server = startServer(() => json({ ok: true }));
  const grab = createGrab(`${server.url}/v1`, { retry: 0, timeout: 10_000 });
  // The types take no parameter from it either (`PathParamNames`).
  assertOk(await settles(grab("GET /clock/:/now")));
  assertOk(await settles(grab("GET /clock/:")));
  assertOk(await settles(grab(`GET ${server.url}/:/x`)));
  assertEquals(server.requests.map((r) => r.url.pathname), [
    "/v1/clock/:/now",
    "/v1/clock/:",
    "/:/x",
  ]);
});

Deno.test("a query nests 32 levels deep at most, as the README says", async (t) => {
  await using server = startServer(() => json({ ok: true }));
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  /** `{ a: { a: … 1 } }` written as a key with `brackets` brackets. */
  const nested = (brackets: number) => {
    let query: Record<string, unknown> = { a: 1 };
    for (let level = 0; level < brackets; level++) query = { a: query };
    return query;
  };
  const key = (brackets: number) => `a${"[a]".repeat(brackets)}`;
  await t.step("32 levels go out", async () => {
    assertOk(await settles(grab("GET /deep", { query: nested(32) })));
    assertOk(await settles(grab("GET /deep", { query: { [key(32)]: 1 } })));
    const names = server.requests.map((r) => [...r.url.searchParams.keys()]);
    assertEquals(names, [[key(32)], [key(32)]]);
  });
  await t.step("33 levels are refused before any request", async () => {
    const before = server.requests.length;
    for (const query of [nested(33), { [key(33)]: 1 }]) {
      const error = await assertValidation(() => grab("GET /deep", { query }));
      assertStringIncludes(error.message, "nested more than 32 levels deep");
    }
    assertEquals(server.requests.length, before);
  });
});

Deno.test("a path parameter that is NaN or an infinite number is refused before any request", async (t) => {
  await using server = startServer(() => json({ ok: true }));
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  for (const id of [NaN, Infinity, -Infinity]) {
    await t.step(`${id} is a GrabValidationError`, async () => {
      const error = await assertValidation(() =>
        grab("GET /users/:id", { params: { id } })
      );
      assertEquals(error.issues, [{
        path: "",
        message: `Cannot fill path parameter "id": value is ${id}`,
      }]);
    });
  }
  assertEquals(server.requests.length, 0, "the server saw no request");
  await t.step("a finite number goes out as its text", async () => {
    assertOk(await settles(grab("GET /users/:id", { params: { id: -0.5 } })));
    assertEquals(server.requests.at(-1)!.url.pathname, "/users/-0.5");
  });
});

Deno.test("a 200 with no body at all is empty bytes, not null, as Response.bytes() gives", async () => {
  await using server = startServer(() => json({ ok: true }));
  // A server's empty body is still a stream; only a `fetch` of the
  // caller's (a cache, a wrapper) gives a response whose body is null.
  const grab = createGrab(server.url, {
    retry: 0,
    timeout: 10_000,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      await response.body?.cancel();
      return new Response(null, { status: 200, headers: response.headers });
    },
  });
  const expected = await new Response(null).bytes();
  for (const options of [{}, { onDownloadProgress: () => {} }]) {
    const [data, error] = await grab("GET /empty", {
      responseType: "bytes",
      ...options,
    });
    assertEquals(error, null);
    assertEquals(data, expected);
  }
  assertEquals(server.requests.length, 2);
});
