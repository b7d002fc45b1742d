// Timeouts on the real clock, where grabs that start in the same millisecond
// share one timeout signal (tests that fake the clock cover the own-timer
// path): every grab still ends with kind "timeout" and its request aborted.
import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import createGrab, { GrabTransportError } from "../mod.ts";
import { spy } from "@std/testing/mock";
import { runChild } from "./_bounds.ts";
import { startServer } from "./_server.ts";

Deno.test("grabs that share a timeout signal each time out and abort their request", async () => {
  let arrived = 0;
  let aborted = 0;
  await using server = startServer({
    "/silent": (request) =>
      new Promise((resolve) => {
        arrived++;
        request.signal.addEventListener("abort", () => {
          aborted++;
          resolve(new Response(null));
        });
      }),
  });
  const grab = createGrab(server.url, { retry: 0 });
  const results = await Promise.all(
    Array.from({ length: 8 }, () => grab("GET /silent", { timeout: 300 })),
  );
  for (const [data, error, meta] of results) {
    assertEquals(data, null);
    assertInstanceOf(error, GrabTransportError);
    assertEquals(error.kind, "timeout");
    assertEquals(meta, { statusCode: 0 });
  }
  // Each request was aborted, so the server let go of every one it got (on
  // a busy machine a request may time out before it is even sent).
  assert(arrived > 0, "no request reached the server");
  for (let turn = 0; aborted < arrived && turn < 1_000; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assertEquals(aborted, arrived);
});

Deno.test("grabs through a fetch that ignores the signal all time out together", async () => {
  // A custom fetch that never answers and never looks at the signal: each
  // grab is held only by its deadline, a timer of its own (a signal the
  // fetch is given is never shared).
  const pending: Promise<Response>[] = [];
  const fetch = () => {
    const never = new Promise<Response>(() => {});
    pending.push(never);
    return never;
  };
  const grab = createGrab("http://127.0.0.1:9", { retry: 0, fetch });
  const results = await Promise.all(
    Array.from({ length: 64 }, () => grab("GET /silent", { timeout: 20 })),
  );
  assertEquals(pending.length, 64);
  for (const [data, error] of results) {
    assertEquals(data, null);
    assertInstanceOf(error, GrabTransportError);
    assertEquals(error.kind, "timeout");
  }
});

Deno.test("the signal a hook or a custom fetch is given never aborts after its grab settled", async () => {
  // Grabs that start together share a timeout signal only where no code of
  // the caller's sees it: a shared one aborts when its timeout passes, long
  // after its grabs settled, and holds every listener added to it till then.
  await using server = startServer({ "/item": () => Response.json({}) });
  // Each grab's signal, by the number in its query.
  const signals = new Map<string, AbortSignal>();
  const numberOf = (url: string) => new URL(url).searchParams.get("n")!;
  // Long enough that a loaded machine answers in time; a grab that timed out
  // anyway saw its signal abort before it settled, and is left out below.
  const timeout = 300;
  const hooked = createGrab(server.url, {
    retry: 0,
    timeout,
    hooks: {
      beforeRequest: (request) =>
        void signals.set(numberOf(request.url), request.signal),
    },
  });
  const fetched = createGrab(server.url, {
    retry: 0,
    timeout,
    fetch: (input, init) => {
      if (init?.signal) signals.set(numberOf(String(input)), init.signal);
      return fetch(input, init);
    },
  });
  const results = await Promise.all(
    Array.from(
      { length: 16 },
      (_, n) => (n < 8 ? hooked : fetched)("GET /item", { query: { n } }),
    ),
  );
  assertEquals(signals.size, 16);
  const settledOk = results.flatMap(([, error], n) =>
    error === null ? [signals.get(String(n))!] : []
  );
  assert(settledOk.length > 0, "no grab succeeded");
  for (const signal of settledOk) assertEquals(signal.aborted, false);
  // Made after every grab's, so it aborts after any of theirs would have.
  const later = AbortSignal.timeout(timeout + 70);
  await new Promise((resolve) =>
    later.addEventListener("abort", resolve, { once: true })
  );
  assertEquals(settledOk.filter((signal) => signal.aborted).length, 0);
});

Deno.test("a program whose grabs have settled ends without waiting for their timeouts", async () => {
  // The grabs' ten-minute timeouts must not keep the child alive: the hang
  // guard of runChild ends it long before they would pass.
  const report = await runChild<{ ok: number }>("./_exit_child.ts", [
    "--allow-net=127.0.0.1",
  ]);
  assertEquals(report.ok, 20 * 2 + 64 + 1);
});

Deno.test("ever-new timeouts met a few times each hold a bounded number of shared signals", async () => {
  // Deadlines that start together share a ten-minute signal that no one can
  // clear: with a new timeout each time, only a bound on all signals
  // together keeps the memory they hold from growing with their number.
  const report = await runChild<{
    threes: number;
    shared: number;
    before: number;
    after: number;
  }>("./_timeouts_child.ts", ["--v8-flags=--expose-gc"]);
  const MB = 1024 * 1024;
  assert(report.shared > 0, "no deadlines shared a signal");
  const retained = report.after - report.before;
  assert(
    retained < 5 * MB,
    `${(retained / MB).toFixed(1)} MB retained after ${report.threes} threes`,
  );
});

Deno.test("a crowd whose attemptTimeout is its timeout fails each grab by its timeout", async () => {
  // A shared signal aborts up to a window after a grab's own timeout; an
  // attempt's timer of the same length, started just after the grab, must
  // not fail the grab in its place: the grab's time ended first.
  const held = new Set<() => void>();
  await using server = startServer({
    "/silent": (request) =>
      new Promise((resolve) => {
        const answer = () => {
          held.delete(answer);
          resolve(new Response(null));
        };
        held.add(answer);
        request.signal.addEventListener("abort", answer);
      }),
  });
  const grab = createGrab(server.url, {
    retry: { limit: 2, backoff: () => 0 },
    timeout: 150,
    attemptTimeout: 150,
  });
  const results = await Promise.all(
    Array.from({ length: 200 }, () => grab("GET /silent")),
  );
  held.forEach((answer) => answer());
  const messages = results.map(([, error]) => {
    assertInstanceOf(error, GrabTransportError);
    assertEquals(error.kind, "timeout");
    return error.message.includes("attemptTimeout") ? "attempt" : "grab";
  });
  assertEquals(messages.filter((said) => said === "attempt").length, 0);
});

Deno.test("in a Cloudflare Worker, deadlines that start together share no signal", async () => {
  // workerd's fetch refuses a signal made while handling another request,
  // and a grab made once serves every request: one request's grab must
  // never get a signal another request made.
  const plain = await runChild<{ shared: number }>(
    "./_worker_agent_child.ts",
    ["--allow-read=."],
  );
  assertEquals(plain.shared, 3, "elsewhere the first keeps a timer of its own");
  for (const worker of ["worker", "old-worker"]) {
    const report = await runChild<{ shared: number }>(
      "./_worker_agent_child.ts",
      ["--allow-read=."],
      { args: [worker] },
    );
    assertEquals(report.shared, 0, worker);
  }
});

Deno.test("grabs one after another through a custom fetch keep one listener on their shared signal", async () => {
  // Each grab's own signal follows the shared one through one listener,
  // which the last grab to end leaves for the next grab an `await` starts.
  const given = new Set<AbortSignal>();
  const fetch = (_input: RequestInfo | URL, init?: RequestInit) => {
    if (init?.signal) given.add(init.signal);
    return Promise.resolve(Response.json({ a: 1 }));
  };
  // Ten minutes: a window of 300 ms, which the grabs share.
  const grab = createGrab("http://127.0.0.1:9", { fetch, timeout: 600_000 });
  using added = spy(EventTarget.prototype, "addEventListener");
  for (let i = 0; i < 20; i++) {
    const [, error] = await grab("GET /item");
    assertEquals(error, null);
  }
  const onShared = added.calls.filter(({ self, args }) =>
    self instanceof AbortSignal && !given.has(self) && args[0] === "abort"
  );
  // One for each shared signal the grabs met (one, unless a slow machine
  // took them past a window), never one more for the next grab.
  const signals = new Set(onShared.map(({ self }) => self));
  assert(signals.size > 0, "no listener on a shared signal");
  assertEquals(onShared.length, signals.size, `${onShared.length} added`);
});
