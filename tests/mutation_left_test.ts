/**
 * Promises that earlier mutation runs left unheld: each test here fails
 * when one line of the code it names is changed.
 *
 * @module
 */

import { assertEquals, assertInstanceOf, assertMatch } from "@std/assert";
import createGrab, { GrabError, GrabTransportError, paginate } from "../mod.ts";
import { startServer } from "./_server.ts";
import { settles } from "./_bounds.ts";
import { watchedSource } from "./_streams.ts";

Deno.test("paginate() follows a Link whose parameters have stray text between them", async () => {
  // `x` and `y` are no parameters: they are skipped, and the link after the
  // comma is still read (src/link_header.ts).
  await using server = startServer((request) => {
    const page = Number(new URL(request.url).searchParams.get("page") ?? 1);
    const headers = new Headers();
    if (page < 3) {
      headers.set(
        "link",
        `</items?page=${
          page + 1
        }>; rel="next" x; y, </items?page=1>; rel="prev"`,
      );
    }
    return Response.json([page], { headers });
  });
  const grab = createGrab(server.url);
  const pages: unknown[] = [];
  for await (const [data] of paginate(grab, "GET /items")) {
    pages.push(data);
    if (pages.length > 5) break;
  }
  assertEquals(pages, [[1], [2], [3]]);
});

Deno.test("a custom fetch's response read in part and then let go is refused and cancelled, not read from the middle", async (t) => {
  // The first chunk is read and the reader released: the body is used but
  // not locked, and is no whole answer (src/platform_response.ts); its
  // connection is let go (the sanitizers tell), not left open.
  // A body of many chunks: the first read takes only some of it.
  await using server = startServer(() => new Response("x".repeat(1 << 20)));
  const grab = createGrab(server.url, {
    retry: 0,
    fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
      const response = await fetch(input, init);
      const reader = response.body!.getReader();
      await reader.read();
      reader.releaseLock();
      return response;
    },
  });
  for (const responseType of ["text", "stream"] as const) {
    await t.step(responseType, async () => {
      const [data, error] = await grab("GET /x", { responseType });
      assertEquals(data, null);
      assertInstanceOf(error, GrabTransportError);
      assertMatch(error.message, /body is already used or locked/);
    });
  }
});

Deno.test("a stream body of a grab answered with an error is cancelled and let go", async () => {
  // The server answers before reading the body: grab's pipe of the
  // source must be kept, for the failure to reach it (src/call.ts).
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("no", { status: 500 }),
  );
  const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
    retry: 0,
    timeout: 10_000,
  });
  // A source that never ends.
  const source = watchedSource();
  const [, error] = await settles(grab("POST /x", { body: source.body }));
  assertInstanceOf(error, GrabError);
  assertEquals(error.statusCode, 500);
  assertEquals(source.body.locked, false);
  await settles(source.cancelled, "the source's cancel");
});
