/**
 * Promises of hooks, errors, `orThrow`, the guards and upload progress that
 * no other test held: each test here fails when one line of the module it
 * names is changed (a comparison flipped, a condition negated), and passes
 * as the code is.
 *
 * @module
 */

import { assert, assertEquals, assertRejects } from "@std/assert";
import createGrab, { orThrow } from "../mod.ts";
import { json, startServer } from "./_server.ts";

Deno.test("Hooks.afterResponse: the request it gets has its body unsent, and the server got a Content-Length", async () => {
  await using server = startServer(() => json({ ok: true }));
  const seen: { used: boolean; text: string }[] = [];
  const grab = createGrab(server.url, {
    hooks: {
      async afterResponse(request) {
        seen.push({ used: request.bodyUsed, text: await request.text() });
      },
    },
  });
  const [data, error] = await grab("POST /items", { body: { a: 1 } });
  assertEquals(error, null);
  assertEquals(data, { ok: true });
  assertEquals(seen, [{ used: false, text: '{"a":1}' }]);
  assertEquals(server.requests[0]?.headers.get("content-length"), "7");
  assertEquals(server.requests[0]?.body, '{"a":1}');
});

Deno.test("Hooks.afterResponse: the request it gets carries what beforeRequest set", async () => {
  await using server = startServer(() => json({ ok: true }));
  const seen: (string | null)[] = [];
  const grab = createGrab(server.url, {
    hooks: {
      beforeRequest(request) {
        request.headers.set("x-signature", "signed");
      },
      async afterResponse(request) {
        seen.push(request.headers.get("x-signature"));
        seen.push(await request.text());
      },
    },
  });
  const [, error] = await grab("POST /items", { body: { a: 1 } });
  assertEquals(error, null);
  assertEquals(seen, ["signed", '{"a":1}']);
  assertEquals(server.requests[0]?.headers.get("x-signature"), "signed");
});

Deno.test("GrabError: a URL of exactly 2000 characters is named whole, one longer is cut", async () => {
  await using server = startServer(() =>
    json({ error: "gone" }, { status: 404 })
  );
  const grab = createGrab(server.url);
  for (const length of [2_000, 2_001]) {
    const segment = "a".repeat(length - server.url.length - 1);
    const path = `/${segment}`;
    const [, error] = await grab(`GET /${segment}`);
    assert(error !== null);
    assertEquals(error.url, server.url + path);
    assertEquals(error.url.length, length);
    const named = error.message.slice(error.message.indexOf("GET ") + 4);
    assertEquals(
      named,
      length === 2_000
        ? error.url
        : `${error.url.slice(0, 2_000)}… (2,001 characters)`,
    );
  }
});

Deno.test("GrabError: a detail cut at 2000 characters never keeps half of U+10FFFF", async () => {
  // U+10FFFF is the pair \udbff\udfff: the last high surrogate there is.
  const detail = "x".repeat(1_999) + "\u{10FFFF}" + "y".repeat(10);
  await using server = startServer(() =>
    json({ errors: [{ status: "422", detail }] }, {
      status: 422,
      headers: { "content-type": "application/vnd.api+json" },
    })
  );
  const grab = createGrab(server.url, { format: "json-api" });
  const [, error] = await grab("GET /items");
  assert(error !== null);
  assertEquals(error.message, `${"x".repeat(1_999)}… (cut at 1999 characters)`);
});

Deno.test("orThrow: an array of another length says how many items, in the singular for one", async () => {
  await using server = startServer(() => json({ ok: true }));
  const grab = createGrab(server.url);
  const cases: [Promise<unknown[]>, string][] = [
    // Given what orThrow resolved to, a [data, meta] pair.
    [orThrow(grab("GET /ok")), "an array of 2 items"],
    [grab("GET /ok").then(([data]) => [data]), "an array of 1 item"],
    [grab("GET /ok").then(() => []), "an array of 0 items"],
  ];
  for (const [given, what] of cases) {
    await assertRejects(
      // @ts-expect-error: not a grab's [data, error, meta]
      () => orThrow(given),
      TypeError,
      `Cannot use orThrow on ${what}: it takes the promise a grab returns, which resolves to [data, error, meta]`,
    );
  }
  assertEquals(server.requests.length, 3);
});

Deno.test("GrabError: a credential part of exactly 8 characters is kept out of the message, one of 7 is left", async () => {
  // Eight characters is the shortest part taken for a secret: a shorter one
  // would blank common words.
  await using server = startServer((request) => {
    const token = request.headers.get("authorization")!.split(" ")[1];
    return json({
      errors: [{ status: "401", detail: `token ${token} expired` }],
    }, {
      status: 401,
      headers: { "content-type": "application/vnd.api+json" },
    });
  });
  const grab = createGrab(server.url, { format: "json-api", retry: 0 });
  const messages: string[] = [];
  for (const token of ["a1b2c3d4", "a1b2c3d"]) {
    const [, error] = await grab("GET /me", {
      headers: { authorization: `Bearer ${token}` },
    });
    assert(error !== null);
    messages.push(error.message);
  }
  assertEquals(messages, ["token … expired", "token a1b2c3d expired"]);
});
