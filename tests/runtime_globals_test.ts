/**
 * How grab tells its runtime when a global named `Deno` or `Bun` is not
 * that runtime's: a page's element of that id or name, which the browser
 * makes a global of (named access on `window`). A raw TCP server that
 * closes each connection unread stands for what a browser reports as a bare
 * `TypeError` (CORS, a stream body over HTTP/1.1).
 *
 * @module
 */

import { assert, assertStringIncludes } from "@std/assert";
import createGrab, { isGrabTransportError } from "../mod.ts";

const NO_RETRY = { limit: 0, backoff: () => 0 };

/** A server that accepts each connection and closes it unanswered. */
function closingServer(): { origin: string; close(): Promise<void> } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const serving = (async () => {
    for await (const connection of listener) connection.close();
  })().catch(() => {});
  return {
    origin: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    async close() {
      listener.close();
      await serving;
    },
  };
}

/**
 * Runs `step` as a page does: a browser's user agent, no `process`, and
 * `name` (`Deno` or `Bun`) the global of one of its elements
 * (`<div id="Deno">`), Deno's own taken off.
 */
async function inPageWithElement(
  name: "Deno" | "Bun",
  step: () => Promise<void>,
): Promise<void> {
  const saved = ["process", "Deno", "Bun"].map((global) =>
    [global, Object.getOwnPropertyDescriptor(globalThis, global)] as const
  );
  Object.defineProperty(navigator, "userAgent", {
    value: "Mozilla/5.0 (a browser)",
    configurable: true,
  });
  for (const [global] of saved) {
    Object.defineProperty(globalThis, global, {
      // What named access on `window` gives: the element with that id.
      value: global === name ? { tagName: "DIV", id: name } : undefined,
      configurable: true,
    });
  }
  try {
    await step();
  } finally {
    for (const [global, own] of saved) {
      if (own === undefined) Reflect.deleteProperty(globalThis, global);
      else Object.defineProperty(globalThis, global, own);
    }
    delete (navigator as unknown as Record<string, unknown>).userAgent;
  }
}

function streamBody(): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(new Uint8Array([1, 2, 3]));
      controller.close();
    },
  });
}

Deno.test("a page with an element named Deno or Bun is still a browser: a failed fetch names CORS and HTTP/1.1", async () => {
  const server = closingServer();
  try {
    const grab = createGrab(server.origin, { retry: NO_RETRY });
    for (const name of ["Deno", "Bun"] as const) {
      await inPageWithElement(name, async () => {
        const [, cors] = await grab("GET /users/1");
        assert(isGrabTransportError(cors), String(cors));
        assertStringIncludes(String(cors.message), "blocked it by CORS");
        const [, stream] = await grab("POST /upload", { body: streamBody() });
        assert(isGrabTransportError(stream), String(stream));
        assertStringIncludes(
          String(stream.message),
          "refused the stream body, which it sends only over HTTP/2",
        );
      });
    }
  } finally {
    await server.close();
  }
});
