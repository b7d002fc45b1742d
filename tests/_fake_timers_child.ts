/**
 * Child process of fake_timers_test.ts: installs `@sinonjs/fake-timers`
 * before grab loads, as a test runner's global fake timers are in place
 * before the modules load, and reports how one grab ended.
 *
 * `date`: fakes `Date` alone (a test that freezes the date), the platform's
 * timers left in place, then grabs a server that answers 503 with
 * `Retry-After: 1` too late for that retry to fit in the timeout: the grab
 * ends with the server's status, as a retry that cannot fit is not waited
 * for.
 *
 * `timers`: fakes what Jest and Vitest fake (all but `nextTick` and
 * `queueMicrotask`), grabs a server that never answers with a ten-minute
 * timeout, and moves the clock past it: the grab ends with that tick.
 *
 * @module
 */

import FakeTimers from "npm:@sinonjs/fake-timers@14.0.0";
import { report } from "./_memory.ts";

const [url, mode] = Deno.args as [string, "date" | "timers"];
const clock = FakeTimers.install({
  toFake: mode === "date"
    ? ["Date"]
    : Object.keys(FakeTimers.timers).filter((name) =>
      name !== "nextTick" && name !== "queueMicrotask"
    ) as FakeTimers.FakeMethod[],
  now: Date.UTC(2030, 0, 1),
});
const { default: createGrab } = await import("../mod.ts");

const grab = createGrab(url, { retry: mode === "date" ? 1 : 0 });
const settling = grab("GET /", {
  timeout: mode === "date" ? 1_500 : 600_000,
});
if (mode === "timers") {
  // Lets the request reach the server before the clock moves.
  await clock.tickAsync(0);
  await clock.tickAsync(600_001);
}
const [, error] = await settling;
clock.uninstall();
const { kind, statusCode } = error as { kind?: string; statusCode?: number };
await report(kind ?? statusCode);
Deno.exit(0);
