/**
 * The smaller bounds: pagination treats links that differ only in their
 * fragment as one link; `Retry-After` is delay-seconds or one of RFC 9110's
 * three HTTP-date formats, anything else falls back to the backoff; JSON:API
 * @-members are not attributes; the per-factory endpoint cache is bounded in
 * bytes. Also kept: a non-2xx JSON body is parsed whatever its
 * `Content-Type`, and `beforeRequest` runs before every attempt.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import createGrab, { jsonApiOf, paginate } from "../mod.ts";
import { parseRetryAfter } from "../src/retry_after.ts";
import { json, startServer } from "./_server.ts";
import { assertHttp, assertOk, runChild, settles } from "./_bounds.ts";

Deno.test("paginate() treats next links that differ only in fragment as one", async (t) => {
  let n = 0;
  await using server = startServer({
    "/items": () => {
      n++;
      return json([n], {
        headers: { link: `</items?page=1#${n}>; rel="next"` },
      });
    },
    "/articles": () => {
      n++;
      return json({
        data: [{ type: "articles", id: String(n) }],
        links: { next: `/articles?page=1#${n}` },
      }, { headers: { "content-type": "application/vnd.api+json" } });
    },
  });
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });

  for (
    const [endpoint, format] of [
      ["GET /items", "json"],
      ["GET /articles", "json-api"],
    ] as const
  ) {
    await t.step(
      `${format}: an ever-changing fragment stops the walk`,
      async () => {
        const before = server.requests.length;
        let pages = 0;
        const walk = async () => {
          for await (
            const _page of paginate(grab, endpoint, { format, limit: 50 })
          ) {
            pages++;
          }
        };
        await settles(walk(), "the pagination");
        const requests = server.requests.length - before;
        assertEquals(requests, 2, "the first page, then page=1 once");
        assertEquals(pages, 2);
      },
    );
  }
});

Deno.test("parseRetryAfter() reads only delay-seconds and RFC 9110 dates", async (t) => {
  const now = Date.UTC(1994, 10, 6, 8, 48, 37); // a minute before the dates
  const valid: [string, number][] = [
    ["Sun, 06 Nov 1994 08:49:37 GMT", 60_000], // IMF-fixdate
    ["Sunday, 06-Nov-94 08:49:37 GMT", 60_000], // RFC 850
    ["Sun Nov  6 08:49:37 1994", 60_000], // asctime
    ["Sun, 06 Nov 1994 08:47:37 GMT", 0], // in the past
    ["120", 120_000],
    ["0", 0],
    ["2024", 2_024_000],
    ["  120 ", 120_000], // surrounding white space is not part of the value
  ];
  for (const [value, expected] of valid) {
    await t.step(`${JSON.stringify(value)} is ${expected} ms`, () => {
      assertEquals(parseRetryAfter(value, now), expected);
    });
  }

  const invalid = [
    "Sun Nov 06 1994 08:49:37 GMT", // Date.prototype.toString's shape
    "Wed Nov 06 2999 08:49:37 GMT",
    "1994-11-06T08:49:37Z",
    "Sun, 06 Nov 1994",
    "06 Nov 1994 08:49:37 GMT",
    "tomorrow",
    "1.5",
    "-1",
    "+120",
    "1e3",
    "0x10",
    "120s",
    "",
  ];
  for (const value of invalid) {
    await t.step(`${JSON.stringify(value)} is not read`, () => {
      assertEquals(parseRetryAfter(value, now), undefined);
    });
  }

  await t.step("an absent header is not read", () => {
    assertEquals(parseRetryAfter(null, now), undefined);
  });
});

Deno.test("a Retry-After that is not an RFC 9110 date falls back to the backoff", async (t) => {
  await using server = startServer((_request, seen) =>
    json({ busy: true }, {
      status: 503,
      headers: { "retry-after": seen.url.searchParams.get("after")! },
    })
  );
  const grab = createGrab(server.url, { timeout: 10_000 });
  const retry = { limit: 1, backoff: () => 1 };

  await t.step("a far-future date in Date's own format: retried", async () => {
    const before = server.requests.length;
    const result = await settles(
      grab("GET /busy", {
        query: { after: "Wed Nov 06 2999 08:49:37 GMT" },
        retry,
      }),
    );
    assertHttp(result, 503);
    assertEquals(server.requests.length - before, 2);
  });

  await t.step(
    "the same date as an IMF-fixdate: not retried (control)",
    async () => {
      const before = server.requests.length;
      const result = await settles(
        grab("GET /busy", {
          query: { after: "Wed, 06 Nov 2999 08:49:37 GMT" },
          retry,
        }),
      );
      assertHttp(result, 503);
      assertEquals(server.requests.length - before, 1);
    },
  );
});

Deno.test("JSON:API @-members are left off the denormalised resource", async (t) => {
  const document = {
    "@context": "https://schema.org",
    data: [{
      type: "articles",
      id: "1",
      "@context": "https://schema.org",
      attributes: {
        title: "Hello",
        "@context": "https://schema.org",
        "@type": "Article",
        body: { "@language": "en", text: "Hi" },
      },
      relationships: { author: { data: { type: "people", id: "9" } } },
    }],
    included: [{
      type: "people",
      id: "9",
      "@id": "https://example.com/people/9",
      attributes: { name: "Ann", "@type": "Person" },
    }],
  };
  await using server = startServer(() =>
    json(document, { headers: { "content-type": "application/vnd.api+json" } })
  );

  for (const casing of ["none", "camelCase"] as const) {
    await t.step(`casing: ${casing}`, async () => {
      const grab = createGrab(server.url, {
        format: "json-api",
        casing,
        retry: 0,
      });
      const data = assertOk(await settles(grab("GET /articles")));
      const [article] = data as Record<string, unknown>[];
      assert(article !== undefined);
      assertEquals(
        Object.keys(article).filter((key) => key.startsWith("@")),
        [],
      );
      assertEquals(article["title"], "Hello");
      const author = article["author"] as Record<string, unknown>;
      assertEquals(author["name"], "Ann");
      assertEquals(
        Object.keys(author).filter((key) => key.startsWith("@")),
        [],
      );
    });
  }
});

Deno.test("a JSON:API extension's member among the relationships is no relationship, whatever its value", async () => {
  // JSON:API 1.1: a member a client does not know is ignored, and a field's
  // name has no colon; an extension's member is namespaced with one.
  await using server = startServer(() =>
    json({
      data: {
        type: "articles",
        id: "1",
        attributes: { title: "Hello" },
        relationships: {
          author: { data: { type: "people", id: "9" } },
          "version:id": "7",
          "version:at": null,
          "version:of": { data: { type: "people", id: "9" } },
        },
      },
    }, { headers: { "content-type": "application/vnd.api+json" } })
  );
  const grab = createGrab(server.url, { format: "json-api", retry: 0 });
  const article = assertOk(await settles(grab("GET /articles/1"))) as Record<
    string,
    unknown
  >;
  assertEquals(article, {
    type: "articles",
    id: "1",
    title: "Hello",
    author: { type: "people", id: "9" },
  });
  assertEquals(Object.keys(jsonApiOf(article)?.relationships ?? {}), [
    "author",
  ]);
});

interface CacheReport {
  before: number;
  after: number;
  failures: number;
  endpoints: number;
  endpointBytes: number;
}

Deno.test("the per-factory endpoint cache is bounded in bytes", async (t) => {
  const report = await runChild<CacheReport>("./_cache_child.ts", [
    "--allow-net=127.0.0.1",
    "--v8-flags=--expose-gc",
  ]);
  const MB = 1024 * 1024;

  await t.step("every grab succeeded", () => {
    assertEquals(report.failures, 0);
    assert(report.endpointBytes > 50 * MB);
  });

  await t.step("the heap retained after the grabs stays under 20 MB", () => {
    const retained = report.after - report.before;
    assert(
      retained < 20 * MB,
      `${
        (retained / MB).toFixed(1)
      } MB retained after ${report.endpoints} endpoints of ${
        (report.endpointBytes / MB).toFixed(1)
      } MB in all`,
    );
  });
});

Deno.test("the per-factory endpoint cache counts what path parameters weigh", async (t) => {
  const modes = [
    // 998 endpoints of 1,000 `/:a` each: 3 MB of text, about 120 KB kept
    // for each endpoint parsed. Counted as text alone, 85 of them (10 MB)
    // fitted.
    ["params", "many parameters"],
    // 60 endpoints of 1,800 `/a` segments and one `/:a`: 3.6 KB of text
    // each, under the 16 KB an entry may be counted at, all held at once.
    // Kept as the text was built, a piece a segment, each held some 120 KB.
    ["segments", "the text between parameters"],
  ] as const;
  for (const [mode, what] of modes) {
    await t.step(what, async () => {
      const report = await runChild<CacheReport>("./_cache_child.ts", [
        "--allow-net=127.0.0.1",
        "--v8-flags=--expose-gc",
      ], { args: [mode] });
      const MB = 1024 * 1024;
      assertEquals(report.failures, 0);
      const retained = report.after - report.before;
      assert(
        retained < 3 * MB,
        `${
          (retained / MB).toFixed(1)
        } MB retained after ${report.endpoints} endpoints`,
      );
    });
  }
});

Deno.test("the cache of converted keys keeps none of a server's long keys", async () => {
  const report = await runChild<{
    keys: number;
    keyBytes: number;
    before: number;
    after: number;
  }>("./_casing_child.ts", ["--allow-net=127.0.0.1", "--v8-flags=--expose-gc"]);
  assertEquals(report.keys, 8);
  // Eight keys of 2 MiB, each also converted: 32 MiB and more if kept. The
  // last grab's strings may still be about (one key and its copy).
  const retained = report.after - report.before;
  assert(
    retained < 8 * 1024 * 1024,
    `${(retained / 1024 / 1024).toFixed(1)} MiB retained`,
  );
});

Deno.test("kept behaviour around the bounds", async (t) => {
  const attempts = new Map<string, number>();
  await using server = startServer({
    "/mislabelled/:type": (_request, seen) =>
      new Response('{"error":"bad","code":42}', {
        status: 422,
        headers: {
          "content-type": decodeURIComponent(seen.url.pathname.split("/")[2]!),
        },
      }),
    "/html": () =>
      new Response("<h1>Bad gateway</h1>", {
        status: 502,
        headers: { "content-type": "text/html" },
      }),
    "/flaky/:name": (_request, seen) => {
      const n = (attempts.get(seen.url.pathname) ?? 0) + 1;
      attempts.set(seen.url.pathname, n);
      return n < 3 ? json({ n }, { status: 503 }) : json({ n });
    },
  });

  for (const type of ["text/html", "text/plain", "application/octet-stream"]) {
    await t.step(`a non-2xx JSON body labelled ${type} is parsed`, async () => {
      const grab = createGrab(server.url, { retry: 0 });
      const result = await settles(
        grab("GET /mislabelled/:type", { params: { type } }),
      );
      assertEquals(assertHttp(result, 422).body, { error: "bad", code: 42 });
    });
  }

  await t.step(
    "a non-2xx body that is not JSON stays text (control)",
    async () => {
      const grab = createGrab(server.url, { retry: 0 });
      const result = await settles(grab("GET /html"));
      assertEquals(assertHttp(result, 502).body, "<h1>Bad gateway</h1>");
    },
  );

  await t.step("beforeRequest runs before every attempt", async () => {
    const seenByHook: string[] = [];
    const grab = createGrab(server.url, {
      retry: { limit: 2, backoff: () => 1 },
      timeout: 10_000,
      hooks: {
        beforeRequest(request) {
          seenByHook.push("factory");
          request.headers.set("x-attempt", String(seenByHook.length));
        },
      },
    });
    const before = server.requests.length;
    const data = assertOk(
      await settles(
        grab("GET /flaky/:name", {
          params: { name: "hooks" },
          hooks: { beforeRequest: () => void seenByHook.push("call") },
        }),
      ),
    );
    assertEquals(data, { n: 3 });
    assertEquals(seenByHook, [
      "factory",
      "call",
      "factory",
      "call",
      "factory",
      "call",
    ]);
    const seen = server.requests.slice(before);
    assertEquals(seen.map((r) => r.headers.get("x-attempt")), ["1", "3", "5"]);
  });
});

Deno.test("GrabError.errors comes from JSON:API error documents only", async () => {
  const github = {
    message: "Validation Failed",
    errors: [{ resource: "Issue", field: "title", code: "missing_field" }],
  };
  const loose = { errors: [{ title: "Taken", field: "name" }] };
  await using server = startServer({
    "/github": () => json(github, { status: 422 }),
    "/jsonapi": () =>
      json(loose, {
        status: 422,
        headers: { "content-type": "application/vnd.api+json; ext=x" },
      }),
    "/plain-jsonapi-shape": () => json(loose, { status: 422 }),
  });
  const grab = createGrab(server.url, { retry: 0 });
  // Another API's error body, served as JSON: the body only.
  const github422 = assertHttp(await settles(grab("GET /github")), 422);
  assertEquals(github422.errors, undefined);
  assertEquals(github422.body, github);
  // A server that says it is JSON:API: taken by its shape, extras left out.
  const declared = assertHttp(await settles(grab("GET /jsonapi")), 422);
  assertEquals(declared.errors, [{ title: "Taken" }]);
  // The same shape as plain JSON has a member JSON:API does not allow.
  const plain = assertHttp(
    await settles(grab("GET /plain-jsonapi-shape")),
    422,
  );
  assertEquals(plain.errors, undefined);
});
