/**
 * Child process of fake_clock_test.ts: starts `@std/testing`'s `FakeTime`
 * before grab loads (as a test runner's global fake timers are in place
 * before the modules load), then grabs a body of many small chunks through a
 * custom `fetch`, never moving the fake clock, and reports how each grab
 * ended: one while the fake clock is in place, one after it is restored.
 * Reading the body must wait on no fake timer, and must not throw once the
 * fake clock is gone.
 *
 * @module
 */

import { FakeTime } from "@std/testing/time";
import { report } from "./_memory.ts";

const realSetTimeout = setTimeout;
const realClearTimeout = clearTimeout;
const time = new FakeTime();
const { default: createGrab } = await import("../mod.ts");

const CHUNK = 16;

/** The platform's answer, handed on as a stream of many small chunks. */
async function smallChunks(
  input: RequestInfo | URL,
  init?: RequestInit,
): Promise<Response> {
  const answer = await fetch(input, init);
  const bytes = new Uint8Array(await answer.arrayBuffer());
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.byteLength) return controller.close();
      controller.enqueue(bytes.slice(at, at += CHUNK));
    },
  });
  return new Response(body, { headers: answer.headers });
}

/** How one grab ended, or `"hung"` after 10 real seconds. */
async function outcome(url: string): Promise<unknown> {
  const grab = createGrab(url, { fetch: smallChunks, retry: 0 });
  let guard: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      grab("GET /", { responseType: "text" }).then(
        ([data, error]) =>
          error === null ? (data as string).length : error.message,
        (thrown: unknown) => `threw: ${String(thrown)}`,
      ),
      new Promise((resolve) => {
        guard = realSetTimeout(() => resolve("hung"), 10_000);
      }),
    ]);
  } finally {
    realClearTimeout(guard);
  }
}

const url = Deno.args[0]!;
const faked = await outcome(url);
time.restore();
const restored = await outcome(url);
await report({ faked, restored });
Deno.exit(0);
