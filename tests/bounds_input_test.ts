/**
 * The caller's values: what cannot be sent is a `GrabValidationError` before
 * any request (never a raw `TypeError`, never a retried network failure).
 * Path parameters fill exactly one segment; a circular or too deep query, a
 * header value the platform refuses, a body whose `toJSON` or getter throws,
 * a signal that is not an `AbortSignal` and out-of-range numeric options are
 * refused; `null` and `undefined` options mean none.
 *
 * @module
 */

import {
  assert,
  assertEquals,
  assertStringIncludes,
  assertThrows,
} from "@std/assert";
import createGrab, {
  Call,
  type GrabCallOptions,
  type GrabOptions,
  GrabValidationError,
  type Hooks,
  paginate,
  type SendOptions,
} from "../mod.ts";
import { serialiseQuery } from "../src/query.ts";
import { runInNewContext } from "node:vm";
import { json, startServer } from "./_server.ts";
import {
  assertHttp,
  assertOk,
  assertTransport,
  assertValidation,
  BODY_WAYS,
  runChild,
  settles,
} from "./_bounds.ts";

/** A server that answers every request with 200 `{ ok: true }`. */
function okServer() {
  return startServer(() => json({ ok: true }));
}

const DOT_SEGMENTS = [
  "..",
  ".",
  "",
  "%2e%2e",
  "%2E.",
  ".%2e",
  "%2E%2E",
  "%2e",
];

const ONE_SEGMENT = [
  "a..b",
  "...",
  ".x",
  "x.",
  "..a",
  "a/b",
  "group/sub.project",
  "1.0/2.0",
  "a\\.b",
  "%2e%2e%2e",
  "100%/a.b",
];

/**
 * One segment as sent (`..%2Fadmin`), but a server that decodes the path
 * before it resolves dot segments (Python's `http.server`, a path cleaned
 * after decoding) reads `/v1/users/../admin`: the same climb as `%2e%2e`.
 */
const DOT_PARTS = [
  "../admin",
  "x/..",
  "a/./b",
  "x/../../admin",
  "..\\admin",
  "%2e%2e%2fadmin",
  "..%2Fadmin",
  ".%2E%5Cadmin",
  // A malformed escape elsewhere does not hide the others: a server
  // decodes escape by escape.
  "%2e%2e%2fadmin%",
  "..%2Fadmin%zz",
  "a%2F..%2F..%2Fadmin%E0",
];

Deno.test("a path parameter fills exactly one segment", async (t) => {
  await using server = okServer();
  const base = `${server.url}/v1`;
  const grab = createGrab(base, { retry: 0, timeout: 10_000 });

  for (const value of DOT_SEGMENTS) {
    await t.step(
      `${JSON.stringify(value)} is refused before any request`,
      async () => {
        await assertValidation(() =>
          grab("DELETE /users/:id/sessions", { params: { id: value } })
        );
        await assertValidation(() =>
          grab("GET /:id", { params: { id: value } })
        );
        await assertValidation(() =>
          grab(`GET ${server.url}/files/:name`, { params: { name: value } })
        );
        await assertValidation(() =>
          new Call("DELETE /users/:id/sessions", base).send({
            params: { id: value },
            retry: 0,
          })
        );
        assertEquals(server.requests.length, 0, "the server saw no request");
      },
    );
  }

  for (const value of DOT_PARTS) {
    await t.step(
      `${JSON.stringify(value)} is refused: a dot segment once decoded`,
      async () => {
        const error = await assertValidation(() =>
          grab("DELETE /users/:id/sessions", { params: { id: value } })
        );
        assertEquals(error.issues, [{
          path: "",
          message:
            'Cannot fill path parameter "id": value is a path with a "." or ".." part, which leaves its segment on a server that decodes "%2F" before it resolves dot segments',
        }]);
        await assertValidation(() =>
          new Call(`GET ${server.url}/files/:name`).send({
            params: { name: value },
            retry: 0,
          })
        );
        assertEquals(server.requests.length, 0, "the server saw no request");
      },
    );
  }

  for (const value of ONE_SEGMENT) {
    await t.step(
      `${JSON.stringify(value)} reaches the server in one segment`,
      async () => {
        const before = server.requests.length;
        assertOk(
          await settles(
            grab("DELETE /users/:id/sessions", { params: { id: value } }),
          ),
        );
        const seen = server.requests.slice(before);
        assertEquals(seen.length, 1);
        const segments = seen[0]!.url.pathname.split("/");
        assertEquals(segments.length, 5, seen[0]!.url.pathname);
        assertEquals(segments.slice(0, 3), ["", "v1", "users"]);
        assertEquals(segments[4], "sessions");
        assertEquals(decodeURIComponent(segments[3]!), value);
      },
    );
  }
});

Deno.test("a path parameter no segment takes is refused, not dropped", async (t) => {
  await using server = okServer();
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });

  await t.step("a query value given as a parameter", async () => {
    // `params` means the query in other clients: dropped, the search
    // would go out unfiltered.
    const error = await assertValidation(() =>
      // @ts-expect-error: the types refuse it too
      grab("GET /search", { params: { q: "deno" } })
    );
    assertStringIncludes(error.message, '"q"');
    assertStringIncludes(error.message, '"query"');
    assertEquals(server.requests.length, 0, "the server saw no request");
  });

  await t.step("a misspelt name beside the right ones", async () => {
    const params = { userId: 7, id: 3, postID: 9 };
    const error = await assertValidation(() =>
      grab("GET /users/:userId/posts/:id", { params })
    );
    assertEquals(error.issues.length, 1);
    assertStringIncludes(error.issues[0]!.message, '"postID"');
    await assertValidation(() =>
      new Call("GET /users/:userId", server.url).send({ params, retry: 0 })
    );
    assertEquals(server.requests.length, 0, "the server saw no request");
  });

  await t.step("a parameter that is undefined is none", async () => {
    const params = { id: 3, page: undefined };
    assertOk(await settles(grab("GET /posts/:id", { params })));
    assertOk(await settles(grab("GET /posts", { params: {} })));
    assertEquals(
      server.requests.map((request) => request.url.pathname),
      ["/posts/3", "/posts"],
    );
  });
});

/** How the child process's grab with a circular query ended. */
interface QueryReply {
  outcome: "resolved" | "rejected";
  name?: string;
  message?: string;
}

/**
 * Runs a grab with a circular query in a child process, with a small heap,
 * so that a serialiser that never ends fails the test instead of the run.
 */
function circularQuery(url: string, variant: string): Promise<QueryReply> {
  return runChild<QueryReply>(
    "./_query_child.ts",
    ["--allow-net=127.0.0.1", "--v8-flags=--max-old-space-size=256"],
    { args: [url, variant], guardMs: 30_000 },
  );
}

/**
 * Runs a grab with a JSON body of `variant` (see `_body_child.ts`) in a child
 * process, with a small heap, so that a check that never ends or fills the
 * heap fails the test instead of the run.
 */
function bodyChild(url: string, variant: string): Promise<QueryReply> {
  return runChild<QueryReply>(
    "./_body_child.ts",
    ["--allow-net=127.0.0.1", "--v8-flags=--max-old-space-size=256"],
    { args: [url, variant], guardMs: 30_000 },
  );
}

Deno.test("a JSON body that JSON cannot write in full is refused at once", async (t) => {
  await using server = okServer();
  for (const variant of ["sparse", "sparse-casing", "endless"] as const) {
    await t.step(
      `${variant}: a GrabValidationError, not a crash or a hang`,
      async () => {
        const reply = await bodyChild(server.url, variant);
        assertEquals(reply.outcome, "rejected", JSON.stringify(reply));
        assertEquals(reply.name, "GrabValidationError", reply.message);
        assertStringIncludes(
          reply.message!,
          "it is nested deeper, or holds more, than JSON can write",
        );
        assertEquals(server.requests.length, 0);
      },
    );
  }
});

Deno.test("a toJSON that returns an object with a toJSON of its own is refused, not a hang", async (t) => {
  // JSON.stringify calls toJSON once per value: what it returns is written
  // as it is, here an object whose only member is a function.
  await using server = okServer();
  for (const variant of ["chain", "chain-json-api"] as const) {
    await t.step(variant, async () => {
      const reply = await bodyChild(server.url, variant);
      assertEquals(reply.outcome, "rejected", JSON.stringify(reply));
      assertEquals(reply.name, "GrabValidationError", reply.message);
      assertStringIncludes(
        reply.message!,
        'Cannot serialise "/x/toJSON" as JSON: value is a function',
      );
      assertEquals(server.requests.length, 0);
    });
  }
});

Deno.test("a relative target cannot climb out of the base address's path", async (t) => {
  await using server = okServer();
  const base = `${server.url}/v1`;
  const grab = createGrab(base, { retry: 0 });
  for (
    const target of [
      "/../admin",
      "/%2e%2e/admin",
      "/a/../../admin",
      "/.%2E/x?q=1",
      // The URL parser reads a backslash as a slash in an http(s) URL.
      "/..\\admin",
      "/a\\..\\..\\admin",
      // No query or fragment after it: the `..` is the target's last segment.
      "/..",
      "/users/..",
      "/users/%2e%2E",
      "/a\\..",
    ]
  ) {
    await t.step(
      `${target} is a GrabValidationError, nothing sent`,
      async () => {
        const endpoint = `GET ${target}` as "GET /x";
        const error = await assertValidation(() => grab(endpoint));
        assertStringIncludes(error.message, "base address's path");
        assertThrows(() => new Call(endpoint, base), GrabValidationError);
        assertEquals(server.requests.length, 0);
      },
    );
  }
  await t.step(
    "a segment with dots that is not one, and an absolute URL, go out",
    async () => {
      assertOk(await settles(grab("GET /users/..x")));
      assertEquals(server.requests.at(-1)!.url.pathname, "/v1/users/..x");
      assertOk(await settles(grab("GET /a..b/.well-known/x")));
      assertEquals(
        server.requests.at(-1)!.url.pathname,
        "/v1/a..b/.well-known/x",
      );
      assertOk(await settles(grab(`GET ${server.url}/v1/../top` as "GET /x")));
      assertEquals(server.requests.at(-1)!.url.pathname, "/top");
    },
  );
});

Deno.test("a target with a control character is refused, not cut short", async (t) => {
  await using server = okServer();
  const base = `${server.url}/v1`;
  const grab = createGrab(base, { retry: 0 });
  // The URL parser drops a control character at the end of a URL: these
  // went to `/v1/files/report`, with `q=a`, and to `/x`.
  const cases: [string, string][] = [
    ["GET /files/report\0", "U+0000; percent-encode it (%00)"],
    ["GET /files?q=a\x01", "U+0001; percent-encode it (%01)"],
    ["DELETE /users/:id\x1f", "U+001F; percent-encode it (%1F)"],
    [`GET ${server.url}/x\x0e`, "U+000E; percent-encode it (%0E)"],
    ["GET /a\x7fb\x00/c", "U+0000; percent-encode it (%00)"],
  ];
  for (const [endpoint, told] of cases) {
    await t.step(
      `${JSON.stringify(endpoint.slice(0, 20))} is a GrabValidationError`,
      async () => {
        const error = await assertValidation(() =>
          grab(endpoint as "GET /x", { params: { id: 1 } } as GrabCallOptions)
        );
        assertEquals(error.issues, [{
          path: "",
          message:
            `Cannot use the target: it holds the control character ${told} or give it in "params" or "query"`,
        }]);
        assertThrows(() => new Call(endpoint, base), GrabValidationError);
        assertEquals(server.requests.length, 0);
      },
    );
  }
  await t.step("one written as an escape goes out as written", async () => {
    assertOk(await settles(grab("GET /files/report%00?q=a%01")));
    const seen = server.requests.at(-1)!.url;
    assertEquals([seen.pathname, seen.search], [
      "/v1/files/report%00",
      "?q=a%01",
    ]);
  });
});

Deno.test("a query that cannot be written is refused", async (t) => {
  await using server = okServer();

  for (const variant of ["object", "array", "call"] as const) {
    await t.step(
      `a circular query (${variant}) is a GrabValidationError, not a hang`,
      async () => {
        const reply = await circularQuery(server.url, variant);
        assertEquals(reply.outcome, "rejected", JSON.stringify(reply));
        assertEquals(reply.name, "GrabValidationError", reply.message);
        assertEquals(server.requests.length, 0);
      },
    );
  }

  await t.step(
    "a query whose shared objects make 2^25 values is a GrabValidationError, not a hang",
    async () => {
      const reply = await circularQuery(server.url, "shared");
      assertEquals(reply.outcome, "rejected", JSON.stringify(reply));
      assertEquals(reply.name, "GrabValidationError", reply.message);
      assertStringIncludes(reply.message!, "more than 10000 values");
      assertEquals(server.requests.length, 0);
    },
  );

  await t.step(
    "a query of 10,000 values is written, one more is refused",
    () => {
      const ids = (n: number) => ({
        ids: Array.from({ length: n }, (_, i) => i),
      });
      // The array and its items: 10,000 values.
      const params = serialiseQuery(ids(9_999), new URLSearchParams(), {
        format: "json",
      });
      assertEquals(params.getAll("ids").length, 9_999);
      const error = assertThrows(
        () =>
          serialiseQuery(ids(10_000), new URLSearchParams(), {
            format: "json",
          }),
        GrabValidationError,
      );
      assertEquals(error.issues, [{
        path: "",
        message:
          "Cannot serialise the query: it has more than 10000 values (each nested list or object counts as one)",
      }]);
    },
  );

  await t.step(
    "a comma-joined array counts its items, and a sparse array its length",
    () => {
      const row = Array.from({ length: 20_000 }, (_, i) => i);
      const queries = [
        // JSON:API joins arrays of values: shared, 40 million of them.
        [{ f: Array(2_000).fill(row) }, "json-api"],
        [{ ids: row }, "json-api"],
        // A billion empty slots, refused before any is looked at.
        [{ ids: new Array(1e9) }, "json"],
        [{ ids: new Array(1e9) }, "json-api"],
      ] as const;
      for (const [query, format] of queries) {
        assertThrows(
          () => serialiseQuery(query, new URLSearchParams(), { format }),
          GrabValidationError,
          "more than 10000 values",
        );
      }
      const params = serialiseQuery(
        { ids: row.slice(0, 9_999) },
        new URLSearchParams(),
        { format: "json-api" },
      );
      assertEquals(params.get("ids")!.split(",").length, 9_999);
    },
  );

  await t.step(
    "a query longer than 2,000,000 characters is refused before it is written",
    () => {
      const megabyte = "x".repeat(1_000_000);
      for (const format of ["json", "json-api"] as const) {
        // One string, shared: a thousand values would make a gigabyte.
        assertThrows(
          () =>
            serialiseQuery(
              { a: Array(1_000).fill(megabyte) },
              new URLSearchParams(),
              { format },
            ),
          GrabValidationError,
          "longer than 2000000 characters",
        );
      }
      const params = serialiseQuery({ a: megabyte }, new URLSearchParams(), {
        format: "json",
      });
      assertEquals(params.get("a")!.length, 1_000_000);
    },
  );

  await t.step(
    "a 10,000 levels deep query is a GrabValidationError",
    async () => {
      let query: Record<string, unknown> = { leaf: "x" };
      for (let i = 0; i < 10_000; i++) query = { a: query };
      const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
      await assertValidation(() => grab("GET /items", { query }));
      await assertValidation(() =>
        new Call("GET /items", server.url).send({ query, retry: 0 })
      );
      assertEquals(server.requests.length, 0);
    },
  );

  await t.step(
    "a nested object that has no text of its own is a GrabValidationError",
    async () => {
      class Filter {
        status = "open";
      }
      const grab = createGrab(server.url, { retry: 0 });
      for (
        const query of [
          { filter: new Filter() },
          { tags: new Map([["a", 1]]) },
          { ids: [new Set([1])] },
        ]
      ) {
        const error = await assertValidation(() =>
          grab("GET /items", { query })
        );
        assert(!error.message.includes("[object"), error.message);
      }
      assertEquals(server.requests.length, 0);
      // One with its own text goes as that text (control).
      assertOk(
        await settles(
          grab("GET /items", { query: { next: new URL("https://x.test/a") } }),
        ),
      );
      assertEquals(
        server.requests.at(-1)!.url.searchParams.get("next"),
        "https://x.test/a",
      );
    },
  );

  await t.step(
    "a query that keeps no entries in its own keys is a GrabValidationError, not dropped",
    async () => {
      class Filter {
        status = "open";
      }
      const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
      const before = server.requests.length;
      const queries: unknown[] = [
        new Map([["status", "open"]]),
        new Set(["open"]),
        ["open", "closed"],
        new Date(0),
        new FormData(),
        new Blob(["status=open"]),
        // The platform's own objects, a Promise not awaited, a String
        // object (which would go as `0=s&1=t…`).
        new URL("https://x.test/?status=open"),
        new Headers({ status: "open" }),
        Promise.resolve({ status: "open" }),
        new String("status=open"),
        new Number(1),
      ];
      for (const query of queries) {
        const error = await assertValidation(() =>
          grab("GET /items", { query: query as Record<string, unknown> })
        );
        assertStringIncludes(error.message, '"query"');
        assertStringIncludes(error.message, ", not a");
        await assertValidation(() =>
          new Call("GET /items", server.url).send({
            query: query as Record<string, unknown>,
            retry: 0,
          })
        );
      }
      assertEquals(server.requests.length, before);
      // A null-prototype object and a class instance give their own keys
      // (controls).
      const bare = Object.assign(Object.create(null), { status: "open" });
      for (const query of [bare, new Filter()]) {
        assertOk(await settles(grab("GET /items", { query })));
        assertEquals(server.requests.at(-1)!.url.search, "?status=open");
      }
    },
  );

  await t.step("a shared (not circular) object is fine", async () => {
    const shared = { size: 10 };
    const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
    assertOk(
      await settles(
        grab("GET /items", { query: { page: shared, also: shared } }),
      ),
    );
    const seen = server.requests.at(-1)!;
    assertEquals(seen.url.searchParams.get("page[size]"), "10");
    assertEquals(seen.url.searchParams.get("also[size]"), "10");
  });
});

Deno.test("text that is not Unicode, or a date that is none, is refused, not replaced", async (t) => {
  await using server = okServer();
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  // Half of a pair: URLSearchParams would send U+FFFD in its place.
  const lone = "caf\uD83D";

  await t.step("in a query value or key, naming where", async () => {
    const queries: [Record<string, unknown>, string][] = [
      [{ q: lone }, '"q"'],
      [{ filter: { name: lone } }, '"filter[name]"'],
      [{ tags: ["ok", lone] }, '"tags"'],
      [{ [lone]: "x" }, lone],
      [{ since: new Date(NaN) }, '"since"'],
    ];
    for (const [query, where] of queries) {
      const error = await assertValidation(() => grab("GET /items", { query }));
      assertStringIncludes(error.message, where);
    }
    // JSON:API joins arrays of values with commas.
    const jsonApi = createGrab(server.url, { format: "json-api", retry: 0 });
    await assertValidation(() =>
      jsonApi("GET /items", { query: { fields: { items: ["a", lone] } } })
    );
    assertEquals(server.requests.length, 0, "the server saw no request");
  });

  await t.step("in a path parameter, naming it", async () => {
    const error = await assertValidation(() =>
      grab("GET /items/:name", { params: { name: lone } })
    );
    assertStringIncludes(error.message, '"name"');
    assertStringIncludes(error.message, "lone surrogate");
    assertEquals(server.requests.length, 0, "the server saw no request");
  });

  await t.step(
    "in the endpoint's path or query, or the base address",
    async () => {
      // A target built from the caller's text: `GET /items/${name}`.
      const endpoints = [`GET /items/${lone}`, `GET /items?q=${lone}`] as const;
      for (const endpoint of endpoints) {
        const error = await assertValidation(() => grab(endpoint));
        assertStringIncludes(error.message, "lone surrogate");
        assert(!error.message.includes(lone), "the target is not repeated");
      }
      await assertValidation(() => grab(`GET ${server.url}/items/${lone}`));
      const error = assertThrows(
        () => createGrab(`${server.url}/${lone}`),
        GrabValidationError,
      );
      assertStringIncludes(error.message, "lone surrogate");
      assertEquals(server.requests.length, 0, "the server saw no request");
    },
  );

  await t.step("a whole pair is text, and goes as such", async () => {
    const pair = "caf\uD83D\uDE00";
    const params = { name: pair };
    assertOk(
      await settles(grab("GET /items/:name", { params, query: { q: pair } })),
    );
    const seen = server.requests.at(-1)!.url;
    assertEquals(decodeURIComponent(seen.pathname), `/items/${pair}`);
    assertEquals(seen.searchParams.get("q"), pair);
  });
});

const NON_LATIN_1 = "Zoë €";

Deno.test("a header value outside Latin-1 is refused before any request", async (t) => {
  await using server = okServer();
  let retries = 0;
  const hooks = {
    beforeRequest: () => {},
    afterResponse: () => {},
    beforeRetry: () => void retries++,
  };
  const options = { retry: { limit: 2, backoff: () => 0 }, timeout: 10_000 };

  await t.step("in call headers (record and pairs)", async () => {
    const grab = createGrab(server.url, options);
    await assertValidation(() =>
      grab("GET /x", { headers: { "x-name": NON_LATIN_1 } })
    );
    await assertValidation(() =>
      grab("GET /x", { headers: [["x-name", NON_LATIN_1]] })
    );
  });

  await t.step("in call headers, with hooks set", async () => {
    const grab = createGrab(server.url, { ...options, hooks });
    await assertValidation(() =>
      grab("GET /x", { headers: { "x-name": NON_LATIN_1 }, hooks })
    );
  });

  await t.step("in static factory headers", async () => {
    await assertValidation(() => {
      const grab = createGrab(server.url, {
        ...options,
        hooks,
        headers: { "x-name": NON_LATIN_1 },
      });
      // Should createGrab accept it, the grab must still reject.
      return grab("GET /x");
    });
  });

  await t.step("from a factory header function", async () => {
    const grab = createGrab(server.url, {
      ...options,
      hooks,
      headers: () => ({ "x-name": NON_LATIN_1 }),
    });
    await assertValidation(() => grab("GET /x"));
  });

  await t.step("through Call.send", async () => {
    const call = new Call("GET /x", server.url);
    await assertValidation(() =>
      call.send({ ...options, headers: { "x-name": NON_LATIN_1 } })
    );
    await assertValidation(() =>
      call.send({ ...options, hooks, headers: { "x-name": NON_LATIN_1 } })
    );
  });

  await t.step("nothing reached the server, nothing was retried", () => {
    assertEquals(server.requests.length, 0);
    assertEquals(retries, 0);
  });

  await t.step("a Latin-1 value is sent (control)", async () => {
    const grab = createGrab(server.url, options);
    assertOk(await settles(grab("GET /x", { headers: { "x-name": "Zoë" } })));
    assertEquals(server.requests.length, 1);
  });
});

Deno.test("a header value fetch would fail on or misspell is refused before any request", async (t) => {
  await using server = okServer();
  let retries = 0;
  const options = {
    retry: { limit: 2, backoff: () => 0 },
    hooks: { beforeRetry: () => void retries++ },
  };
  const values: [string, unknown][] = [
    ["a control character", "Bearer a\x0bb"],
    ["DEL", "Bearer \x7f"],
    // String() would send "[object Promise]" or the function's source.
    ["a token not awaited", Promise.resolve("Bearer t")],
    ["a function", () => "Bearer t"],
    ["a plain object", { token: "t" }],
    ["null", null],
  ];
  for (const [label, value] of values) {
    const headers = { authorization: value } as unknown as HeadersInit;
    await t.step(
      `${label}: in the call, the factory or its function`,
      async () => {
        const grab = createGrab(server.url, options);
        await assertValidation(() => grab("GET /x", { headers }));
        await assertValidation(() =>
          createGrab(server.url, { ...options, headers })("GET /x")
        );
        const fromFunction = createGrab(server.url, {
          ...options,
          headers: () => headers,
        });
        await assertValidation(() => fromFunction("GET /x"));
        await assertValidation(() =>
          new Call("GET /x", server.url).send({ ...options, headers })
        );
      },
    );
  }

  await t.step("nothing reached the server, nothing was retried", () => {
    assertEquals(server.requests.length, 0);
    assertEquals(retries, 0);
  });

  await t.step("a number or a URL is sent as its text (control)", async () => {
    const grab = createGrab(server.url, options);
    const headers = {
      "x-count": 5,
      "x-link": new URL("https://api.test/"),
    } as unknown as HeadersInit;
    assertOk(await settles(grab("GET /x", { headers })));
    const seen = server.requests.at(-1)!.headers;
    assertEquals(seen.get("x-count"), "5");
    assertEquals(seen.get("x-link"), "https://api.test/");
  });
});

/** Bodies that JSON.stringify throws on. */
function badBodies(): [string, Record<string, unknown>][] {
  const getter = { type: "notes", title: "t" };
  Object.defineProperty(getter, "secret", {
    enumerable: true,
    get() {
      throw new Error("getter failed");
    },
  });
  return [
    ["a toJSON that throws", {
      type: "notes",
      when: {
        toJSON() {
          throw new Error("toJSON failed");
        },
      },
    }],
    ["a toJSON that returns a BigInt", {
      type: "notes",
      when: { toJSON: () => 10n },
    }],
    ["a getter that throws", getter],
    // JSON would write these as null and {}: the data would be lost.
    ["an invalid Date", { type: "notes", when: new Date(NaN) }],
    ["a Map", { type: "notes", tags: new Map([["a", 1]]) }],
    ["a Set", { type: "notes", ids: new Set([1]) }],
    // JSON writes these as {} too: their data is in slots or getters.
    ["a Promise not awaited", { type: "notes", text: Promise.resolve("t") }],
    ["a Blob", { type: "notes", file: new Blob(["x"]) }],
    ["an ArrayBuffer", { type: "notes", bytes: new ArrayBuffer(4) }],
    ["an Error", { type: "notes", cause: new Error("x") }],
    ["an object with getters only", {
      type: "notes",
      at: new (class {
        get x() {
          return 1;
        }
      })(),
    }],
  ];
}

Deno.test("a body that cannot be serialised is refused before any request", async (t) => {
  await using server = okServer();
  const modes: [string, GrabOptions][] = [
    ["json", {}],
    ["json, camelCase", { casing: "camelCase" }],
    ["json-api", { format: "json-api" }],
  ];
  for (const [label, body] of badBodies()) {
    for (const [mode, factory] of modes) {
      await t.step(`${label} (${mode})`, async () => {
        const grab = createGrab(server.url, { ...factory, retry: 0 });
        await assertValidation(() => grab("POST /notes", { body }));
      });
    }
    await t.step(`${label} (Call.send)`, async () => {
      await assertValidation(() =>
        new Call("POST /notes", server.url).send({ body, retry: 0 })
      );
    });
  }

  await t.step("nothing reached the server", () => {
    assertEquals(server.requests.length, 0);
  });

  await t.step(
    "a Date (a toJSON that works) is still sent (control)",
    async () => {
      const grab = createGrab(server.url, { retry: 0 });
      assertOk(
        await settles(grab("POST /notes", { body: { when: new Date(0) } })),
      );
      assertEquals(
        JSON.parse(server.requests.at(-1)!.body),
        { when: "1970-01-01T00:00:00.000Z" },
      );
    },
  );
});

Deno.test("an issue in a body points into the body as the caller wrote it, in every format", async (t) => {
  await using server = okServer();
  const broken = {
    type: "notes",
    coverImage: { altText: { toJSON: () => NaN } },
  };
  Object.defineProperty(broken, "brokenField", {
    enumerable: true,
    get() {
      throw new Error("getter failed");
    },
  });
  const modes: [string, GrabOptions][] = [
    ["json", {}],
    ["json-api", { format: "json-api" }],
    ["json-api, camelCase", { format: "json-api", casing: "camelCase" }],
  ];
  for (const [label, factory] of modes) {
    await t.step(label, async () => {
      const grab = createGrab(server.url, { ...factory, retry: 0 });
      const error = await assertValidation(() =>
        grab("POST /notes", { body: broken })
      );
      assertEquals(error.issues.map((issue) => issue.path).sort(), [
        "/brokenField",
        "/coverImage/altText",
      ]);
    });
  }
  assertEquals(server.requests.length, 0);
});

/** Bodies given as they are that `fetch` would refuse to send. */
function unsendableBodies(): [string, () => BodyInit, string][] {
  const detached = () => {
    const buffer = new ArrayBuffer(8);
    structuredClone(buffer, { transfer: [buffer] });
    return buffer;
  };
  const locked = () => {
    const stream = new ReadableStream<Uint8Array>();
    stream.getReader();
    return stream;
  };
  const readFrom = () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(8));
        controller.enqueue(new Uint8Array(8));
      },
    });
    const reader = stream.getReader();
    // A chunk is queued: the read is answered before the lock goes.
    reader.read().catch(() => {});
    reader.releaseLock();
    return stream;
  };
  return [
    [
      "a SharedArrayBuffer",
      () => new SharedArrayBuffer(8) as unknown as BodyInit,
      "SharedArrayBuffer, which fetch does not send",
    ],
    [
      "a view on a SharedArrayBuffer",
      // Typed as it is sent by a careless caller: the type says no.
      () => new Uint8Array(new SharedArrayBuffer(8)) as unknown as BodyInit,
      "SharedArrayBuffer",
    ],
    ["a transferred ArrayBuffer", detached, "detached"],
    [
      "a view on a transferred ArrayBuffer",
      () => {
        const view = new Uint8Array(8);
        structuredClone(view.buffer, { transfer: [view.buffer] });
        return view;
      },
      "detached",
    ],
    ["a stream locked by a reader", locked, "locked"],
    ["a stream read from and let go of", readFrom, "disturbed"],
  ];
}

Deno.test("an ArrayBuffer from another realm is sent as bytes", async (t) => {
  await using server = startServer((request, seen) =>
    json({ body: seen.body, type: request.headers.get("content-type") })
  );
  // A buffer `instanceof ArrayBuffer` does not know, as `node:vm` makes it.
  const foreign = () =>
    runInNewContext(
      "new Uint8Array([104, 101, 108, 108, 111]).buffer",
    ) as ArrayBuffer;
  assert(!(foreign() instanceof ArrayBuffer));
  for (
    const [format, type] of [
      ["json", null],
      ["json-api", "application/vnd.api+json"],
    ] as const
  ) {
    const grab = createGrab(server.url, { format, retry: 0 });
    for (const [way, options] of BODY_WAYS) {
      await t.step(`${format} (${way})`, async () => {
        const outcome = await new Call("PUT /notes", server.url).send({
          ...options,
          format,
          body: foreign(),
        });
        assert(outcome.ok);
        assertEquals(outcome.body, { body: "hello", type });
        // The grab sends it too, where it was refused as JSON.
        const [, error] = await grab("PUT /notes", {
          ...options,
          body: foreign(),
          responseType: "text",
        });
        assertEquals(error, null);
      });
    }
  }
});

Deno.test("a body fetch would refuse is refused before any request", async (t) => {
  await using server = okServer();
  // Retries would show a refusal taken for a network failure.
  const grab = createGrab(server.url, {
    retry: { limit: 2, backoff: () => 0 },
  });
  for (const [label, body, why] of unsendableBodies()) {
    for (const [way, options] of BODY_WAYS) {
      await t.step(`${label} (${way})`, async () => {
        await assertValidation(
          () => grab("PUT /notes", { ...options, body: body() }),
          why,
        );
      });
    }
    await t.step(`${label} (Call.send)`, async () => {
      await assertValidation(
        () => new Call("PUT /notes", server.url).send({ body: body() }),
        why,
      );
    });
  }

  await t.step("nothing reached the server", () => {
    assertEquals(server.requests.length, 0);
  });

  await t.step(
    "the same bytes in a plain buffer are sent (control)",
    async () => {
      assertOk(await settles(grab("PUT /notes", { body: new Uint8Array(8) })));
      assertEquals(server.requests.length, 1);
    },
  );
});

Deno.test("options are checked", async (t) => {
  await using server = okServer();
  const bad: [string, unknown][] = [
    ["maxBodyBytes", NaN],
    ["maxBodyBytes", -1],
    ["maxBodyBytes", 1.5],
    ["timeout", -1],
    ["timeout", NaN],
    ["timeout", 0],
    ["retry", -1],
    ["retry", 1.5],
    ["retry", { limit: -1 }],
    ["retry", { maxDelay: -5 }],
    // A method no endpoint names: the retries would be off without a word.
    ["retry", { methods: ["get"] }],
    // A status no response has (a typo, a sign): never matched, so no retry.
    ["retry", { statusCodes: [5030] }],
    ["retry", { statusCodes: [-503] }],
    // An object of another kind: none of the members, so the defaults.
    ["retry", [418]],
    ["retry", new Set([418])],
    ["retry", Promise.resolve({ limit: 5 })],
    ["hooks", [() => {}]],
    ["hooks", Promise.resolve({})],
    ["jsonApi", new Map([["ext", ["https://ext.test/a"]]])],
    // Into the media type, so into a header: CR, LF, NUL, a space, a quote
    // or a character outside ASCII could not be sent.
    ["jsonApi", { ext: ["https://ext.test/a\r\nX-Injected: 1"] }],
    ["jsonApi", { ext: ["https://ext.test/\0"] }],
    ["jsonApi", { profile: ["https://profile.test/€"] }],
    ["jsonApi", { profile: ['https://profile.test/"a b"'] }],
    ["jsonApi", { ext: ["https://ext.test/a\\b"] }],
  ];
  for (const [name, value] of bad) {
    const plain = Object.getPrototypeOf(value) === Object.prototype ||
      Array.isArray(value);
    const shown = typeof value !== "object"
      ? String(value)
      : plain
      ? JSON.stringify(value)
      : Deno.inspect(value);
    await t.step(`${name}: ${shown} on a factory throws`, async () => {
      await assertValidation(
        () => createGrab(server.url, { [name]: value } as GrabOptions),
        name,
      );
    });
    await t.step(`${name}: ${shown} on a call rejects`, async () => {
      const grab = createGrab(server.url);
      await assertValidation(
        () => grab("POST /x", { body: {}, [name]: value } as GrabCallOptions),
        name,
      );
    });
    await t.step(`${name}: ${shown} on Call.send rejects`, async () => {
      await assertValidation(
        () =>
          new Call("POST /x", server.url).send(
            { body: {}, [name]: value } as SendOptions,
          ),
        name,
      );
    });
  }

  for (const signal of [{}, { aborted: false }, "signal"]) {
    await t.step(`signal: ${JSON.stringify(signal)} rejects`, async () => {
      const grab = createGrab(server.url);
      await assertValidation(
        () =>
          grab("POST /x", {
            body: {},
            signal: signal as unknown as AbortSignal,
          }),
        "signal",
      );
      await assertValidation(
        () =>
          new Call("POST /x", server.url).send({
            signal: signal as unknown as AbortSignal,
          }),
        "signal",
      );
    });
  }

  await t.step("nothing reached the server", () => {
    assertEquals(server.requests.length, 0);
  });

  const good: [string, unknown][] = [
    ["retry", { maxDelay: Infinity }],
    ["retry", 0],
    ["timeout", false],
    ["timeout", Infinity],
    ["maxBodyBytes", Infinity],
    ["maxBodyBytes", 1024],
  ];
  for (const [name, value] of good) {
    const shown = typeof value === "object"
      ? JSON.stringify(value)
      : String(value);
    await t.step(`${name}: ${shown} is accepted`, async () => {
      const options = { [name]: value };
      const grab = createGrab(server.url, options as GrabOptions);
      assertOk(await settles(grab("GET /x")));
      assertOk(await settles(grab("GET /x", options as GrabCallOptions)));
    });
  }

  await t.step("timeout: 1 and maxBodyBytes: 0 are accepted", () => {
    createGrab(server.url, { timeout: 1 });
    createGrab(server.url, { maxBodyBytes: 0 });
  });
});

Deno.test("nested options are read once: what is checked is what is used", async (t) => {
  await using server = startServer(() => new Response("busy", { status: 503 }));
  /** A retry whose limit reads 1 the first time and a million after. */
  const shifty = () => {
    let reads = 0;
    return {
      backoff: () => 0,
      get limit() {
        return reads++ === 0 ? 1 : 1_000_000;
      },
    };
  };

  await t.step("a call's retry", async () => {
    const before = server.requests.length;
    const grab = createGrab(server.url);
    assertHttp(await settles(grab("GET /busy", { retry: shifty() })), 503);
    assertEquals(server.requests.length - before, 2);
  });

  await t.step("a factory's retry, for every call", async () => {
    const before = server.requests.length;
    const grab = createGrab(server.url, { retry: shifty() });
    assertHttp(await settles(grab("GET /busy")), 503);
    assertHttp(await settles(grab("GET /busy")), 503);
    assertEquals(server.requests.length - before, 4);
  });
});

Deno.test("null and undefined options mean none", async (t) => {
  await using server = okServer();
  const callNames = [
    "timeout",
    "retry",
    "maxBodyBytes",
    "hooks",
    "headers",
    "query",
    "params",
    "signal",
    "body",
    "format",
    "casing",
    "wireCasing",
    "jsonApi",
    "redirect",
    "credentials",
    "schema",
  ];
  const factoryNames = [
    "timeout",
    "retry",
    "maxBodyBytes",
    "hooks",
    "headers",
    "format",
    "casing",
    "wireCasing",
    "jsonApi",
    "redirect",
    "credentials",
    "fetch",
    "trustedOrigins",
  ];

  for (const empty of [null, undefined]) {
    for (const name of callNames) {
      await t.step(`call ${name}: ${empty}`, async () => {
        const grab = createGrab(server.url);
        const options = { [name]: empty } as GrabCallOptions;
        assertEquals(assertOk(await settles(grab("GET /x", options))), {
          ok: true,
        });
      });
    }
    for (const name of factoryNames) {
      await t.step(`factory ${name}: ${empty}`, async () => {
        const grab = createGrab(
          server.url,
          { [name]: empty } as GrabOptions,
        );
        assertEquals(assertOk(await settles(grab("GET /x"))), { ok: true });
      });
    }
  }

  await t.step("Call.send with every option null", async () => {
    const options: Record<string, null> = {};
    for (const name of callNames) {
      if (name !== "schema" && name !== "casing" && name !== "wireCasing") {
        options[name] = null;
      }
    }
    options["fetch"] = null;
    const outcome = await settles(
      new Call("GET /x", server.url).send(options as SendOptions),
    );
    assert(outcome.ok, "the exchange should succeed");
    assertEquals(outcome.body, { ok: true });
  });
});

Deno.test("options that cannot be read, a header value that cannot be written, a network error response", async (t) => {
  await using server = okServer();
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });

  await t.step(
    "options, or an option's value, that are a revoked Proxy",
    async () => {
      const revoked = () => {
        const { proxy, revoke } = Proxy.revocable({}, {});
        revoke();
        return proxy;
      };
      await assertValidation(() =>
        grab("GET /x", revoked() as GrabCallOptions)
      );
      for (const option of ["hooks", "schema", "retry", "jsonApi"]) {
        await assertValidation(() =>
          grab("GET /x", { [option]: revoked() } as GrabCallOptions)
        );
        assertThrowsValidation(() =>
          createGrab(server.url, { [option]: revoked() } as GrabOptions)
        );
      }
      // A base address that is a revoked Proxy, or a Proxy around a URL.
      assertThrowsValidation(() => createGrab(revoked() as URL));
      assertThrowsValidation(() =>
        createGrab(new Proxy(new URL(server.url), {}))
      );
      const pages = paginate(grab, "GET /x", revoked() as GrabCallOptions);
      await assertValidation(() => pages.next());
      const hooked = paginate(grab, "GET /x", { hooks: revoked() as Hooks });
      await assertValidation(() => hooked.next());
    },
  );

  await t.step(
    "a list option of a huge length, or without end, is refused at once",
    async () => {
      // A sparse array says a length it holds no items for: read through, it
      // held the thread for minutes, and copied, it ended the process.
      const huge = () => Object.assign([], { length: 2 ** 32 - 1 });
      const before = server.requests.length;
      for (
        const options of [
          { headers: huge() },
          { trustedOrigins: huge() },
          { retry: { methods: huge() } },
          { retry: { statusCodes: huge() } },
          { format: "json-api", jsonApi: { ext: huge() } },
          { format: "json-api", jsonApi: { profile: huge() } },
        ]
      ) {
        assertThrowsValidation(() =>
          createGrab(server.url, options as unknown as GrabOptions)
        );
      }
      function* endless(): Generator<[string, string]> {
        for (;;) yield ["x-a", "1"];
      }
      for (const headers of [huge(), endless()]) {
        const error = await assertValidation(() =>
          grab("GET /x", { headers: headers as HeadersInit })
        );
        assert(error.message.includes("10,000 pairs"), error.message);
      }
      // 10,000 is the most: as many pairs are read, each bad one listed, and
      // as many origins are taken.
      const pairs = Array.from({ length: 10_000 }, () => ["x-a", "b\n"]);
      const listed = await assertValidation(() =>
        grab("GET /x", { headers: pairs as [string, string][] })
      );
      assertEquals(listed.issues.length, 10_000);
      const origins = (n: number) =>
        Array.from({ length: n }, (_, i) => `https://h${i}.example`);
      createGrab(server.url, { trustedOrigins: origins(10_000) });
      assertThrowsValidation(() =>
        createGrab(server.url, { trustedOrigins: origins(10_001) })
      );
      assertEquals(server.requests.length, before);
    },
  );

  await t.step("paginate given no grab to ask with", async () => {
    const before = server.requests.length;
    for (const notGrab of [5, undefined, null, "GET /x", { grab }]) {
      const pages = paginate(notGrab as unknown as typeof grab, "GET /x");
      const error = await assertValidation(() => pages.next());
      assert(error.message.includes("grab callable"), error.message);
    }
    // The limit's problem is listed beside it, as the grab finds it.
    const both = paginate(7 as unknown as typeof grab, "GET /x", { limit: -1 });
    const error = await assertValidation(() => both.next(), "limit");
    assertEquals(error.issues.length, 2);
    assertEquals(server.requests.length, before);
  });

  await t.step(
    "a header function's value whose toString throws, as a static one",
    async () => {
      const header = {
        toString() {
          throw new Error("no text");
        },
      } as unknown as string;
      assertThrowsValidation(() =>
        createGrab(server.url, { headers: { "x-a": header } })
      );
      const fromFunction = createGrab(server.url, {
        headers: () => ({ "x-a": header }),
      });
      const error = await assertValidation(() => fromFunction("GET /x"));
      assert(error.message.includes("no text"), error.message);
    },
  );

  await t.step("nothing reached the server", () => {
    assertEquals(server.requests.length, 0);
  });

  await t.step(
    "Response.error() from a custom fetch or a hook is a network failure, retried",
    async () => {
      let calls = 0;
      const failing = createGrab(server.url, {
        retry: { limit: 1, backoff: () => 0 },
        fetch: () => {
          calls++;
          return Promise.resolve(Response.error());
        },
      });
      assertTransport(await settles(failing("GET /x")), "network");
      assertEquals(calls, 2);
      const hooked = await settles(
        grab("GET /x", { hooks: { afterResponse: () => Response.error() } }),
      );
      assertTransport(hooked, "network");
    },
  );
});

function assertThrowsValidation(run: () => unknown): void {
  try {
    run();
  } catch (error) {
    assert(error instanceof Error && error.name === "GrabValidationError");
    return;
  }
  throw new Error("expected a GrabValidationError");
}

Deno.test("options the empty-options shortcut cannot walk are read as before, and nothing throws at once", async (t) => {
  await using server = okServer();
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  const trapped = <T extends object>(target: T): T =>
    new Proxy(target, {
      getPrototypeOf() {
        throw new Error("prototype trap");
      },
    });

  await t.step(
    "a Proxy whose getPrototypeOf throws: its own keys are used",
    async () => {
      assertEquals(assertOk(await settles(grab("GET /x", trapped({})))), {
        ok: true,
      });
      const before = server.requests.length;
      assertOk(
        await settles(
          grab("GET /x", trapped({ headers: { "x-kept": "yes" } })),
        ),
      );
      assertEquals(server.requests[before]!.headers.get("x-kept"), "yes");
      await assertValidation(
        () => grab("GET /x", trapped({ timeout: -1 })),
        "timeout",
      );
      const outcome = await settles(
        new Call("GET /x", server.url).send(trapped({})),
      );
      assert(outcome.ok, "the exchange should succeed");
    },
  );

  await t.step(
    "options on the prototype only are checked as own ones",
    async () => {
      const inherited = Object.create({
        timeout: -1,
        headers: { "x-no": "1" },
      });
      const before = server.requests.length;
      await assertValidation(() => grab("GET /x", inherited), "timeout");
      assertEquals(server.requests.length, before);
    },
  );

  await t.step(
    "a revoked Proxy or a bad endpoint rejects, never throws at once",
    async () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      const calls: (() => Promise<unknown>)[] = [
        () => grab("GET /x", proxy as GrabCallOptions),
        () => grab("GET x" as "GET /x"),
        () => grab("GET /x/:id", { params: {} } as { params: { id: string } }),
        () => new Call("GET /x", server.url).send(proxy as SendOptions),
      ];
      for (const call of calls) {
        let grabbing: Promise<unknown> | undefined;
        try {
          grabbing = call();
        } catch (error) {
          throw new Error(`threw at once: ${error}`);
        }
        await assertValidation(() => grabbing);
      }
    },
  );
});
