/**
 * What a failed `fetch` says in a browser, where CORS and a stream body
 * over HTTP/1.1 fail as the network does (a bare `TypeError`): the message
 * names them. A real refused connection stands for the failure; the user
 * agent is a browser's for the steps that need one. The matrix runs the
 * same in Chromium, against a server that sends no CORS headers.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import createGrab, { isGrabTransportError } from "../mod.ts";
import { closedPort, json, startServer } from "./_server.ts";

const NO_RETRY = { limit: 0, backoff: () => 0 };

/**
 * Runs `step` with a browser's user agent on `navigator`, and with the
 * globals a page has: no `Deno` and no `process` (Deno's own taken off), or
 * `host`'s `process`; with `"Deno"`, Deno's own (a DOM Deno hosts).
 */
async function asBrowser(
  step: () => Promise<void>,
  host?: { versions: Record<string, string> } | "Deno",
  userAgent = "Mozilla/5.0 (a browser)",
): Promise<void> {
  const agent = Object.getOwnPropertyDescriptor(
    Navigator.prototype,
    "userAgent",
  );
  const globals = ["process", "Deno"].map((name) =>
    [name, Object.getOwnPropertyDescriptor(globalThis, name)!] as const
  );
  Object.defineProperty(navigator, "userAgent", {
    value: userAgent,
    configurable: true,
  });
  if (host !== "Deno") {
    Object.defineProperty(globalThis, "process", {
      value: host,
      configurable: true,
    });
    Object.defineProperty(globalThis, "Deno", {
      value: undefined,
      configurable: true,
    });
  }
  try {
    await step();
  } finally {
    for (const [name, own] of globals) {
      Object.defineProperty(globalThis, name, own);
    }
    delete (navigator as unknown as Record<string, unknown>).userAgent;
    assertEquals(
      Object.getOwnPropertyDescriptor(Navigator.prototype, "userAgent"),
      agent,
    );
  }
}

function bytes(): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new Uint8Array([1, 2, 3]));
      controller.close();
    },
  });
}

Deno.test("a failed fetch in a browser", async (t) => {
  const origin = `http://127.0.0.1:${closedPort()}`;
  const grab = createGrab(origin, { retry: NO_RETRY });

  // What Deno says of the port nothing listens on, not a browser's CORS.
  const refused =
    "the network failed (the server refused the connection: nothing listens on that host and port)";

  await t.step("elsewhere the message is what the runtime says", async () => {
    const [, error] = await grab("GET /users/1");
    assertEquals(
      error?.message,
      `Cannot complete the request: ${refused}: GET ${origin}/users/1`,
    );
  });

  await t.step("names CORS for another origin", () =>
    asBrowser(async () => {
      for (const credentials of [undefined, "include"] as const) {
        const [, error] = await grab("GET /users/1", {
          credentials,
          hooks: credentials ? { beforeRequest: () => {} } : undefined,
        });
        assert(isGrabTransportError(error), String(error));
        assertEquals(error.kind, "network");
        const message = String(error?.message);
        assertStringIncludes(
          message,
          `the network failed (or the browser blocked it by CORS: ${origin} ` +
            "must answer with Access-Control-Allow-Origin",
        );
        assert(message.endsWith(`: GET ${origin}/users/1`), message);
        assertEquals(
          message.includes("Access-Control-Allow-Credentials: true"),
          credentials === "include",
          message,
        );
      }
    }));

  await t.step("names HTTP/1.1 for a stream body", () =>
    asBrowser(async () => {
      for (const onUploadProgress of [undefined, () => {}]) {
        const [, error] = await grab("POST /upload", {
          body: bytes(),
          onUploadProgress,
        });
        assert(isGrabTransportError(error), String(error));
        assertEquals(error.kind, "network");
        assertStringIncludes(
          String(error?.message),
          "the network failed (or the browser refused the stream body, which " +
            "it sends only over HTTP/2 or HTTP/3, never over HTTP/1.1: send a " +
            `Blob or bytes): POST ${origin}/upload`,
        );
      }
    }));

  await t.step("in a DOM that Node, Deno or Bun host, neither", async () => {
    // jsdom and happy-dom, as test runners set them up: a browser's user
    // agent, but the runtime's `fetch` (or a polyfill's), which streams a
    // body over HTTP/1.1 and knows no CORS, and no browser console.
    const node = { versions: { node: "22.12.0" } };
    const agents = [
      "Mozilla/5.0 (linux) AppleWebKit/537.36 (KHTML, like Gecko) jsdom/26.0.0",
      "Mozilla/5.0 (X11; Linux x64) AppleWebKit/537.36 (KHTML, like Gecko) HappyDOM/17.0.0",
    ];
    for (
      const [agent, host] of agents.flatMap((agent) => [
        [agent, node] as const,
        [agent, "Deno"] as const,
      ])
    ) {
      await asBrowser(
        async () => {
          const [, cors] = await grab("GET /users/1");
          assertEquals(
            cors?.message,
            `Cannot complete the request: ${refused}: GET ${origin}/users/1`,
          );
          const [, stream] = await grab("POST /upload", { body: bytes() });
          assertEquals(
            stream?.message,
            `Cannot complete the request: ${refused}: POST ${origin}/upload`,
          );
        },
        host,
        agent,
      );
    }
    // Electron's page with Node in it is a browser, its `fetch` Chromium's.
    await asBrowser(async () => {
      const [, error] = await grab("GET /users/1");
      assertStringIncludes(String(error?.message), "blocked it by CORS");
    }, { versions: { node: "22.12.0", electron: "35.0.0" } });
  });

  await t.step("says nothing of a body that broke off", async () => {
    await using server = startServer({
      "/broken": () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('{"a":'));
              controller.error(new Error("cut"));
            },
          }),
        ),
      "/ok": () => json({ ok: true }),
    });
    await asBrowser(async () => {
      const local = createGrab(server.url, { retry: NO_RETRY });
      const [, error] = await local("GET /broken");
      assert(isGrabTransportError(error), String(error));
      assertEquals(error.kind, "network");
      assert(!String(error?.message).includes("CORS"), error?.message);
    });
  });
});

Deno.test("a failed fetch where the runtime's globals cannot be read is still a result", async () => {
  // A sandbox or a polyfill may put a getter that throws on `navigator` or
  // `process`: telling whether grab runs in a browser must not fail a grab.
  const url = `http://127.0.0.1:${closedPort()}`;
  const saved = ["navigator", "process"].map((name) =>
    [name, Object.getOwnPropertyDescriptor(globalThis, name)!] as const
  );
  for (const [name] of saved) {
    Object.defineProperty(globalThis, name, {
      configurable: true,
      get() {
        throw new Error(`${name} is sandboxed`);
      },
    });
  }
  try {
    const [data, error] = await createGrab(url, { retry: NO_RETRY })("GET /x");
    assertEquals(data, null);
    assert(isGrabTransportError(error));
    assertEquals(error.kind, "network");
  } finally {
    for (const [name, descriptor] of saved) {
      Object.defineProperty(globalThis, name, descriptor);
    }
  }
});
