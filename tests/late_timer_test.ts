/**
 * A timeout whose time has come, while the program held the event loop so
 * that its timer has not run yet, or once it has: what grab would start next
 * (a hook of a chain, a retry's hook, a response's hook) is not started, and
 * a response whose hook held the loop past it is no success.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import createGrab from "../mod.ts";
import { startServer } from "./_server.ts";

/** Holds the event loop for `ms`, as a synchronous computation would. */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // The program's own work.
  }
}

const TIMEOUT = 50;

Deno.test("a beforeRequest hook chained after one that held the loop past the timeout is not called, nor the request sent", async () => {
  await using server = startServer(
    () => {
      return Response.json({ ok: true });
    },
  );
  let called = 0;
  const api = createGrab(server.url, {
    timeout: TIMEOUT,
    retry: 0,
    hooks: { beforeRequest: () => busy(TIMEOUT + 50) },
  });
  const [, error] = await api("POST /x", {
    body: { a: 1 },
    hooks: {
      beforeRequest: () => {
        called++;
      },
    },
  });
  assertEquals((error as { kind: string }).kind, "timeout");
  assertEquals(called, 0);
  assertEquals(server.requests.length, 0);
});

Deno.test("an afterResponse hook chained after one that held the loop past the timeout is not called", async () => {
  await using server = startServer(
    () => Response.json({ ok: true }),
  );
  let called = 0;
  const api = createGrab(server.url, {
    timeout: TIMEOUT,
    retry: 0,
    hooks: { afterResponse: () => busy(TIMEOUT + 50) },
  });
  const [, error] = await api("GET /x", {
    hooks: {
      afterResponse: () => {
        called++;
      },
    },
  });
  assertEquals((error as { kind: string }).kind, "timeout");
  assertEquals(called, 0);
});

Deno.test("a beforeRetry hook chained after one that held the loop past the timeout is not called", async () => {
  await using server = startServer(
    () => {
      return new Response(null, { status: 503 });
    },
  );
  let called = 0;
  const api = createGrab(server.url, {
    timeout: 200,
    retry: { limit: 1, backoff: () => 0 },
    hooks: { beforeRetry: () => busy(250) },
  });
  const [, error] = await api("GET /x", {
    hooks: {
      beforeRetry: () => {
        called++;
      },
    },
  });
  assertEquals((error as { kind: string }).kind, "timeout");
  assertEquals(called, 0);
  // One, or none when a busy machine took the time before it was served.
  assert(server.requests.length <= 1, `${server.requests.length} requests`);
});

Deno.test("a retryable status whose body is let go of past the timeout calls no beforeRetry hook", async () => {
  let stalled: ReturnType<typeof setTimeout> | undefined;
  await using server = startServer(
    () => {
      // A short body that says its length, whose end comes after the timeout.
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("{}"));
          stalled = setTimeout(() => {
            controller.enqueue(new TextEncoder().encode("        "));
            controller.close();
          }, TIMEOUT * 4);
        },
        cancel: () => clearTimeout(stalled),
      });
      return new Response(body, {
        status: 503,
        headers: { "content-length": "10" },
      });
    },
  );
  let called = 0;
  const api = createGrab(server.url, {
    timeout: TIMEOUT,
    retry: { limit: 1, backoff: () => 0 },
    hooks: {
      beforeRetry: () => {
        called++;
      },
    },
  });
  const [, error] = await api("GET /x");
  clearTimeout(stalled);
  assertEquals((error as { kind: string }).kind, "timeout");
  assertEquals(called, 0);
  // One, or none when a busy machine took the time before it was served.
  assert(server.requests.length <= 1, `${server.requests.length} requests`);
});

Deno.test("a response whose afterResponse hook, alone or the last, held the loop past the timeout is no success", async () => {
  await using server = startServer(
    () => Response.json({ ok: true }),
  );
  const late = () => busy(TIMEOUT + 50);
  const alone = createGrab(server.url, {
    timeout: TIMEOUT,
    retry: 0,
  });
  const chained = createGrab(server.url, {
    timeout: TIMEOUT,
    retry: 0,
    hooks: { afterResponse: () => {} },
  });
  for (const api of [alone, chained]) {
    const [data, error] = await api("GET /x", {
      hooks: { afterResponse: late },
    });
    assertEquals(data, null);
    assertEquals((error as { kind: string }).kind, "timeout");
  }
});

Deno.test("an afterResponse hook is not called once a custom fetch held the loop past the timeout", async () => {
  await using server = startServer(
    () => Response.json({ ok: true }),
  );
  let called = 0;
  const api = createGrab(server.url, {
    timeout: TIMEOUT,
    retry: 0,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      busy(TIMEOUT + 50);
      return response;
    },
  });
  const [, error] = await api("GET /x", {
    hooks: {
      afterResponse: () => {
        called++;
      },
    },
  });
  assertEquals((error as { kind: string }).kind, "timeout");
  assertEquals(called, 0);
});

Deno.test("a counted upload's redirect is not followed once a custom fetch held the loop past the timeout", async () => {
  await using server = startServer({
    "/from": () =>
      new Response(null, { status: 307, headers: { location: "/to" } }),
    "/to": () => Response.json({ ok: true }),
  });
  const api = createGrab(server.url, {
    timeout: TIMEOUT,
    retry: 0,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      if (response.status === 307) busy(TIMEOUT + 50);
      return response;
    },
  });
  const [, error] = await api("POST /from", {
    body: "abc",
    onUploadProgress: () => {},
  });
  assertEquals((error as { kind: string }).kind, "timeout");
  // "/from" was asked, unless a busy machine took the time before it was.
  const asked = server.requests.map((seen) => seen.url.pathname);
  assert(!asked.includes("/to"), `${asked}`);
});

Deno.test("an upload whose progress callback held the loop past the timeout is sent and told no further", async () => {
  await using server = startServer(
    () => Response.json({ ok: true }),
  );
  const api = createGrab(server.url, { timeout: TIMEOUT, retry: 0 });
  const chunk = new Uint8Array(64 * 1024);
  const bodies = {
    bytes: () => new Uint8Array(16 * chunk.byteLength).buffer,
    stream: () =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (let i = 0; i < 16; i++) controller.enqueue(chunk.slice());
          controller.close();
        },
      }),
  };
  for (const [name, body] of Object.entries(bodies)) {
    const told: number[] = [];
    const [, error] = await api("POST /x", {
      body: body(),
      onUploadProgress: ({ loaded }) => {
        told.push(loaded);
        if (told.length === 2) busy(TIMEOUT + 50);
      },
    });
    assertEquals((error as { kind: string }).kind, "timeout", name);
    // Fewer when a busy machine took the time before the first piece.
    assert(told.length <= 2, `${name}: ${told}`);
  }
});

Deno.test("a response whose upload's end, told at its head, held the loop past the timeout is no success", async () => {
  await using server = startServer(
    () => Response.json({ ok: true }),
  );
  // A beforeRequest hook sends a counted body whole: its end is told when
  // the response head arrives.
  const api = createGrab(server.url, {
    timeout: TIMEOUT,
    retry: 0,
    hooks: { beforeRequest: () => {} },
  });
  for (const responseType of ["json", "stream"] as const) {
    const [data, error] = await api("POST /x", {
      body: "abc",
      responseType,
      onUploadProgress: ({ loaded }) => {
        if (loaded === 3) busy(TIMEOUT + 50);
      },
    });
    if (data instanceof ReadableStream) await data.cancel();
    assertEquals(data, null, responseType);
    assertEquals((error as { kind: string }).kind, "timeout", responseType);
  }
});
