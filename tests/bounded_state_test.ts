/**
 * State that outlives a grab stays bounded against adversarial but legal
 * input: what grab hands over holds about its own size, not the chunk of
 * the body it was read from.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import { runChild } from "./_bounds.ts";

interface SseReport {
  before: number;
  after: number;
  failures: number;
  events: number;
  keptChars: number;
}

Deno.test("an event's id and type hold their own text, not their chunk", async () => {
  const report = await runChild<SseReport>("./_mem_sse_child.ts", [
    "--v8-flags=--expose-gc",
    "--allow-net=127.0.0.1",
  ]);
  assertEquals(report.failures, 0);
  assertEquals(report.events, 300);
  const perEvent = (report.after - report.before) / report.events;
  // About 60 characters and a small object an event; each chunk carried
  // 60 KB more, which an id or a type kept as a view of it would hold.
  assert(
    perEvent < 4 * 1024,
    `each kept event retains ${Math.round(perEvent)} bytes of heap for ${
      Math.round(report.keptChars / report.events)
    } characters of text; expected < 4096`,
  );
});

interface ErrorReport {
  grabs: number;
  failures: number;
  kept: number;
  alive: Record<string, number>;
}

Deno.test("a GrabError the caller keeps holds none of the caller's options", async () => {
  const report = await runChild<ErrorReport>("./_mem_error_child.ts", [
    "--v8-flags=--expose-gc",
    "--allow-net=127.0.0.1",
  ]);
  assertEquals(report.failures, 0);
  assertEquals(report.kept, report.grabs);
  const { control, ...options } = report.alive;
  // The control is kept by the caller: the count sees what is reachable.
  assertEquals(control, report.grabs);
  assertEquals(options, { body: 0, params: 0, query: 0, hooks: 0, signal: 0 });
});

interface TransportReport {
  grabs: number;
  failures: Record<string, number>;
  kept: number;
  held: Record<string, Record<string, number>>;
}

Deno.test("a GrabTransportError the caller keeps holds none of the caller's objects", async () => {
  const report = await runChild<TransportReport>(
    "./_mem_transport_child.ts",
    ["--v8-flags=--expose-gc", "--allow-net=127.0.0.1"],
  );
  assertEquals(report.failures, {});
  const ways = Object.keys(report.held);
  assertEquals(report.kept, report.grabs * ways.length);
  for (const way of ways) {
    // The control is kept by the caller: the count sees what is reachable.
    assertEquals(report.held[way], { control: report.grabs }, way);
  }
});

interface LiveReport {
  grabs: number;
  failures: Record<string, string>;
  kept: number;
  held: Record<string, Record<string, number>>;
}

for (const keep of ["error", "stream"]) {
  Deno.test(`a live stream's ${keep}, kept, holds none of the caller's objects`, async () => {
    const report = await runChild<LiveReport>("./_mem_live_child.ts", [
      "--v8-flags=--expose-gc",
      "--allow-net=127.0.0.1",
    ], { args: [keep] });
    assertEquals(report.failures, {});
    const ways = Object.keys(report.held);
    assertEquals(report.kept, report.grabs * ways.length);
    for (const way of ways) {
      // The control is kept by the caller: the count sees what is reachable.
      assertEquals(report.held[way], { control: report.grabs }, way);
    }
  });
}
