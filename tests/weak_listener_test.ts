import { assertEquals, assertInstanceOf } from "@std/assert";
import createGrab, { type GrabStream, GrabTransportError } from "../mod.ts";
import { listenWeakly, unlistenWeakly } from "../src/weak_listener.ts";
import { startServer } from "./_server.ts";

/**
 * Runs `body` as on a runtime without `WeakRef` and `FinalizationRegistry`
 * (a Cloudflare Worker whose compatibility date is before 2025-05-05, or
 * that sets `disable_weak_ref`).
 */
async function withoutWeakReferences<T>(body: () => Promise<T>): Promise<T> {
  const global = globalThis as Record<string, unknown>;
  const saved = {
    WeakRef: global.WeakRef,
    FinalizationRegistry: global.FinalizationRegistry,
  };
  delete global.WeakRef;
  delete global.FinalizationRegistry;
  try {
    return await body();
  } finally {
    Object.assign(global, saved);
  }
}

Deno.test("listenWeakly()", async (t) => {
  await t.step("calls onAbort with the target as the signal aborts", () => {
    const controller = new AbortController();
    const target = { name: "body" };
    const seen: unknown[] = [];
    listenWeakly(controller.signal, target, (it) => seen.push(it));
    controller.abort();
    assertEquals(seen, [target]);
  });

  await t.step("calls nothing once the listener is taken off", () => {
    const controller = new AbortController();
    const target = { name: "body" };
    const seen: unknown[] = [];
    const listener = listenWeakly(
      controller.signal,
      target,
      (it) => seen.push(it),
    );
    unlistenWeakly(controller.signal, target, listener);
    controller.abort();
    assertEquals(seen, []);
  });

  await t.step(
    "listens (holding the target) where the runtime has no weak references",
    async () => {
      const controller = new AbortController();
      const target = { name: "body" };
      const seen: unknown[] = [];
      const listener = await withoutWeakReferences(() =>
        Promise.resolve(
          listenWeakly(controller.signal, target, (it) => seen.push(it)),
        )
      );
      controller.abort();
      assertEquals(seen, [target]);
      // Taking it off works there too.
      const other = new AbortController();
      const off = await withoutWeakReferences(() => {
        const added = listenWeakly(other.signal, target, (it) => seen.push(it));
        unlistenWeakly(other.signal, target, added);
        return Promise.resolve(added);
      });
      other.abort();
      assertEquals(seen, [target]);
      assertEquals(typeof listener, "function");
      assertEquals(typeof off, "function");
    },
  );
});

Deno.test("a live body on a runtime without weak references", async (t) => {
  await using server = startServer(() =>
    new Response("data: 1\n\n", {
      headers: { "content-type": "text/event-stream" },
    })
  );
  const grab = createGrab(server.url, { retry: 0 });

  for (const attemptTimeout of [undefined, 60_000]) {
    const how = attemptTimeout === undefined ? "" : ", with attemptTimeout";
    await t.step(`opens, and ends as the signal aborts${how}`, async () => {
      const controller = new AbortController();
      const [events, error] = await withoutWeakReferences(() =>
        grab("GET /events", {
          signal: controller.signal,
          responseType: "sse",
          ...(attemptTimeout === undefined ? {} : { attemptTimeout }),
        })
      );
      assertEquals(error, null);
      controller.abort();
      const seen: unknown[] = [];
      for await (const event of events as GrabStream<unknown>) seen.push(event);
      assertEquals(seen, []);
      assertInstanceOf(events!.error, GrabTransportError);
      assertEquals(events!.error.kind, "abort");
    });
  }
});
