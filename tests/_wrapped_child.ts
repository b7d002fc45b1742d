/**
 * Child process of bounds_hostile_test.ts: a `globalThis.fetch` wrapper is
 * installed before grab loads, as monitoring agents and polyfills do, so it
 * passes for the platform's own `fetch`, and is trusted to pass the abort
 * signal on. A response it makes up is still not trusted, neither for its
 * length nor to end, and a body that stalls still ends at the timeout. One
 * that gives its answer without a promise is read as `await` reads it, and
 * the status of a response-like is read once, whatever a later read says.
 * A network error it answers with (`Response.error()`) fails as the network
 * would, and is retried. One it fails with once the timeout has passed, before
 * a busy loop ran the timeout's timer, times the grab out.
 * Writes one JSON line with the kind of each grab's error, the data of a
 * success, or what a grab rejected with.
 *
 * @module
 */

import { report } from "./_memory.ts";

const real = globalThis.fetch;
let mode = "";
/** A stalled body: one chunk, then nothing, and no end. */
let stalled: ReadableStreamDefaultController<Uint8Array> | undefined;
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          stalled = controller;
          controller.enqueue(new TextEncoder().encode("["));
        },
      }),
      { headers: { "content-type": "application/json" } },
    ),
);

/**
 * A made-up response-like whose status reads as `first` once (a getter that
 * throws for `undefined`), and as 200 from then on.
 */
function shifting(first: number | undefined): Promise<Response> {
  let reads = 0;
  const made = Response.json(["first answer"]);
  return Promise.resolve(
    new Proxy(made, {
      get(target, key) {
        if (key === "status" && reads++ === 0) {
          if (first === undefined) throw new TypeError("No status yet");
          return first;
        }
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }),
  );
}

/** The timeout of the "late failure" mode. */
const LATE_TIMEOUT = 100;

let calls = 0;
globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
  calls++;
  if (mode === "no status, then 200") return shifting(undefined);
  if (mode === "503, then 200") {
    return calls === 1 ? shifting(503) : Promise.resolve(Response.json([2]));
  }
  if (mode === "liar") {
    // A made-up response whose length lies about an endless body. Each
    // chunk passes the cap alone, so the cap, not the 50 ms timeout, ends
    // the read however slow a busy machine is.
    return Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            controller.enqueue(new Uint8Array(1024 * 1024 + 1));
          },
        }),
        { headers: { "content-length": "10" } },
      ),
    );
  }
  if (mode === "no promise") {
    // A response given as it is, not in a promise.
    return Response.json([1]) as unknown as Promise<Response>;
  }
  if (mode === "nothing") return undefined as unknown as Promise<Response>;
  if (mode === "network error, then 200") {
    // A failure told the way a service worker tells it, then an answer.
    return Promise.resolve(calls === 1 ? Response.error() : Response.json([3]));
  }
  if (mode === "late failure") {
    // Fails a turn later, once the program held the loop past the timeout:
    // the failure comes before the timeout's timer could run.
    return new Promise((_resolve, reject) =>
      setTimeout(() => {
        const end = performance.now() + LATE_TIMEOUT + 50;
        while (performance.now() < end) {
          // The program's own work.
        }
        reject(new TypeError("fetch failed"));
      }, 0)
    );
  }
  if (mode === "made-up stall") {
    // A made-up body that never ends and ignores every signal.
    return Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>({ pull: () => new Promise(() => {}) }),
      ),
    );
  }
  // Passes the request on, signal and all, to a body that stalls.
  return real(input, init);
}) as typeof fetch;

const { default: createGrab } = await import("../mod.ts");
const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
  retry: 0,
  maxBodyBytes: 1024 * 1024,
});
const kinds: Record<string, string | undefined> = {};
const modes = [
  "liar",
  "made-up stall",
  "no promise",
  "nothing",
  "no status, then 200",
  "503, then 200",
  "network error, then 200",
  "stalled",
  "late failure",
];
for (const name of modes) {
  mode = name;
  calls = 0;
  try {
    // Retried only where the status says so, without a wait.
    const retry = name.endsWith(", then 200") && name !== "no status, then 200"
      ? { backoff: () => 0 }
      : 0;
    // Only a stall is to meet the timeout: the others answer at once, and
    // a machine busy for 50 ms must not turn their answer into a timeout.
    const timeout = name.includes("stall")
      ? 50
      : name === "late failure"
      ? LATE_TIMEOUT
      : 10_000;
    const [data, error] = await grab("GET /x", { retry, timeout });
    kinds[name] = error === null
      ? JSON.stringify(data)
      : (error as { kind?: string }).kind;
  } catch (error) {
    kinds[name] = `rejected: ${error}`;
  }
}
try {
  stalled?.close();
} catch {
  // Cancelled already: the timeout ended the request.
}
await server.shutdown();
await report(kinds);
