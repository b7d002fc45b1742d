/**
 * A fast server and a slow reader: a live body read slowly holds about a
 * chunk or an item ahead of the reader, as `fetch` and a reader do, and
 * what the caller keeps of a stream it ended holds no more than that. Each
 * run is a child process (`_pressure_child.ts`), measured against the same
 * reads made with `fetch`; the bounds are ratios with a wide margin, which
 * buffering without bound (up to the 200 MB the server offers) passes by
 * far.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import { runChild } from "./_bounds.ts";

const MB = 1024 * 1024;

interface SlowReport {
  read: number;
  /** Bytes the server wrote beyond those of the items read. */
  ahead: number;
  /** Heap after a collection, the stream released. */
  heap: number;
  peak: number | null;
  failure: string | null;
}

interface HeldReport {
  /** Heap held after a collection, the ended stream kept. */
  retained: number;
  kind: string | null;
  kept: boolean;
}

function slow(args: string[]): Promise<SlowReport> {
  // --allow-all: Deno lets no narrower permission read /proc/self/status.
  return runChild<SlowReport>("./_pressure_child.ts", [
    "--allow-all",
    "--v8-flags=--expose-gc",
  ], { args: ["slow", ...args] });
}

function held(type: string, how: string): Promise<HeldReport> {
  return runChild<HeldReport>("./_pressure_child.ts", [
    "--allow-all",
    "--v8-flags=--expose-gc",
  ], { args: ["held", type, how] });
}

/** Within three times `raw`'s and 16 MB. */
function assertNear(what: string, value: number, raw: number): void {
  const bound = 3 * raw + 16 * MB;
  assert(
    value < bound,
    `${what}: ${(value / MB).toFixed(1)} MB, where fetch and a reader take ${
      (raw / MB).toFixed(1)
    } MB; expected < ${(bound / MB).toFixed(1)} MB`,
  );
}

function assertBounded(name: string, report: SlowReport, raw: SlowReport) {
  assertEquals(report.failure, null, `${name}: the stream failed`);
  assertNear(`${name}: the server got ahead by`, report.ahead, raw.ahead);
  assertNear(`${name}: the heap holds`, report.heap, raw.heap);
  if (report.peak !== null && raw.peak !== null) {
    assertNear(`${name}: the peak resident set is`, report.peak, raw.peak);
  }
}

Deno.test("a live body read slowly holds about a chunk ahead, as fetch does", async () => {
  // Small items, 300 reads with 2 ms before each; the caller holds the
  // iterator unread for a second after its first item, past the 300 ms
  // idleTimeout, which counts only the reads waiting for the server.
  const raw = await slow(["raw", "1", "300", "2"]);
  const runs: [string, string[]][] = [
    ["stream", [
      "stream",
      "1",
      "300",
      "2",
      "progress",
      "idle",
      "relay",
      "stop",
    ]],
    ["sse", ["sse", "1", "300", "2", "schema", "idle", "stop"]],
    ["ndjson", ["ndjson", "1", "300", "2", "progress", "reader", "stop"]],
  ];
  for (const [name, args] of runs) {
    const report = await slow(args);
    assertEquals(report.read, 300, `${name}: items read`);
    assertBounded(name, report, raw);
  }
});

Deno.test("events and lines of 1 MB read slowly hold about one ahead", async () => {
  const raw = await slow(["raw", "1000000", "40", "5"]);
  const runs: [string, string[]][] = [
    ["sse", ["sse", "1000000", "40", "5", "idle", "reader"]],
    ["ndjson", ["ndjson", "1000000", "40", "5", "schema", "progress"]],
  ];
  for (const [name, args] of runs) {
    const report = await slow(args);
    assertEquals(report.read, 40, `${name}: items read`);
    assertBounded(name, report, raw);
  }
});

Deno.test("a stream ended in the middle of an item lets go of that item", async () => {
  // 40 MB of one event or line, never ended; the caller ends the stream
  // and keeps it, as it does to read `error` or `lastEventId`.
  const raw = await held("raw", "cancel");
  const expected: Record<string, string | null> = {
    cancel: null,
    signal: "abort",
    "too-large": "too-large",
  };
  const failures: string[] = [];
  for (const type of ["sse", "ndjson"]) {
    for (const how of ["cancel", "signal", "too-large"]) {
      const report = await held(type, how);
      assert(report.kept);
      assertEquals(report.kind, expected[how], `${type}, ${how}: error kind`);
      try {
        assertNear(
          `${type} ended by ${how}: the kept stream holds`,
          report.retained,
          raw.retained,
        );
      } catch (error) {
        failures.push((error as Error).message);
      }
    }
  }
  assertEquals(failures, []);
});
