/**
 * Child process of shared_timeout_test.ts: grabs with a ten-minute timeout
 * through a custom `fetch`, whose answers grab races against the deadline
 * (each with a timer of its own), and through the platform's `fetch` (so
 * their deadlines share timeout signals) against a local server, one at a
 * time and many at once, including a retry after a failure. It then writes a JSON line and returns; the
 * program must end by itself, with no timer of a settled grab keeping it
 * alive.
 *
 * @module
 */

import createGrab from "../mod.ts";
import { report } from "./_memory.ts";

const TEN_MINUTES = 600_000;

const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  () => Response.json({ ok: true }),
);
const base = `http://127.0.0.1:${server.addr.port}`;
let failures = 0;
const custom = createGrab(base, {
  timeout: TEN_MINUTES,
  retry: { limit: 1, backoff: () => 1 },
  fetch: (input, init) => {
    // The first call of each grab of /flaky fails once, as a network would.
    if (String(input).endsWith("/flaky") && failures++ % 2 === 0) {
      return Promise.reject(new TypeError("connection reset"));
    }
    return fetch(input, init);
  },
});
const platform = createGrab(base, { timeout: TEN_MINUTES });

let ok = 0;
const count = ([, error]: readonly [unknown, unknown, unknown]) => {
  if (error === null) ok++;
};
for (let i = 0; i < 20; i++) {
  count(await custom("GET /item"));
  count(await platform("GET /item"));
}
const together = await Promise.all([
  ...Array.from({ length: 32 }, () => custom("GET /item")),
  ...Array.from({ length: 32 }, () => platform("GET /item")),
]);
together.forEach(count);
count(await custom("GET /flaky"));
await server.shutdown();
await report({ ok });
