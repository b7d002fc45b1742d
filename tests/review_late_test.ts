/**
 * A `"stream"` body's bytes that reached its queue after a reader let go of
 * a pending read, held to what a `fetch` body does once the caller's signal
 * or `attemptTimeout` ends it: the next read fails, the queue is dropped.
 * A grab refused for nesting too deep rejects as the contract lets a grab
 * reject: with a `GrabValidationError`.
 *
 * @module
 */

import { assertEquals, assertInstanceOf } from "@std/assert";
import createGrab, {
  GrabTransportError,
  GrabValidationError,
  type Hooks,
} from "../mod.ts";
import { settles } from "./_bounds.ts";
import { startServer } from "./_server.ts";
import { tapServer } from "./_streams.ts";

/** Resolves after a macrotask, once every pending microtask has run. */
function aTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

Deno.test("responseType stream: bytes queued by a released read", async (t) => {
  const ends = [["default", "abort"], ["byob", "abort"], [
    "default",
    "timeout",
  ]];
  for (const [mode, kind] of ends) {
    await t.step(`(${mode}) are not served after the ${kind}`, async () => {
      await using server = tapServer("application/octet-stream");
      const controller = new AbortController();
      const loaded = Promise.withResolvers<void>();
      const [body] = await createGrab(server.url)("GET /", {
        responseType: "stream",
        signal: controller.signal,
        // Far beyond the few turns the chunk takes to arrive.
        attemptTimeout: kind === "timeout" ? 2_000 : false,
        onDownloadProgress: ({ loaded: bytes }) => {
          if (bytes > 0) loaded.resolve();
        },
      });
      const first = mode === "byob"
        ? body!.getReader({ mode: "byob" })
        : body!.getReader();
      const pending = mode === "byob"
        ? (first as ReadableStreamBYOBReader).read(new Uint8Array(16))
        : (first as ReadableStreamDefaultReader<Uint8Array>).read();
      const released = pending.catch((error) => error);
      first.releaseLock();
      assertInstanceOf(await released, TypeError);
      // The pull the released read asked for is still waiting: its chunk
      // goes to the stream's queue.
      server.taps[0]!.write("hello");
      await settles(loaded.promise, "the chunk's arrival");
      await aTurn();
      if (kind === "abort") controller.abort();
      await settles(server.taps[0]!.cancelled, "the server's cancel");
      // A fetch body's queue is dropped by the abort: its next read rejects.
      const reader = body!.getReader();
      const failed = await settles(
        reader.read().then(
          ({ value }) => new TextDecoder().decode(value),
          (error) => error,
        ),
        "the read after the abort",
      );
      assertInstanceOf(failed, GrabTransportError);
      assertEquals(failed.kind, kind);
      await reader.cancel().catch(() => {});
    });
  }
});

Deno.test("a grab refused for nesting 32 deep rejects with a GrabValidationError", async () => {
  await using server = startServer(() => Response.json(1));
  const refused: unknown[] = [];
  const hooks: Hooks = {
    async beforeRequest() {
      // Bounded: the refusal ends the chain, and no hook grabs after it.
      if (refused.length > 0) return;
      await api("GET /again").catch((error) => {
        refused.push(error);
        throw error;
      });
    },
  };
  const api = createGrab(server.url, { hooks });
  await settles(api("GET /me").catch(() => {}));
  assertEquals(refused.length, 32);
  // The innermost grab, refused before any request, is a caller's mistake.
  assertInstanceOf(refused[0], GrabValidationError);
  assertEquals(server.requests.length, 0);
});
