/**
 * Child process of clock_test.ts: installs a fake clock before grab loads,
 * as a test runner's global fake timers do (Jest's and Vitest's fake
 * `setTimeout`, `clearTimeout` and `Date`, but not `AbortSignal.timeout`;
 * `Date` a proxy of the engine's whose `now` reads the fake clock, as
 * `@sinonjs/fake-timers` makes it),
 * then starts two grabs at once with a ten-minute timeout against a server
 * that never answers, moves the fake clock past it, and reports how each
 * grab ended. Both must end with that fake tick, long before ten real
 * minutes.
 *
 * @module
 */

import { report } from "./_memory.ts";

const TEN_MINUTES = 600_000;

interface Timer {
  due: number;
  run: () => void;
}

const timers = new Map<number, Timer>();
let now = Date.now();
let ids = 0;
globalThis.setTimeout = ((run: () => void, ms = 0) => {
  timers.set(++ids, { due: now + ms, run });
  return ids;
}) as unknown as typeof setTimeout;
globalThis.clearTimeout = ((id: number) => {
  timers.delete(id);
}) as unknown as typeof clearTimeout;
const engineDate = Date;
globalThis.Date = new Proxy(engineDate, {
  get(target, key, receiver) {
    if (key === "now") return () => now;
    return Reflect.get(target, key, receiver);
  },
});

/** Moves the fake clock on by `ms`, running the timers that come due. */
function tick(ms: number): void {
  now += ms;
  for (const [id, timer] of [...timers]) {
    if (timer.due > now) continue;
    timers.delete(id);
    timer.run();
  }
}

const { default: createGrab } = await import("../mod.ts");

const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () => new Promise<Response>(() => {}),
);
const grab = createGrab(`http://127.0.0.1:${server.addr.port}`, {
  timeout: TEN_MINUTES,
  retry: 0,
});
const grabs = [grab("GET /first"), grab("GET /second")];
tick(TEN_MINUTES);
const kinds = [];
for (const [, error] of await Promise.all(grabs)) {
  kinds.push((error as { kind?: string } | null)?.kind ?? null);
}
await report({ kinds });
// The server still holds the two requests: leave without waiting for them.
Deno.exit(0);
