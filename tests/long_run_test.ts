/**
 * A long-running program: one signal that lives as long as the program,
 * many grabs through it, and a long run of pages. What a grab leaves
 * behind must not add up.
 *
 * @module
 */

import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import createGrab, { GrabTransportError, paginate } from "../mod.ts";
import { runChild } from "./_bounds.ts";
import { countListeners } from "./_memory.ts";
import { json, startServer } from "./_server.ts";

interface Dropped {
  failures: number;
  bodies: number;
  left: number;
  listeners: number;
}

Deno.test("a live body dropped unread lets go of a signal that lives on", async () => {
  const report = await runChild<Record<string, Dropped>>(
    "./_dropped_child.ts",
    ["--allow-net=127.0.0.1", "--v8-flags=--expose-gc"],
  );
  for (const type of ["stream", "sse", "ndjson"]) {
    const { failures, bodies, left, listeners } = report[type]!;
    assertEquals(failures, 0, type);
    // The heap was collected: the bodies dropped are gone (the last one may
    // still be about).
    assert(left < bodies / 2, `${type}: ${left} of ${bodies} bodies left`);
    // A body still held may keep its listener; a body collected keeps none.
    assert(
      listeners <= left,
      `${type}: ${listeners} abort listeners left for ${left} bodies`,
    );
  }
});

Deno.test("a live body held unread still ends as a signal that lives on aborts", async () => {
  // The body's listener on the signal holds it weakly: what holds the body
  // must hold what ends it, through a collection of the heap.
  const report = await runChild<Record<string, string>>(
    "./_held_child.ts",
    ["--allow-net=127.0.0.1", "--v8-flags=--expose-gc"],
  );
  assertEquals(Object.keys(report).length, 10);
  for (const [body, ending] of Object.entries(report)) {
    assertEquals(ending, "abort", body);
  }
});

Deno.test("a promise of the caller's that never settles keeps nothing of the grabs that timed out waiting for it", async () => {
  // A stuck token, hook or custom fetch kept (cached) keeps each reaction on
  // it: a reaction of a grab's must not hold the grab's deadline, which
  // holds the caller's signal.
  const report = await runChild<
    Record<string, {
      grabs: number;
      timeouts: number;
      signalsLeft: number;
      bytesPerGrab: number;
    }>
  >("./_stuck_child.ts", ["--v8-flags=--expose-gc"]);
  assertEquals(Object.keys(report), ["headers", "hook", "fetch"]);
  for (const [name, stuck] of Object.entries(report)) {
    assertEquals(stuck.timeouts, stuck.grabs, name);
    assertEquals(stuck.signalsLeft, 0, `${name}: signals left`);
    // Some 4.7 KB a grab when the deadline was held; a few hundred bytes
    // of reaction are the promise's own.
    assert(
      stuck.bytesPerGrab < 2048,
      `${name}: ${stuck.bytesPerGrab} bytes retained per grab`,
    );
  }
});

/** What `_pages_child.ts` reports: the heap held over each half of a run. */
interface PagesReport {
  pages: number;
  cursor: number;
  halves: [bytes: number, pages: number][];
}

/**
 * Bytes a page over the half of the run that held fewer: what the walk
 * holds grows in both halves alike, where a one-off of the engine's (a
 * machine under load makes more) lands in one.
 */
function leastPerPage(report: PagesReport): number {
  return Math.min(...report.halves.map(([bytes, pages]) => bytes / pages));
}

Deno.test("paginate() over a long run of pages with long links holds a few bytes per page", async () => {
  const report = await runChild<PagesReport>("./_pages_child.ts", [
    "--allow-net=127.0.0.1",
    "--v8-flags=--expose-gc",
  ]);
  assertEquals(report.pages, 1_000);
  // Each link kept as it is would hold 32 KiB a page: about 28 MiB here.
  const perPage = leastPerPage(report);
  assert(
    perPage < 2048,
    `${
      Math.round(perPage)
    } bytes a page retained, with links of ${report.cursor} bytes`,
  );
});

Deno.test("paginate() over a long run of pages with links of a hundred characters holds a few bytes per page", async () => {
  // A feed followed page after page: only the last 1,024 pages keep their
  // links whole, older ones a hash, so the walk holds some 16 bytes a page
  // where it held some 150 (links and their entries in a Set).
  const report = await runChild<PagesReport>(
    "./_pages_child.ts",
    ["--allow-net=127.0.0.1", "--v8-flags=--expose-gc"],
    { args: ["12000", "2000", "64"] },
  );
  assertEquals(report.pages, 12_000);
  const perPage = leastPerPage(report);
  assert(
    perPage < 64,
    `${Math.round(perPage)} bytes a page retained, with links of some 100`,
  );
});

Deno.test("one signal for the whole program through many grabs", async (t) => {
  const IN_FLIGHT = 1_000;
  let open: () => void = () => {};
  let gate = new Promise<void>((resolve) => open = resolve);
  let arrived = 0;
  let allArrived: () => void = () => {};
  await using server = startServer(async (request) => {
    const path = new URL(request.url).pathname;
    if (path === "/held") {
      if (++arrived === IN_FLIGHT) allArrived();
      await gate;
    }
    if (path === "/flaky" && arrived++ % 2 === 0) {
      return new Response("busy", { status: 503 });
    }
    if (path === "/events") {
      return new Response("data: 1\n\ndata: 2\n\n", {
        headers: { "content-type": "text/event-stream" },
      });
    }
    return json({ ok: true });
  });
  const unhandled: unknown[] = [];
  const onUnhandled = (event: PromiseRejectionEvent) => {
    event.preventDefault();
    unhandled.push(event.reason);
  };
  globalThis.addEventListener("unhandledrejection", onUnhandled);
  try {
    const grab = createGrab(server.url, {
      retry: { limit: 2, backoff: () => 1 },
      hooks: { beforeRequest: () => {} },
    });

    await t.step("every settled grab took its listener off", async () => {
      const shutdown = new AbortController();
      const signal = shutdown.signal;
      const listening = countListeners(signal);
      for (let i = 0; i < 100; i++) {
        const kinds = await Promise.all([
          grab("GET /plain", { signal }),
          grab("GET /flaky", { signal }),
          grab("GET /plain", { signal, attemptTimeout: 10_000 }),
          grab("GET /events", { signal, responseType: "sse" }).then(
            async (result) => {
              for await (const _ of result[0]!) { /* read to the end */ }
              return result;
            },
          ),
          grab("GET /events", { signal, responseType: "stream" }).then(
            async (result) => {
              await result[0]!.cancel();
              return result;
            },
          ),
        ]);
        for (const [, error] of kinds) assertEquals(error, null);
        let page = 0;
        for await (const _ of paginate(grab, "GET /plain", { signal })) page++;
        assertEquals(page, 1);
      }
      assertEquals(listening(), 0);
    });

    await t.step(
      `${IN_FLIGHT} grabs in flight all end as the signal aborts`,
      async () => {
        const shutdown = new AbortController();
        const signal = shutdown.signal;
        const listening = countListeners(signal);
        const here = new Promise<void>((resolve) => allArrived = resolve);
        const grabs = Array.from(
          { length: IN_FLIGHT },
          () => grab("GET /held", { signal }),
        );
        await here;
        // One listener tells them all: Node warns of a leak past ten.
        assertEquals(listening(), 1);
        shutdown.abort();
        const results = await Promise.all(grabs);
        open();
        gate = new Promise<void>((resolve) => open = resolve);
        for (const [data, error] of results) {
          assertEquals(data, null);
          assertInstanceOf(error, GrabTransportError);
          assertEquals(error.kind, "abort");
        }
      },
    );
  } finally {
    open();
    // Aborted requests end on the server in the background.
    await new Promise((resolve) => setTimeout(resolve, 50));
    globalThis.removeEventListener("unhandledrejection", onUnhandled);
  }
  assertEquals(unhandled, []);
});
