/**
 * A URL longer than the runtimes' `fetch` all send is refused as the
 * caller's value, and a long URL is named cut in a message (the error's
 * `url` keeps it whole).
 *
 * @module
 */

import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertRejects,
  assertStringIncludes,
} from "@std/assert";
import createGrab, {
  type GrabCallOptions,
  GrabError,
  GrabTransportError,
  GrabValidationError,
  paginate,
} from "../mod.ts";
import { counted } from "./_counted_retry.ts";
import { closedPort, startServer } from "./_server.ts";

Deno.test("a URL longer than fetch sends is refused before any request, and named cut", async (t) => {
  await using server = startServer(() => Response.json({ sent: true }));
  const grab = createGrab(server.url);
  const long = "a".repeat(70_000);
  await t.step("by its query", async () => {
    const error = await assertRejects(
      () => grab("GET /items", { query: { q: long } }),
      GrabValidationError,
    );
    assertStringIncludes(error.issues[0]?.message ?? "", "65,534");
    assert(error.message.length < 3_000, `${error.message.length}`);
  });
  await t.step("by a path parameter", async () => {
    const error = await assertRejects(
      () => grab("GET /items/:id", { params: { id: long } }),
      GrabValidationError,
    );
    assertStringIncludes(error.issues[0]?.message ?? "", "65,534");
    assert(error.message.length < 3_000, `${error.message.length}`);
    assertStringIncludes(error.message, `GET ${server.url}/items/:id:`);
  });
  await t.step("by the endpoint itself, named cut", async () => {
    const error = await assertRejects(
      () => grab(`GET /${long}`),
      GrabValidationError,
    );
    assertStringIncludes(error.issues[0]?.message ?? "", "65,534");
    const length = `${server.url}/${long}`.length.toLocaleString("en-US");
    assertStringIncludes(error.message, `… (${length} characters)`);
    assert(error.message.length < 3_000, `${error.message.length}`);
  });
  await t.step("one of 65,534 characters is sent", async () => {
    // The server refuses a request line that long, with a 400: it was sent.
    const fill = 65_534 - `${server.url}/items?q=`.length;
    const [, error] = await grab("GET /items", {
      query: { q: "a".repeat(fill) },
      retry: 0,
    });
    assertInstanceOf(error, GrabError);
    assertEquals(error.statusCode, 400);
  });
  assertEquals(server.requests.length, 0);
});

Deno.test("a transport error names a long URL cut", async () => {
  // A path of 10,000 characters to a port nothing listens on.
  const base = `http://127.0.0.1:${closedPort()}`;
  const grab = createGrab(base, { retry: 0 });
  const [, error] = await grab("GET /:id", {
    params: { id: "b".repeat(10_000) },
  });
  assertInstanceOf(error, GrabTransportError);
  assert(error.message.length < 3_000, `${error.message.length}`);
  assertStringIncludes(error.message, "characters)");
  assertEquals(error.url, `${base}/${"b".repeat(10_000)}`);
});

Deno.test("paginate fails on a next link longer than fetch sends, after the page that gave it", async () => {
  const link = `</items?cursor=${"c".repeat(70_000)}>; rel="next"`;
  await using server = startServer(() =>
    Response.json([1], { headers: { link } })
  );
  const grab = createGrab(server.url);
  const pages: unknown[] = [];
  const error = await assertRejects(async () => {
    for await (const [page] of paginate(grab, "GET /items")) pages.push(page);
  }, GrabTransportError);
  assertEquals(pages, [[1]]);
  assertEquals(error.kind, "parse");
  assertStringIncludes(error.message, "more than fetch sends");
  assertEquals(server.requests.length, 1);
});

Deno.test("a URL fetch refuses after a hook or a redirect made it long fails at once, saying so", async (t) => {
  const long = "a".repeat(70_000);
  await using server = startServer((request) =>
    new URL(request.url).pathname === "/redirect"
      ? new Response(null, { status: 302, headers: { location: `/${long}` } })
      : Response.json({ sent: true })
  );
  const cases: [string, GrabCallOptions][] = [
    ["a redirect's Location", {}],
    ["a beforeRequest hook", {
      hooks: {
        beforeRequest: (request) =>
          new Request(`${request.url}?${long}`, request),
      },
    }],
  ];
  for (const [name, options] of cases) {
    await t.step(name, async () => {
      const { retry, made } = counted();
      const grab = createGrab(server.url, { retry });
      const [, error] = await grab("GET /redirect", options);
      assertInstanceOf(error, GrabTransportError);
      assertEquals(error.kind, "network");
      assertStringIncludes(error.message, "fetch refused its URL");
      assertEquals(
        made(),
        0,
        "retried, though fetch refuses the URL each time",
      );
    });
  }
});

Deno.test("a redirect to a URL too long fails at once, saying it is too long", async () => {
  const { error, calls } = await redirectedTo("/" + "b".repeat(70_000));
  assertInstanceOf(error, GrabTransportError);
  assertStringIncludes(error.message, "65,534 characters at most");
  assertEquals(calls, 1);
});

Deno.test("a redirect to a Location that is no URL fails at once, saying so, not that it is too long", async () => {
  for (
    const location of [
      "http://[bad",
      "http://a b/",
      "http://999.1.1.1/",
      // A hostile server's words, which Deno's message quotes as they are.
      "http://a b/Requests to port 6000 are blocked",
      "http://a b/proxy authentication required",
    ]
  ) {
    const { error, calls } = await redirectedTo(location);
    assertInstanceOf(error, GrabTransportError);
    assertStringIncludes(error.message, "Location");
    assert(!error.message.includes("65,534"), error.message);
    assertEquals(calls, 1);
  }
});

/** A grab of a server that redirects every request to `location`. */
async function redirectedTo(location: string) {
  let calls = 0;
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => {
      calls++;
      return new Response(null, { status: 302, headers: { location } });
    },
  );
  const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
    retry: { limit: 2, backoff: () => 0 },
  });
  const [, error] = await grab("GET /x");
  return { error, calls };
}
