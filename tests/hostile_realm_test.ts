/**
 * grab in a realm a dependency has changed: a key put on `Object.prototype`
 * (prototype pollution), by a child process that loads grab and then
 * pollutes, so that the test runner is never polluted. Whatever the key, a
 * grab sends only what its caller gave: no header, query parameter, path
 * value, method, body, trusted origin, hook or `fetch` comes from the
 * prototype, and an enumerable key is no unknown option.
 *
 * @module
 */

import { assertEquals } from "@std/assert";
import { runChild } from "./_bounds.ts";
import { startServer } from "./_server.ts";

interface Report {
  outcomes: Record<string, string>;
  ran: string[];
}

const GRABS = ["plain", "param", "call", "hooked", "foreign", "send", "pages"];
const OK = Object.fromEntries(GRABS.map((name) => [name, "ok"]));

const KEYS = [
  "headers",
  "query",
  "params",
  "hooks",
  "beforeRequest",
  "afterResponse",
  "trustedOrigins",
  "retry",
  "method",
  "body",
  "fetch",
  "id",
];

for (const how of ["hidden", "enumerable"]) {
  Deno.test(`a ${how} key on Object.prototype changes no grab`, async (t) => {
    await using server = startServer(() => Response.json({ ok: true }));
    await using other = startServer(() => Response.json({ ok: true }));
    for (const key of KEYS) {
      await t.step(key, async () => {
        const before = server.requests.length;
        const otherBefore = other.requests.length;
        const report = await runChild<Report>(
          "./_hostile_realm_child.ts",
          ["--allow-net=127.0.0.1", "--allow-read=."],
          { args: [server.url, other.url, key, how] },
        );
        assertEquals(report.outcomes, OK, "every grab should succeed");
        assertEquals(report.ran, [], "no polluted hook or fetch may run");
        const seen = server.requests.slice(before);
        // One request each: none retried, none sent by a polluted fetch.
        assertEquals(
          seen.map((request) => `${request.method} ${request.url.pathname}`),
          [
            "GET /plain",
            "GET /items/1",
            "GET /call",
            "GET /hooked",
            "GET /send",
            "GET /pages",
          ],
        );
        for (const request of seen) {
          assertEquals(request.headers.get("x-polluted"), null);
          assertEquals(request.url.searchParams.get("polluted"), null);
          assertEquals(request.body, "");
        }
        assertEquals(
          seen.map((request) => request.headers.get("authorization")),
          ["Bearer t", "Bearer t", "Bearer t", "Bearer t", null, "Bearer t"],
          "the factory's token goes to its origin, and nowhere else",
        );
        const foreign = other.requests.slice(otherBefore);
        assertEquals(foreign.length, 1);
        assertEquals(foreign[0]!.headers.get("authorization"), null);
      });
    }
  });
}
