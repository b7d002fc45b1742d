/**
 * Promises that earlier mutation runs left unheld: each test here fails
 * when one line of the code it names is changed.
 *
 * @module
 */

import { assertEquals, assertInstanceOf, assertMatch } from "@std/assert";
import createGrab, {
  GrabError,
  GrabTransportError,
  GrabValidationError,
  paginate,
} from "../mod.ts";
import { startServer } from "./_server.ts";
import { BODY_WAYS, runChild, settles } from "./_bounds.ts";
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

Deno.test("the first JSON:API grab counts the module's load against its timeout, and names the timeout given", async (t) => {
  // In a child: the JSON:API module loads on a process's first such grab,
  // and the caller keeps the loop busy meanwhile (src/codec_wait.ts).
  const run = (busyMs: number, timeout: number, answers: boolean) =>
    runChild<{ kind: string | null; message: string | null }>(
      "./_codec_busy_child.ts",
      ["--allow-net=127.0.0.1", "--allow-read=."],
      { args: [String(busyMs), String(timeout), answers ? "1" : "0"] },
    );
  await t.step(
    "a load that outlasts the timeout times the grab out",
    async () => {
      // The server answers at once: only the time the load took fails it.
      const { kind, message } = await run(300, 100, true);
      assertEquals(kind, "timeout");
      assertMatch(message ?? "", /the timeout \(100 ms\) passed/);
    },
  );
  await t.step(
    "a load that took part of it: the message names the whole",
    async () => {
      const { kind, message } = await run(300, 1_000, false);
      assertEquals(kind, "timeout");
      assertMatch(message ?? "", /the timeout \(1000 ms\) passed/);
    },
  );
});

Deno.test("a stream body is unlocked when a beforeRequest hook rejects with a GrabValidationError", async (t) => {
  // The hook's own grab was refused, after grab's pipe of the source was
  // put in place: the grab rejects with that error, and the caller's
  // stream is not left locked to a pipe no one reads (src/source_pipe.ts).
  await using server = startServer(() => new Response("unused"));
  const refused = async () => {
    throw await createGrab(server.url)("GET /items/:id" as "GET /items/1")
      .catch((error: unknown) => error);
  };
  for (const [way, options] of BODY_WAYS) {
    await t.step(way, async () => {
      const grab = createGrab(server.url, {
        retry: 0,
        hooks: { beforeRequest: refused },
      });
      const source = watchedSource();
      const error = await settles(
        grab("POST /x", { ...options, body: source.body }).catch((
          error: unknown,
        ) => error),
      );
      assertInstanceOf(error, GrabValidationError);
      assertEquals(source.body.locked, false);
      // Let go of here, whether or not the grab cancelled it.
      await source.body.cancel();
    });
  }
});

Deno.test("a stream body that never ends, answered with JSON before it is read, settles the grab and is cancelled", async () => {
  // A stream body takes the attempt loop, which lets go of the rest once
  // the answer is read (src/plain_attempt.ts); `fetch` would send on to
  // the end of a source that has none.
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => Response.json({ ok: 1 }),
  );
  const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
    retry: 0,
  });
  const source = watchedSource();
  const [data, error] = await settles(grab("POST /x", { body: source.body }));
  assertEquals(error, null);
  assertEquals(data, { ok: 1 });
  assertEquals(source.body.locked, false);
  await settles(source.cancelled, "the source's cancel");
});
