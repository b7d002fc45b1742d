// deno-lint-ignore-file no-console
/**
 * Load with faults: 20,000 grabs, 64 in flight, against a local server that
 * injects a deterministic 5% of faults. Every grab must resolve to a tuple of
 * the expected form, nothing may stay pending, and the server must end with
 * no request in flight. The figures are printed; nothing is asserted about
 * time or memory.
 *
 * @module
 */

import {
  assert,
  assertEquals,
  assertNotEquals,
  assertNotStrictEquals,
  assertStrictEquals,
} from "@std/assert";
import createGrab, {
  GrabError,
  type GrabResult,
  GrabTransportError,
} from "../mod.ts";

const GRABS = 20_000;
const IN_FLIGHT = 64;
/** The whole test fails, after stopping its grabs, past this bound. */
const BOUND_MS = 120_000;
const SHORT_TIMEOUT = 50;

type Fault = "503" | "404" | "malformed" | "timeout" | "abort" | "reset";

/** The fault injected for grab `i`: one in 20 (5%), cycling through the kinds. */
function faultOf(i: number): Fault | undefined {
  if (i % 20 !== 7) return undefined;
  const kinds = ["503", "404", "malformed", "slow", "reset"] as const;
  const kind = kinds[Math.floor(i / 20) % kinds.length]!;
  if (kind !== "slow") return kind;
  // Slow responses end by the grab's timeout or by the caller's signal.
  return Math.floor(i / 100) % 2 === 0 ? "timeout" : "abort";
}

/** The form each fault's tuple takes; `"ok"` for a success. */
const EXPECTED_FORM: Record<Fault | "none", string> = {
  none: "ok",
  "503": "GrabError 503",
  "404": "GrabError 404",
  malformed: "GrabTransportError parse",
  timeout: "GrabTransportError timeout",
  abort: "GrabTransportError abort",
  reset: "GrabTransportError network",
};

/** Requests the server sees per grab: 503 and reset are retried once. */
const EXPECTED_REQUESTS: Record<Exclude<Fault, "timeout" | "abort">, number> = {
  "503": 2,
  "404": 1,
  malformed: 1,
  reset: 2,
};

function formOf(result: GrabResult<unknown>): string {
  const [data, error, meta] = result;
  if (error === null) {
    assertEquals(meta.statusCode, 200);
    assertNotStrictEquals(data, null);
    return "ok";
  }
  assertStrictEquals(data, null);
  if (error instanceof GrabError) {
    assertEquals(meta, {});
    return `GrabError ${error.statusCode}`;
  }
  assert(error instanceof GrabTransportError);
  assertEquals(meta, { statusCode: 0 });
  return `GrabTransportError ${error.kind}`;
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

Deno.test("createGrab() under load with faults", async () => {
  let inFlight = 0;
  const served = new Map<string, number>();
  const encoder = new TextEncoder();
  await using server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      inFlight++;
      try {
        const i = Number(new URL(request.url).searchParams.get("i"));
        const fault = faultOf(i);
        increment(served, fault ?? "none");
        switch (fault) {
          case "503":
            return Response.json({ busy: true }, { status: 503 });
          case "404":
            return Response.json({ missing: i }, { status: 404 });
          case "malformed":
            return new Response('{"i":', {
              headers: { "content-type": "application/json" },
            });
          case "timeout":
          case "abort":
            // Answers only once the client has gone away.
            await new Promise<void>((resolve) => {
              if (request.signal.aborted) resolve();
              request.signal.addEventListener("abort", () => resolve(), {
                once: true,
              });
            });
            return new Response(null, { status: 499 });
          case "reset": {
            // A body shorter than its declared length: the connection breaks
            // off after the head, which the client sees as a network failure.
            const body = new ReadableStream<Uint8Array>({
              start(controller) {
                controller.enqueue(encoder.encode('{"i":'));
                controller.close();
              },
            });
            return new Response(body, {
              headers: { "content-length": "1000" },
            });
          }
          default:
            return Response.json({ i });
        }
      } finally {
        inFlight--;
      }
    },
  );
  const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
    retry: { limit: 1, backoff: () => 0 },
  });

  const stop = new AbortController();
  let next = 0;
  let pending = 0;
  let rejected = 0;
  let faults = 0;
  const forms = new Map<string, number>();
  const expectedForms = new Map<string, number>();
  for (let i = 0; i < GRABS; i++) {
    const fault = faultOf(i);
    if (fault !== undefined) faults++;
    increment(expectedForms, EXPECTED_FORM[fault ?? "none"]);
  }

  const one = async (i: number): Promise<void> => {
    const fault = faultOf(i);
    const signal = fault === "abort"
      ? AbortSignal.any([stop.signal, AbortSignal.timeout(SHORT_TIMEOUT)])
      : stop.signal;
    pending++;
    try {
      const result = await grab("GET /item", {
        query: { i },
        signal,
        ...(fault === "timeout" ? { timeout: SHORT_TIMEOUT } : {}),
      });
      const form = formOf(result);
      increment(forms, form);
      assertStrictEquals(
        form,
        EXPECTED_FORM[fault ?? "none"],
        `grab ${i} (fault ${fault ?? "none"})`,
      );
    } catch (error) {
      rejected++;
      throw error;
    } finally {
      pending--;
    }
  };
  const worker = async (): Promise<void> => {
    while (next < GRABS && !stop.signal.aborted) await one(next++);
  };

  const rssBefore = Deno.memoryUsage().rss;
  const started = performance.now();
  let bound: ReturnType<typeof setTimeout> | undefined;
  const overdue = new Promise<"overdue">((resolve) => {
    bound = setTimeout(() => resolve("overdue"), BOUND_MS);
  });
  const workers = Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  let finished: unknown;
  try {
    finished = await Promise.race([workers, overdue]);
  } finally {
    clearTimeout(bound);
    if (finished === "overdue") {
      stop.abort();
      await workers.catch(() => {});
    }
  }
  const duration = performance.now() - started;
  assertNotEquals(
    finished,
    "overdue",
    `the load test did not finish within ${
      BOUND_MS / 1000
    } s (${next} grabs started)`,
  );

  // The server may see a client's abort a moment after the client resolved.
  for (let waits = 0; inFlight > 0 && waits < 1_000; waits++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const rssAfter = Deno.memoryUsage().rss;

  const total = [...forms.values()].reduce((a, b) => a + b, 0);
  const requests = [...served.values()].reduce((a, b) => a + b, 0);
  console.log(
    `load: ${GRABS} grabs, ${IN_FLIGHT} in flight, ${faults} faults injected, ` +
      `${requests} requests served, ${Math.round(duration)} ms`,
  );
  console.log(
    `load: tuples ${JSON.stringify(Object.fromEntries([...forms].sort()))}`,
  );
  console.log(
    `load: requests served by fault ${
      JSON.stringify(Object.fromEntries([...served].sort()))
    }`,
  );
  console.log(
    `load: rss before ${(rssBefore / 2 ** 20).toFixed(1)} MiB, after ${
      (rssAfter / 2 ** 20).toFixed(1)
    } MiB`,
  );

  assertEquals(pending, 0, "no grab stays pending");
  assertEquals(rejected, 0, "no grab rejects");
  assertStrictEquals(total, GRABS);
  assertEquals(
    Object.fromEntries([...forms].sort()),
    Object.fromEntries([...expectedForms].sort()),
  );
  assertStrictEquals(faults, GRABS / 20);
  assertEquals(inFlight, 0, "the server has no request in flight");
  for (const [fault, per] of Object.entries(EXPECTED_REQUESTS)) {
    assertStrictEquals(
      served.get(fault),
      (expectedForms.get(EXPECTED_FORM[fault as Fault]) ?? 0) * per,
      `requests served for ${fault}`,
    );
  }
  assertStrictEquals(served.get("none"), expectedForms.get("ok"));
});
