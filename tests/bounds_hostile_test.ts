/**
 * The bounds against hostile values and servers: the cases that got past
 * the first checks. Each step names the promise it checks.
 *
 * @module
 */

import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertRejects,
  assertStrictEquals,
  assertThrows,
} from "@std/assert";
import createGrab, {
  Call,
  type GrabCallOptions,
  type GrabOptions,
  GrabTransportError,
  GrabValidationError,
  paginate,
} from "../mod.ts";
import { closedPort, json, startServer } from "./_server.ts";
import {
  assertHttp,
  assertOk,
  assertTransport,
  assertValidation,
  runChild,
  settles,
} from "./_bounds.ts";

const SECRET = "s3cr3t";

/** Every way an error can be shown; none may hold the secret. */
function assertNoSecret(error: unknown): void {
  assertInstanceOf(error, Error);
  for (
    const text of [
      error.message,
      String(error),
      JSON.stringify(error) ?? "",
      Deno.inspect(error, { depth: 20 }),
    ]
  ) {
    assert(!text.includes(SECRET), `the secret shows in: ${text}`);
  }
}

/** A body that yields nothing and answers neither a pull nor a cancel. */
function deafBody(): ReadableStream<Uint8Array> {
  return new ReadableStream({
    pull: () => new Promise(() => {}),
    cancel: () => new Promise(() => {}),
  });
}

Deno.test("secrets stay out of every view of an error", async (t) => {
  await t.step("a query with brackets and parentheses", async () => {
    const grab = createGrab(`http://127.0.0.1:${closedPort()}`, { retry: 0 });
    for (
      const target of [
        `/items?page[size]=10&api_key=${SECRET}`,
        `/items?token=a)${SECRET}`,
        `/items?filter(x)=${SECRET}`,
      ]
    ) {
      const result = await settles(grab(`GET ${target}` as "GET /items"));
      assertNoSecret(assertTransport(result, "network"));
    }
  });

  await t.step("an error of a custom fetch with URL properties", async () => {
    const withUrl = Object.assign(new Error("refused"), {
      url: `http://api.test/x?key=${SECRET}`,
    });
    const aggregate = new AggregateError(
      [new Error(`at http://api.test/y?key=${SECRET}`)],
      "all failed",
    );
    for (const failure of [withUrl, aggregate]) {
      const grab = createGrab("http://api.test", {
        retry: 0,
        fetch: () => Promise.reject(failure),
      });
      assertNoSecret(assertTransport(await grab("GET /x"), "network"));
    }
  });

  await t.step("a trustedOrigins entry with credentials", async () => {
    const error = await assertValidation(() =>
      createGrab("http://api.test", {
        trustedOrigins: [`http://user:${SECRET}@cdn.test/`],
      })
    );
    assertNoSecret(error);
  });

  await t.step("a toJSON that throws with a URL in its message", async () => {
    await using server = startServer(() => json({}));
    const grab = createGrab(server.url);
    const body = {
      at: {
        toJSON() {
          throw new Error(`cannot reach http://h.test/?token=${SECRET}`);
        },
      },
    };
    const error = await assertValidation(() => grab("POST /x", { body }));
    assertNoSecret(error);
    assertEquals(server.requests.length, 0);
  });
});

Deno.test("a replaced globalThis.fetch is held to the bounds", async (t) => {
  const original = globalThis.fetch;
  try {
    await t.step("a length that lies does not pass the cap", async () => {
      const big = JSON.stringify("x".repeat(100_000));
      globalThis.fetch = () =>
        Promise.resolve(
          new Response(big, { headers: { "content-length": "10" } }),
        );
      const grab = createGrab("http://api.test", { maxBodyBytes: 1_000 });
      assertTransport(await settles(grab("GET /")), "too-large");
    });

    await t.step(
      "a body that ignores the signal ends at the timeout",
      async () => {
        globalThis.fetch = () => Promise.resolve(new Response(deafBody()));
        const grab = createGrab("http://api.test", { timeout: 200 });
        assertTransport(await settles(grab("GET /")), "timeout");
      },
    );
  } finally {
    globalThis.fetch = original;
  }
});

Deno.test("a globalThis.fetch wrapped before grab loaded is held to the bounds", async () => {
  // It passes for the platform's own: one that makes up a response whose
  // length lies or whose body never ends, one that passes the request on to
  // a body that stalls, one that answers without a promise, and one whose
  // response-like says another status on a later read.
  const kinds = await runChild<Record<string, string>>(
    "./_wrapped_child.ts",
    ["--allow-net=127.0.0.1", "--allow-read=."],
  );
  assertEquals(kinds, {
    liar: "too-large",
    "made-up stall": "timeout",
    stalled: "timeout",
    "no promise": "[1]",
    nothing: "network",
    "no status, then 200": "network",
    "503, then 200": "[2]",
    "network error, then 200": "[3]",
    "late failure": "timeout",
  });
});

Deno.test("a platform response from a custom fetch that dropped the signal ends at the timeout, cancelled", async (t) => {
  // The body stalls after its first bytes, with a length and without one;
  // the custom fetch passes the request on without grab's signal, so only
  // grab can end the read, by cancelling the body.
  const stalled: ReadableStreamDefaultController<Uint8Array>[] = [];
  let cancelled = 0;
  await using server = startServer((_request, { url }) => {
    const headers = new Headers({ "content-type": "application/json" });
    if (url.pathname === "/sized") headers.set("content-length", "100");
    return new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          stalled.push(controller);
          controller.enqueue(new TextEncoder().encode('{"a":'));
        },
        cancel() {
          cancelled++;
        },
      }),
      { headers },
    );
  });
  const grab = createGrab(server.url, {
    retry: 0,
    timeout: 50,
    fetch: (input, init) => {
      const { signal: _dropped, ...rest } = init ?? {};
      return fetch(input, rest);
    },
  });
  for (const path of ["/sized", "/chunked"] as const) {
    for (const responseType of ["json", "bytes"] as const) {
      await t.step(`${path}, ${responseType}`, async () => {
        assertTransport(
          await settles(grab(`GET ${path}`, { responseType })),
          "timeout",
        );
      });
    }
  }
  // The server hears of each cancel a little later.
  for (let turn = 0; turn < 200 && cancelled < 4; turn++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const left = stalled.length - cancelled;
  for (const controller of stalled) {
    try {
      controller.close();
    } catch {
      // Cancelled, as it should be.
    }
  }
  assertEquals(left, 0, `${left} of ${stalled.length} bodies left open`);
});

Deno.test("caller code and bodies that never finish are bounded", async (t) => {
  await using server = startServer({
    "/ok": () => json({ ok: true }),
    "/busy": () => json({ busy: true }, { status: 503 }),
  });

  await t.step("a schema whose validate never settles", async () => {
    const grab = createGrab(server.url, { timeout: 200 });
    const schema = {
      "~standard": {
        version: 1 as const,
        vendor: "never",
        validate: () => new Promise<never>(() => {}),
      },
    };
    assertTransport(await settles(grab("GET /ok", { schema })), "timeout");
  });

  await t.step("a backoff that throws leaves no body open", async () => {
    const boom = new Error("backoff bug");
    const grab = createGrab(server.url, {
      retry: {
        backoff: () => {
          throw boom;
        },
      },
    });
    const error = await assertRejects(() => grab("GET /busy"));
    assertStrictEquals(error, boom);
  });

  await t.step(
    "a backoff that gives no number rejects, nothing left open",
    async () => {
      const cases: [string, unknown][] = [
        ['"500"', "500"],
        ["a BigInt", 500n],
        ["undefined", undefined],
        ["an object", { ms: 5 }],
      ];
      let calls = 0;
      const network = () => (calls++, Promise.reject(new TypeError("down")));
      for (const [shown, value] of cases) {
        const fetches = [["/busy", undefined], ["/x", network]] as const;
        for (const [path, fetch] of fetches) {
          const grab = createGrab(server.url, {
            ...(fetch === undefined ? {} : { fetch }),
            retry: { backoff: () => value as number },
          });
          const error = await assertRejects(
            () => grab(`GET ${path}` as "GET /x"),
            GrabValidationError,
          );
          const wanted = shown === "undefined" ? "nothing" : shown;
          // As the options' own issues: named in the message, and a `path`
          // of "" (a path is a pointer into the body).
          assertEquals(error.issues, [{
            path: "",
            message:
              `Cannot use the option "retry.backoff": it must return a number of milliseconds, and it returned ${wanted}`,
          }]);
        }
      }
      assertEquals(calls, cases.length);
    },
  );

  await t.step(
    "an async backoff rejects with the issue, its own failure not left unhandled",
    async () => {
      const network = () => Promise.reject(new TypeError("down"));
      const backoffs = [
        () => Promise.resolve(5),
        () => Promise.reject(new Error("backoff bug")),
        // A thenable whose `then` throws is left alone as well.
        () => ({
          then: () => {
            throw new Error("then bug");
          },
        }),
      ];
      for (const backoff of backoffs) {
        for (const [path, fetch] of [["/busy"], ["/x", network]] as const) {
          const grab = createGrab(server.url, {
            ...(fetch === undefined ? {} : { fetch }),
            retry: { backoff: backoff as unknown as () => number },
          });
          const error = await assertRejects(
            () => grab(`GET ${path}` as "GET /x"),
            GrabValidationError,
          );
          assertEquals(error.issues, [{
            path: "",
            message:
              `Cannot use the option "retry.backoff": it must return a number of milliseconds, and it returned a Promise, which is not awaited: give the number itself`,
          }]);
        }
      }
      // A rejection left unhandled fails the test once the macrotask runs.
      await new Promise((resolve) => setTimeout(resolve, 0));
    },
  );

  await t.step("a body whose cancel never settles: HEAD and 204", async () => {
    for (const status of [200, 204]) {
      const grab = createGrab(server.url, {
        timeout: false,
        fetch: () =>
          Promise.resolve(
            new Response(status === 204 ? null : deafBody(), { status }),
          ),
      });
      const method = status === 204 ? "GET" : "HEAD";
      assertOk(await settles(grab(`${method} /x` as "GET /x")));
    }
  });

  await t.step(
    "a 503 whose cancel never settles is still retried",
    async () => {
      let calls = 0;
      const grab = createGrab(server.url, {
        retry: { limit: 1, backoff: () => 0 },
        fetch: () => {
          calls++;
          return Promise.resolve(
            calls === 1
              ? new Response(deafBody(), { status: 503 })
              : Response.json({ ok: true }),
          );
        },
      });
      assertEquals(assertOk(await settles(grab("GET /x"))), { ok: true });
      assertEquals(calls, 2);
    },
  );

  await t.step("a body that produces chunks without yielding", async () => {
    const endless = () =>
      new ReadableStream<Uint8Array>({
        pull(controller) {
          controller.enqueue(new Uint8Array(1024).fill(32));
        },
      });
    const grab = createGrab(server.url, {
      timeout: 200,
      maxBodyBytes: 2 ** 40,
      fetch: () => Promise.resolve(new Response(endless())),
    });
    assertTransport(await settles(grab("GET /x")), "timeout");
  });

  await t.step("a fetch that resolves to something else", async () => {
    for (
      const value of [undefined, {}, { status: NaN, headers: new Headers() }]
    ) {
      const grab = createGrab(server.url, {
        retry: 0,
        fetch: () => Promise.resolve(value as unknown as Response),
      });
      assertTransport(await settles(grab("GET /x")), "network");
    }
  });
});

Deno.test("options of the wrong shape are validation errors", async (t) => {
  await using server = startServer(() => json({ ok: true }));
  const grab = createGrab(server.url, { retry: 0 });
  const send = (options: unknown) => grab("GET /x", options as GrabCallOptions);

  await t.step("trustedOrigins that is not an array", async () => {
    for (const trustedOrigins of ["https://a.test", {}]) {
      await assertValidation(
        () =>
          createGrab(server.url, {
            trustedOrigins,
          } as unknown as GrabOptions),
        "trustedOrigins",
      );
      assertThrows(
        () =>
          createGrab(server.url, {
            trustedOrigins,
          } as unknown as GrabOptions),
        GrabValidationError,
        'Cannot create the grab: 1 problem in the options (Cannot use the option "trustedOrigins": it must be an array of origins such as "https://cdn.example.com")',
      );
    }
  });

  await t.step("a schema that is not a Standard Schema", async () => {
    for (const schema of [1, {}, { "~standard": {} }]) {
      await assertValidation(() => send({ schema }), "schema");
    }
    assertEquals(server.requests.length, 0);
  });

  await t.step("a string where an object belongs", async () => {
    await assertValidation(() => send({ headers: "abc" }), "headers");
    await assertValidation(() => send({ query: "a=b" }), "query");
    await assertValidation(() => send({ params: "x" }), "params");
    await assertValidation(() => send({ jsonApi: { ext: "x" } }), "jsonApi");
    await assertValidation(
      () => send({ retry: { methods: [1], statusCodes: ["500"] } }),
      "retry.methods",
    );
    assertEquals(server.requests.length, 0);
  });

  await t.step("a function in the query", async () => {
    await assertValidation(() => send({ query: { f: (x: number) => x + 1 } }));
    assertEquals(server.requests.length, 0);
  });

  await t.step("getters that throw, on the options and inside", async () => {
    const boom = () => {
      throw new Error("getter bug");
    };
    await assertValidation(() =>
      send(
        Object.defineProperty({}, "timeout", { get: boom, enumerable: true }),
      )
    );
    await assertValidation(() =>
      send({
        headers: Object.defineProperty({}, "x-a", {
          get: boom,
          enumerable: true,
        }),
      })
    );
    await assertValidation(() =>
      new Call("GET /x", server.url).send(
        Object.defineProperty({}, "retry", { get: boom, enumerable: true }),
      )
    );
    await assertValidation(() =>
      createGrab(
        server.url,
        Object.defineProperty({}, "hooks", { get: boom, enumerable: true }),
      )
    );
    assertEquals(server.requests.length, 0);
  });

  await t.step("a getter that changes its answer is read once", async () => {
    let reads = 0;
    const options = Object.defineProperty({}, "timeout", {
      get: () => (reads++ === 0 ? 5_000 : -1),
      enumerable: true,
    });
    assertOk(await send(options));
    assertEquals(reads, 1);
  });

  await t.step("headers from a Map are sent", async () => {
    const before = server.requests.length;
    assertOk(await send({ headers: new Map([["x-from-map", "yes"]]) }));
    assertEquals(server.requests[before]!.headers.get("x-from-map"), "yes");
  });
});

Deno.test("paginate fails on a next link it cannot send", async (t) => {
  for (
    const [name, next] of [
      ["credentials", "http://user:pw@127.0.0.1:1/items?page=2"],
      ["a colon segment", "/items/:cursor"],
    ] as const
  ) {
    await t.step(`a next link with ${name}`, async () => {
      await using server = startServer(() =>
        json([1], { headers: { link: `<${next}>; rel="next"` } })
      );
      const grab = createGrab(server.url, { retry: 0 });
      const pages: unknown[] = [];
      const error = await assertRejects(async () => {
        for await (const [data] of paginate(grab, "GET /items")) {
          pages.push(data);
        }
      });
      assertInstanceOf(error, GrabTransportError);
      assertEquals(error.kind, "parse");
      assertEquals(pages, [[1]]);
      assertEquals(server.requests.length, 1);
    });
  }
});

/** One page whose next link is `next`: a `Link` header, or `links.next`. */
function pageServer(format: "json" | "json-api", next: unknown) {
  return startServer(() =>
    format === "json"
      ? json([1], { headers: { link: `<${next}>; rel="next"` } })
      : json({ data: [], links: { next } }, {
        headers: { "content-type": "application/vnd.api+json" },
      })
  );
}

Deno.test("paginate fails on a next link it cannot follow, never taking it for the last page", async (t) => {
  const cases: [string, "json" | "json-api", unknown, string][] = [
    ["a javascript: Link", "json", "javascript:alert(1)", "not an http"],
    ["a data: Link", "json", "data:application/json,[2]", "not an http"],
    ["a file: Link", "json", "file:///etc/passwd", "not an http"],
    ["a Link that is no URL", "json", "http://[::1", "not a valid"],
    ["a javascript: links.next", "json-api", "javascript:x", "not an http"],
    ["an ftp: link object", "json-api", { href: "ftp://x/2" }, "not an http"],
    ["a links.next that is no URL", "json-api", "http://[::1", "not a valid"],
    ["a links.next number", "json-api", 2, "neither a URL"],
    ["a link object without href", "json-api", { meta: {} }, "neither a URL"],
    [
      "a link object whose href is no string",
      "json-api",
      { href: 2 },
      "neither",
    ],
    ["a links.next array", "json-api", ["/items?page=2"], "neither a URL"],
  ];
  for (const [name, format, next, reason] of cases) {
    await t.step(name, async () => {
      await using server = pageServer(format, next);
      const grab = createGrab(server.url, { retry: 0, format });
      let pages = 0;
      const error = await assertRejects(async () => {
        for await (const _ of paginate(grab, "GET /items?key=K")) pages++;
      });
      assertInstanceOf(error, GrabTransportError);
      assertEquals(error.kind, "parse");
      assert(
        error.message.startsWith("Cannot follow the next link: "),
        error.message,
      );
      assert(error.message.includes(reason), error.message);
      assert(!error.message.includes("key="), error.message);
      assertEquals([pages, server.requests.length], [1, 1]);
    });
  }

  await t.step(
    "a next link after the last page asked for is neither read nor refused",
    async () => {
      const unsendable: [string, "json" | "json-api", unknown][] = [
        ["credentials", "json", "http://user:pw@127.0.0.1:1/items?page=2"],
        ["a colon segment", "json", "/items/:cursor"],
      ];
      for (const [name, format, next] of [...cases, ...unsendable]) {
        await using server = pageServer(format, next);
        const grab = createGrab(server.url, { retry: 0, format });
        let pages = 0;
        for await (const _ of paginate(grab, "GET /items", { limit: 1 })) {
          pages++;
        }
        assertEquals([pages, server.requests.length], [1, 1], name);
      }
    },
  );

  await t.step("a links.next null or empty is the last page", async () => {
    for (const next of [null, "", { href: "" }]) {
      await using server = pageServer("json-api", next);
      const grab = createGrab(server.url, { retry: 0, format: "json-api" });
      let pages = 0;
      for await (const _ of paginate(grab, "GET /items")) pages++;
      assertEquals(pages, 1);
    }
  });
});

Deno.test("a non-2xx status beats a body that never ends", async () => {
  const grab = createGrab("http://api.test", {
    timeout: 200,
    retry: 0,
    fetch: () => Promise.resolve(new Response(deafBody(), { status: 502 })),
  });
  const error = assertHttp(await settles(grab("GET /x")), 502);
  assertStrictEquals(error.body, null);
  // Why the body is null: the time ran out while it was read.
  assertStrictEquals((error.cause as GrabTransportError).kind, "timeout");
});

Deno.test("a platform response whose body methods a custom fetch made answer at once is read, and the grab never rejects", async () => {
  await using server = startServer(() => new Response("abc"));
  const bytes = new TextEncoder().encode("abc");
  // The platform's own response, its methods replaced on the object: it
  // still passes for the platform's, and with `timeout: false` it is read
  // by its own methods rather than as a stream.
  const grab = createGrab(server.url, {
    retry: 0,
    timeout: false,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      const done = () => void response.body?.cancel();
      return Object.assign(response, {
        text: () => (done(), "abc"),
        bytes: () => (done(), bytes),
        arrayBuffer: () => (done(), bytes.buffer),
      });
    },
  });
  assertEquals(
    assertOk(await settles(grab("GET /x", { responseType: "text" }))),
    "abc",
  );
  assertEquals(
    assertOk(await settles(grab("GET /x", { responseType: "bytes" }))),
    bytes,
  );
  const blob = assertOk(
    await settles(grab("GET /x", { responseType: "blob" })),
  );
  assertInstanceOf(blob, Blob);
  assertEquals(await blob.text(), "abc");
});

Deno.test("a platform response dressed by a custom fetch is read as the platform reads it, under the cap", async (t) => {
  await using server = startServer(chunkedOrShort);
  // The platform's own response with own properties put on it: it still
  // passes for the platform's, and with `timeout: false` it would be read
  // by whatever stands in for its headers and reads.
  const grabWith = (dress: Record<string, unknown>) =>
    createGrab(server.url, {
      retry: 0,
      timeout: false,
      maxBodyBytes: 10,
      fetch: async (input, init) => dressed(await fetch(input, init), dress),
    });

  await t.step("headers that claim a short length: the cap holds", async () => {
    const grab = grabWith({
      headers: new Headers({ "content-length": "3" }),
    });
    for (const responseType of ["json", "text", "bytes"] as const) {
      assertTransport(
        await settles(grab("GET /chunked", { responseType })),
        "too-large",
      );
    }
  });

  await t.step(
    "reads that answer something else: the body as sent",
    async () => {
      const grab = grabWith({
        text: () => BIG,
        bytes: 1,
        arrayBuffer: () => 1e9,
        body: ReadableStream.from([new TextEncoder().encode(BIG)]),
      });
      assertEquals(
        assertOk(await settles(grab("GET /x", { responseType: "text" }))),
        "abc",
      );
      assertEquals(
        assertOk(await settles(grab("GET /x", { responseType: "bytes" }))),
        new TextEncoder().encode("abc"),
      );
      const blob = assertOk(
        await settles(grab("GET /x", { responseType: "blob" })),
      );
      assertInstanceOf(blob, Blob);
      assertEquals(await blob.text(), "abc");
      // With a timeout the body is read as a stream: the platform's own.
      const timed = createGrab(server.url, {
        retry: 0,
        maxBodyBytes: 10,
        fetch: async (input, init) =>
          dressed(await fetch(input, init), {
            body: ReadableStream.from([new TextEncoder().encode(BIG)]),
          }),
      });
      assertEquals(
        assertOk(await settles(timed("GET /x", { responseType: "text" }))),
        "abc",
      );
    },
  );
});

/** `response` with own properties over its `Response` members. */
function dressed(response: Response, own: Record<string, unknown>): Response {
  for (const [name, value] of Object.entries(own)) {
    Object.defineProperty(response, name, { value, configurable: true });
  }
  return response;
}

Deno.test("a platform response dressed with a body whose cancel never settles: its own body is cancelled, and the grab settles", async () => {
  await using server = startServer((_request, seen) =>
    seen.url.pathname === "/empty"
      ? new Response(null, { status: 204 })
      : new Response("x".repeat(1000))
  );
  // The own `body` stands in for the platform's: were it the one cancelled,
  // the platform's body would stay open, and the cancel be waited for ever.
  const BODY = Object.getOwnPropertyDescriptor(Response.prototype, "body")!
    .get!;
  const fetched: Response[] = [];
  const grab = createGrab(server.url, {
    retry: 0,
    timeout: 2000,
    maxBodyBytes: 10,
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      fetched.push(response);
      return dressed(response, {
        body: new ReadableStream({ cancel: () => new Promise(() => {}) }),
      });
    },
  });
  // Over the cap by its Content-Length, and empty by its status.
  assertTransport(await settles(grab("GET /big")), "too-large");
  assertEquals(assertOk(await settles(grab("GET /empty"))), null);
  assertEquals(fetched.length, 2);
  for (const response of fetched) {
    const body = BODY.call(response);
    if (body === null) continue;
    // Cancelled: nothing left to read.
    const reader = body.getReader();
    // (A read that fails: the body was left open until the timeout ended it.)
    const { done } = await reader.read().catch(() => ({ done: false }));
    await reader.cancel().catch(() => {});
    assert(done, "the platform's body was left open");
  }
});

Deno.test("a Proxy around a platform response cannot get past maxBodyBytes or the timeout", async (t) => {
  // Deno's and Node's `Response` members pass a Proxy's brand check and read
  // the response's internals through its traps: the Proxy passes for a
  // platform response, yet answers what it likes.
  await using server = startServer(chunkedOrShort);
  const HEADERS = Object.getOwnPropertyDescriptor(
    Response.prototype,
    "headers",
  )!
    .get!;
  const BODY = Object.getOwnPropertyDescriptor(Response.prototype, "body")!
    .get!;
  /** The platform's own streams a disguise swapped, cancelled by `release`. */
  const swapped: ReadableStream<Uint8Array>[] = [];
  // A stream the grab's signal has errored since rejects its cancel.
  const release = () =>
    Promise.all(swapped.splice(0).map((s) => s.cancel().catch(() => {})));
  /**
   * `response` behind a Proxy that swaps its headers, or its body stream
   * (the platform's own then left unread, so that the response does not
   * show a used body, and cancelled by `release` once the grab settled).
   */
  const disguised = (
    response: Response,
    swap: { headers?: Headers; stream?: ReadableStream<Uint8Array> },
  ): Response => {
    HEADERS.call(response); // made now, to be found in its slot
    const stream = BODY.call(response)!;
    if (swap.stream) swapped.push(stream);
    return new Proxy(response, {
      get(target, key) {
        const value = Reflect.get(target, key, target);
        if (swap.headers && value instanceof Headers) return swap.headers;
        if (
          swap.stream && typeof value === "object" && value !== null &&
          value !== stream && (value as { stream?: unknown }).stream === stream
        ) {
          // The body's slot, its stream swapped.
          return new Proxy(value, {
            get: (inner, name) =>
              name === "stream" ? swap.stream : Reflect.get(inner, name, inner),
          });
        }
        return value;
      },
    });
  };

  await t.step("headers that claim a short length: the cap holds", async () => {
    const fake = new Headers({ "content-length": "3" });
    const grab = createGrab(server.url, {
      retry: 0,
      timeout: false,
      maxBodyBytes: 10,
      fetch: async (input, init) => {
        const proxy = disguised(await fetch(input, init), {
          headers: fake,
        });
        // The attack is armed: the platform's getter answers the Proxy's.
        assertStrictEquals(HEADERS.call(proxy), fake);
        return proxy;
      },
    });
    for (const responseType of ["text", "bytes"] as const) {
      assertTransport(
        await settles(grab("GET /chunked", { responseType })),
        "too-large",
      );
    }
  });

  await t.step("chunks that lie about their size: the cap holds", async () => {
    class Liar extends Uint8Array {
      override get byteLength(): number {
        return 0;
      }
    }
    const grab = createGrab(server.url, {
      retry: 0,
      maxBodyBytes: 10,
      fetch: async (input, init) => {
        const lying = ReadableStream.from([new Liar(1000).fill(120)]);
        const proxy = disguised(await fetch(input, init), {
          stream: lying,
        });
        assertStrictEquals(BODY.call(proxy), lying);
        return proxy;
      },
    });
    assertTransport(
      await settles(grab("GET /x", { responseType: "text" })),
      "too-large",
    );
    await release();
  });

  await t.step("a cancel that never settles: the timeout holds", async () => {
    const grab = createGrab(server.url, {
      retry: 0,
      timeout: 300,
      maxBodyBytes: 10,
      fetch: async (input, init) => {
        const endless = new ReadableStream<Uint8Array>({
          pull: (controller) => controller.enqueue(new Uint8Array(100)),
          cancel: () => new Promise(() => {}),
        });
        return disguised(await fetch(input, init), { stream: endless });
      },
    });
    const [, error] = await settles(grab("GET /x", { responseType: "text" }));
    assertInstanceOf(error, GrabTransportError);
    // Over the cap, its cancel left to hang: the grab settled all the same.
    assertEquals(error.kind, "too-large");
    await release();
  });
});

/** 1,000 bytes of `x`. */
const BIG = "x".repeat(1000);

/**
 * A server's answer: at `/chunked` {@linkcode BIG} with no length (sent
 * chunked), anywhere else `abc` with its length.
 */
function chunkedOrShort(_request: Request, seen: { url: URL }): Response {
  return seen.url.pathname === "/chunked"
    ? new Response(ReadableStream.from([new TextEncoder().encode(BIG)]))
    : new Response("abc");
}

Deno.test("a server's text in an error's message is cut, and kept whole on the error", async (t) => {
  /** The views of an error that quote its message: none near the body's size. */
  function assertShort(error: Error): void {
    for (const text of [error.message, String(error), error.stack ?? ""]) {
      assert(text.length < 3_000, `${text.length} characters`);
    }
    const logged = JSON.parse(JSON.stringify(error));
    assert(logged.message.length < 3_000);
  }

  await t.step("one JSON:API detail of a megabyte", async () => {
    const detail = `at https://api.test/x?token=${SECRET} ${
      "x".repeat(1 << 20)
    }`;
    await using server = startServer(() =>
      json({ errors: [{ detail }] }, { status: 422 })
    );
    const grab = createGrab(server.url, { retry: 0 });
    const error = assertHttp(await settles(grab("GET /x")), 422);
    assertShort(error);
    assert(error.message.startsWith("at https://api.test/x?… xxx"));
    assert(error.message.endsWith("… (cut at 2000 characters)"));
    assertNoSecret(error);
    assertStrictEquals(error.errors?.[0]?.detail, detail);
  });

  await t.step("a hundred thousand JSON:API errors", async () => {
    const errors = Array.from({ length: 100_000 }, (_, i) => ({
      detail: `field ${i} is wrong`,
    }));
    await using server = startServer(() => json({ errors }, { status: 422 }));
    const grab = createGrab(server.url, { retry: 0 });
    const error = assertHttp(await settles(grab("GET /x")), 422);
    assertShort(error);
    assert(error.message.startsWith("field 0 is wrong; field 1 is wrong; "));
    assertEquals(error.errors?.length, 100_000);
  });

  await t.step("a reason phrase of 64 KB", async () => {
    // Deno's own client gives the standard phrase whatever the server sent;
    // a custom fetch (or a hook) gives what it likes.
    const statusText = "Bad ".repeat(16_384);
    const grab = createGrab("http://api.test", {
      retry: 0,
      fetch: () =>
        Promise.resolve(new Response(null, { status: 400, statusText })),
    });
    const error = assertHttp(await settles(grab("GET /x")), 400);
    assertShort(error);
    assert(error.message.startsWith("400 Bad Bad "));
    assert(
      error.message.endsWith("(cut at 2000 characters): GET http://api.test/x"),
    );
  });
});
