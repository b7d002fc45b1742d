/**
 * grab in a realm a dependency has changed: a key put on `Object.prototype`
 * (prototype pollution), by a child process that loads grab and then
 * pollutes, so that the test runner is never polluted. Whatever the key, a
 * grab sends only what its caller gave: no header, query parameter, path
 * value, method, body, trusted origin, hook or `fetch` comes from the
 * prototype, and an enumerable key is no unknown option. Nor is the key
 * taken for a member of grab's own results (a stream's step, a schema's
 * check, a loaded codec), of a JSON:API document read or written, of a
 * schema's result or of an error.
 *
 * @module
 */

import { assertEquals } from "@std/assert";
import { runChild } from "./_bounds.ts";
import { json, startServer } from "./_server.ts";

interface Report {
  outcomes: Record<string, string>;
  ran: string[];
}

const GRABS = [
  "plain",
  "param",
  "call",
  "hooked",
  "foreign",
  "send",
  "pages",
  "sse",
  "sseSchema",
  "ndjson",
  "schema",
  "read",
  "write",
  "orThrow",
  "notResult",
  "invalid",
  "sendJsonApi",
];
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
  "broken",
  "failed",
  "passed",
  "issues",
  "error",
  "value",
  "ok",
  "data",
  "links",
  "meta",
  "action",
  "cause",
  "included",
  "relationships",
  "attributes",
  "type",
];

const JSON_API = { "content-type": "application/vnd.api+json" };
const WRITTEN = JSON.stringify({
  data: {
    type: "articles",
    attributes: { title: "Hi", tags: { name: "x" } },
  },
});
const ARTICLE = { type: "articles", id: "1", attributes: { title: "Hi" } };

/** The routes of the streams and JSON:API grabs; any other path is JSON. */
function route(request: Request): Response {
  const { pathname } = new URL(request.url);
  const text = (body: string, type: string) =>
    new Response(body, { headers: { "content-type": type } });
  switch (pathname) {
    case "/sse":
      return text("id: 1\ndata: a\n\nid: 2\ndata: b\n\n", "text/event-stream");
    case "/sse-json":
      return text('data: {"n":1}\n\n', "text/event-stream");
    case "/ndjson":
      return text('{"n":1}\n{"n":2}\n', "application/x-ndjson");
    case "/articles/1":
      return json({ data: ARTICLE }, { headers: JSON_API });
    case "/articles":
      return json({ data: ARTICLE }, { status: 201, headers: JSON_API });
  }
  return Response.json({ ok: true });
}

for (const how of ["hidden", "enumerable"]) {
  Deno.test(`a ${how} key on Object.prototype changes no grab`, async (t) => {
    await using server = startServer(route);
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
            "GET /sse",
            "GET /sse-json",
            "GET /ndjson",
            "GET /schema",
            "GET /articles/1",
            "POST /articles",
            "GET /or-throw",
            "GET /articles/1",
          ],
        );
        for (const request of seen) {
          assertEquals(request.headers.get("x-polluted"), null);
          assertEquals(request.url.searchParams.get("polluted"), null);
          // Only the JSON:API write has a body: the caller's members alone.
          assertEquals(request.body, request.method === "POST" ? WRITTEN : "");
        }
        assertEquals(
          seen.map((request) => request.headers.get("authorization")),
          [
            ...["Bearer t", "Bearer t", "Bearer t", "Bearer t", null],
            ...["Bearer t", "Bearer t", "Bearer t", "Bearer t", "Bearer t"],
            ...[null, null, "Bearer t", null],
          ],
          "the factory's token goes to its origin, and nowhere else",
        );
        const foreign = other.requests.slice(otherBefore);
        assertEquals(foreign.length, 1);
        assertEquals(foreign[0]!.headers.get("authorization"), null);
      });
    }
  });
}
