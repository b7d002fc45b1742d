import {
  assert,
  assertEquals,
  assertMatch,
  assertRejects,
  assertStrictEquals,
  assertStringIncludes,
  assertThrows,
  fail,
} from "@std/assert";
import { FakeTime } from "@std/testing/time";
import createGrab, {
  type GrabCallOptions,
  GrabError,
  GrabTransportError,
  GrabValidationError,
} from "../mod.ts";
import { closedPort, json, startServer } from "./_server.ts";
import { settle, until, watch } from "./_time.ts";

const NO_WAIT = { backoff: () => 0 };

Deno.test("createGrab() outcome table", async (t) => {
  await using server = startServer({
    "/ok": () => json({ id: 1, name: "Ada" }),
    "/created": () => json({ id: 2 }, { status: 201 }),
    "/no-content": () => new Response(null, { status: 204 }),
    "/reset-content": () => new Response(null, { status: 205 }),
    "/empty": () => new Response("", { status: 200 }),
    "/not-found": () => json({ message: "no such user" }, { status: 404 }),
    "/html-502": () =>
      new Response("<html><body>Bad gateway</body></html>", {
        status: 502,
        headers: { "content-type": "text/html" },
      }),
    "/empty-500": () => new Response(null, { status: 500 }),
    "/malformed": () =>
      new Response('{"id": 1,', {
        headers: { "content-type": "application/json" },
      }),
    "/text-200": () => new Response("plain words"),
    "/slow": (request) =>
      new Promise<Response>((resolve) => {
        request.signal.addEventListener("abort", () =>
          resolve(new Response("late")));
      }),
    "/huge": () => new Response("x".repeat(2048)),
    "/huge-stream": () => {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 64) return controller.close();
          sent++;
          controller.enqueue(new Uint8Array(1024).fill(32));
        },
      });
      return new Response(body);
    },
  });
  const grab = createGrab(server.url, { retry: { ...NO_WAIT, limit: 0 } });

  await t.step("2xx with a JSON body gives data and exact meta", async () => {
    const [data, error, meta] = await grab("GET /ok");
    assertStrictEquals(error, null);
    assertEquals(data, { id: 1, name: "Ada" });
    assertEquals(Object.keys(meta), ["statusCode", "headers"]);
    assertEquals(meta.statusCode, 200);
    assert(meta.headers instanceof Headers);
    assertEquals(meta.headers.get("content-type"), "application/json");
  });

  await t.step("201 is a success with its status", async () => {
    const [data, error, meta] = await grab("POST /created", {
      body: { name: "x" },
    });
    assertStrictEquals(error, null);
    assertEquals(data, { id: 2 });
    assertEquals(meta.statusCode, 201);
  });

  for (
    const [name, endpoint, status] of [
      ["204", "DELETE /no-content", 204],
      ["205", "PUT /reset-content", 205],
      ["an empty 200", "GET /empty", 200],
      ["HEAD", "HEAD /ok", 200],
    ] as const
  ) {
    await t.step(`${name} is a success with null data`, async () => {
      const [data, error, meta] = await grab(endpoint);
      assertStrictEquals(data, null);
      assertStrictEquals(error, null);
      assertEquals(Object.keys(meta), ["statusCode", "headers"]);
      assertStrictEquals(meta.statusCode, status);
    });
  }

  await t.step(
    "4xx with JSON is a GrabError with the parsed body",
    async () => {
      const [data, error, meta] = await grab("GET /not-found?token=secret");
      assertStrictEquals(data, null);
      assert(error instanceof GrabError);
      assertEquals(error.name, "GrabError");
      assertEquals(error.statusCode, 404);
      assertEquals(error.body, { message: "no such user" });
      assertEquals(error.method, "GET");
      assertEquals(error.url, `${server.url}/not-found`);
      assertEquals(
        error.message,
        `404 Not Found: GET ${server.url}/not-found`,
      );
      assertStrictEquals(error.errors, undefined);
      assertEquals("errors" in error, false);
      assertEquals(error.headers.get("content-type"), "application/json");
      assertEquals(meta, {});
      assert(Object.isFrozen(meta));
    },
  );

  await t.step("5xx with HTML keeps the text in body", async () => {
    const [data, error, meta] = await grab("GET /html-502");
    assertStrictEquals(data, null);
    assert(error instanceof GrabError);
    assertEquals(error.statusCode, 502);
    assertEquals(error.body, "<html><body>Bad gateway</body></html>");
    assertEquals(meta, {});
  });

  await t.step("a non-2xx empty body is null", async () => {
    const [, error] = await grab("GET /empty-500");
    assert(error instanceof GrabError);
    assertEquals(error.statusCode, 500);
    assertStrictEquals(error.body, null);
  });

  await t.step("malformed JSON in a 2xx is a parse error", async () => {
    const [data, error, meta] = await grab("GET /malformed");
    assertStrictEquals(data, null);
    assert(error instanceof GrabTransportError);
    assertEquals(error.kind, "parse");
    assert(error.cause instanceof SyntaxError);
    assertEquals(meta, { statusCode: 0 });
  });

  await t.step("a 2xx body that is not JSON is a parse error", async () => {
    const [, error] = await grab("GET /text-200");
    assert(error instanceof GrabTransportError);
    assertEquals(error.kind, "parse");
  });

  const slowSeen = () =>
    server.requests.filter((request) => request.url.pathname === "/slow")
      .length;

  await t.step("the timeout gives kind timeout", async () => {
    using time = new FakeTime();
    const before = slowSeen();
    const result = watch(grab("GET /slow", { timeout: 20 }));
    await until(time, () => slowSeen() === before + 1, "the request");
    await time.tickAsync(19);
    assertEquals(result.settled, false);
    await time.tickAsync(1);
    const [data, error, meta] = await settle(time, result);
    assertStrictEquals(data, null);
    assert(error instanceof GrabTransportError);
    assertEquals(error.kind, "timeout");
    assertEquals(error.method, "GET");
    assertEquals(error.url, `${server.url}/slow`);
    assertEquals(meta, { statusCode: 0 });
  });

  await t.step("aborting the signal gives kind abort", async () => {
    using time = new FakeTime();
    const before = slowSeen();
    const controller = new AbortController();
    const result = watch(grab("GET /slow", { signal: controller.signal }));
    setTimeout(() => controller.abort(), 10);
    await until(time, () => slowSeen() === before + 1, "the request");
    await time.tickAsync(9);
    assertEquals(result.settled, false);
    await time.tickAsync(1);
    const [, error, meta] = await settle(time, result);
    assert(error instanceof GrabTransportError);
    assertEquals(error.kind, "abort");
    assertEquals(meta, { statusCode: 0 });
  });

  await t.step("an already aborted signal sends nothing", async () => {
    const before = server.requests.length;
    const [, error] = await grab("GET /ok", { signal: AbortSignal.abort() });
    assert(error instanceof GrabTransportError);
    assertEquals(error.kind, "abort");
    assertStrictEquals(server.requests.length, before);
  });

  await t.step("a body over maxBodyBytes is too-large", async () => {
    const [, declared] = await grab("GET /huge", { maxBodyBytes: 1024 });
    assert(declared instanceof GrabTransportError);
    assertEquals(declared.kind, "too-large");
    const [, streamed] = await grab("GET /huge-stream", {
      maxBodyBytes: 4096,
    });
    assert(streamed instanceof GrabTransportError);
    assertEquals(streamed.kind, "too-large");
    // Each says the cap and what to do about it.
    const told =
      ' is over maxBodyBytes (BYTES bytes); raise maxBodyBytes, or read it with responseType "stream": GET ';
    assertStringIncludes(declared.message, told.replace("BYTES", "1024"));
    assertStringIncludes(streamed.message, told.replace("BYTES", "4096"));
    const [, unlimited] = await grab("GET /huge", { maxBodyBytes: Infinity });
    assert(unlimited instanceof GrabTransportError);
    assertEquals(unlimited.kind, "parse");
  });

  await t.step("a closed port is a network error", async () => {
    const port = closedPort();
    const [data, error, meta] = await grab(
      `GET http://127.0.0.1:${port}/nothing`,
    );
    assertStrictEquals(data, null);
    assert(error instanceof GrabTransportError);
    assertEquals(error.kind, "network");
    assert(error.cause !== undefined);
    assertEquals(meta, { statusCode: 0 });
  });
});

Deno.test("createGrab() validation before any request", async (t) => {
  await using server = startServer(() => json({}));
  const grab = createGrab(server.url);
  const cases: [string, () => Promise<unknown>, string][] = [
    [
      "a malformed endpoint",
      () => grab("GET" as "GET /"),
      'Cannot parse the endpoint: expected "<METHOD> <target>" such as "GET /users"',
    ],
    [
      "a lower-case method",
      () => grab("get /users" as "GET /users"),
      'Cannot use the method "get": methods are upper case, write "GET"',
    ],
    [
      "an unknown method",
      () => grab("FETCH /users" as "GET /users"),
      'Cannot use the method "FETCH": use GET, HEAD, POST, PUT, DELETE, OPTIONS or PATCH',
    ],
    [
      "a target that is neither absolute nor /-relative",
      () => grab("GET users" as "GET /users"),
      'Cannot use the target: expected an absolute "http://" or "https://" URL or a path starting with "/"',
    ],
    [
      "a relative target without a base address",
      () => createGrab()("GET /users"),
      "Cannot resolve the relative target: no base address was given",
    ],
    [
      "a missing path parameter",
      () => grab("GET /users/:id", {} as { params: { id: string } }),
      'Cannot fill path parameter "id": value is missing',
    ],
    [
      "URL userinfo",
      () => grab("GET http://user:pass@127.0.0.1/x"),
      "Cannot use the target: it holds credentials; send them in a header",
    ],
    [
      "CONNECT",
      () => grab("CONNECT /x"),
      'Cannot use the method "CONNECT": fetch does not allow it on any runtime',
    ],
    [
      "TRACE",
      () => grab("TRACE /x"),
      'Cannot use the method "TRACE": fetch does not allow it on any runtime',
    ],
    [
      "CR LF in a header value",
      () => grab("GET /x", { headers: { "x-a": "one\r\nx-b: two" } }),
      'Cannot send header "x-a": its value contains CR, LF or NUL',
    ],
    [
      "NUL in a header value",
      () => grab("GET /x", { headers: [["x-a", "a\0b"]] }),
      'Cannot send header "x-a": its value contains CR, LF or NUL',
    ],
    [
      "a bad header name",
      () => grab("GET /x", { headers: { "x a\r\n": "v" } }),
      "Cannot send a header: its name is not a valid HTTP token",
    ],
    [
      "a body on GET",
      () => grab("GET /x", { body: { a: 1 } }),
      "Cannot send a body with GET: fetch does not allow it",
    ],
  ];
  for (const [name, run, message] of cases) {
    await t.step(`rejects ${name}`, async () => {
      const error = await assertRejects(run, GrabValidationError);
      assertEquals(error.name, "GrabValidationError");
      assertEquals(error.issues.map((issue) => issue.message), [message]);
      assert(!String(error).includes("pass"));
      assertEquals(server.requests.length, 0);
    });
  }

  const bodies: [string, unknown, { path: string; message: string }[]][] = [
    ["a BigInt", { total: 10n }, [{
      path: "/total",
      message: 'Cannot serialise "/total" as JSON: value is a BigInt',
    }]],
    ["a function", { run() {} }, [{
      path: "/run",
      message: 'Cannot serialise "/run" as JSON: value is a function',
    }]],
    ["NaN and Infinity", { a: NaN, b: [Infinity] }, [
      { path: "/a", message: 'Cannot serialise "/a" as JSON: value is NaN' },
      {
        path: "/b/0",
        message: 'Cannot serialise "/b/0" as JSON: value is Infinity',
      },
    ]],
  ];
  for (const [name, body, issues] of bodies) {
    await t.step(`rejects a body with ${name}`, async () => {
      const error = await assertRejects(
        () => grab("POST /x", { body }),
        GrabValidationError,
      );
      assertEquals(error.issues, issues);
      assertEquals(server.requests.length, 0);
    });
  }

  await t.step("rejects a circular body", async () => {
    const body: Record<string, unknown> = { a: 1 };
    body["self"] = body;
    const error = await assertRejects(
      () => grab("POST /x", { body }),
      GrabValidationError,
    );
    assertEquals(error.issues.map((issue) => issue.path), ["/self"]);
    assertEquals(server.requests.length, 0);
  });

  await t.step("createGrab throws on a bad static header", () => {
    assertThrows(
      () => createGrab(server.url, { headers: { "x-a": "a\nb" } }),
      GrabValidationError,
    );
  });

  await t.step("createGrab throws on a base address with userinfo", () => {
    const error = assertThrows(
      () => createGrab("https://user:secret@api.test"),
      GrabValidationError,
    );
    assert(!error.message.includes("secret"));
  });

  await t.step(
    "createGrab given an empty base address says so, and sends nowhere",
    () => {
      // An unset variable read as `env.API ?? ""`: no base at all would send
      // the factory's headers to every origin.
      assertThrows(
        () => createGrab("", { headers: { authorization: "Bearer T" } }),
        GrabValidationError,
        'Cannot use the base address: it is empty; write it in full, such as "https://api.example.com"',
      );
    },
  );

  await t.step(
    "createGrab given its options first says where they go",
    () => {
      const options = { baseURL: server.url } as unknown as string;
      assertThrows(
        () => createGrab(options),
        GrabValidationError,
        "Cannot use the base address: it must be a string or a URL, not an object (createGrab takes the options as its second argument)",
      );
    },
  );

  await t.step("a header function that gives CR LF rejects", async () => {
    const bad = createGrab(server.url, {
      headers: () => ({ authorization: "a\r\nb" }),
    });
    await assertRejects(
      () => bad("GET /x?token=s3cret"),
      GrabValidationError,
      `Cannot send GET ${server.url}/x: 1 problem in the headers (Cannot send header "authorization": its value contains CR, LF or NUL)`,
    );
    assertEquals(server.requests.length, 0);
  });
});

Deno.test("createGrab() requests", async (t) => {
  await using server = startServer((_request, seen) =>
    json({
      method: seen.method,
      path: seen.url.pathname,
      query: seen.url.search,
      body: seen.body,
      headers: Object.fromEntries(seen.headers),
    })
  );

  await t.step("keeps the base path with or without a trailing /", async () => {
    for (const base of [`${server.url}/v1`, `${server.url}/v1/`]) {
      const [data] = await createGrab(base)<{ path: string }>("GET /users");
      assertEquals(data?.path, "/v1/users");
    }
  });

  await t.step("an absolute target ignores the base", async () => {
    const grab = createGrab("https://unused.invalid/v1");
    const [data] = await grab<{ path: string }>(`GET ${server.url}/abs`);
    assertEquals(data?.path, "/abs");
  });

  await t.step("fills and encodes path parameters", async () => {
    const grab = createGrab(server.url);
    const [data] = await grab("GET /users/:id/posts/:post", {
      params: { id: "a b/c", post: 7 },
    });
    assertEquals(
      (data as { path: string }).path,
      "/users/a%20b%2Fc/posts/7",
    );
  });

  await t.step("keeps a :name in the base path as written", async () => {
    // Only the endpoint's own :name segments are parameters, as the types
    // have them: the base's path is sent as it is, and `params` for it is
    // refused as any parameter no segment takes.
    const grab = createGrab(`${server.url}/:tenant/v1`, { retry: 0 });
    const [data, error] = await grab<{ path: string }>("GET /users/:id", {
      params: { id: 7 },
    });
    if (error) fail(error.message);
    assertEquals(data.path, "/:tenant/v1/users/7");
    const options: GrabCallOptions = { params: { tenant: "acme" } };
    await assertRejects(
      () => grab("GET /users", options),
      GrabValidationError,
      `Cannot use path parameter "tenant": the base address's ":tenant" is kept as written; write the value into the base address, or the segment into the endpoint`,
    );
  });

  await t.step("merges the query with the target's own", async () => {
    const grab = createGrab(server.url);
    const [data] = await grab("GET /search?q=deno", {
      query: {
        tag: ["a", "b"],
        page: { size: 10, number: 2 },
        skip: undefined,
        none: null,
        on: true,
      },
    });
    assertEquals(
      (data as { query: string }).query,
      "?q=deno&tag=a&tag=b&page%5Bsize%5D=10&page%5Bnumber%5D=2&on=true",
    );
  });

  await t.step("keeps the base's query, before the target's own", async () => {
    const grab = createGrab(`${server.url}/v1?key=k%201&v=2#frag`);
    const [data] = await grab<{ path: string; query: string }>(
      "GET /search?q=deno",
      { query: { page: 3 } },
    );
    assertEquals(data?.path, "/v1/search");
    assertEquals(data?.query, "?key=k%201&v=2&q=deno&page=3");
    const [plain] = await grab<{ query: string }>("GET /users");
    assertEquals(plain?.query, "?key=k%201&v=2");
    // An absolute target takes nothing from the base.
    const [other] = await grab<{ query: string }>(`GET ${server.url}/abs`);
    assertEquals(other?.query, "");
  });

  await t.step("sends JSON with Content-Type and Accept", async () => {
    const grab = createGrab(server.url);
    const [data] = await grab<
      { headers: Record<string, string>; body: string }
    >(
      "POST /things",
      { body: { a: [1, "two"] } },
    );
    assertEquals(data?.body, '{"a":[1,"two"]}');
    assertEquals(data?.headers["content-type"], "application/json");
    assertEquals(data?.headers["accept"], "application/json");
  });

  const passThrough: [string, () => BodyInit, string, string | null][] = [
    ["a string", () => "raw text", "raw text", "text/plain;charset=UTF-8"],
    [
      "URLSearchParams",
      () => new URLSearchParams({ a: "1", b: "x y" }),
      "a=1&b=x+y",
      "application/x-www-form-urlencoded;charset=UTF-8",
    ],
    [
      "a Blob",
      () => new Blob(["blob!"], { type: "text/x-blob" }),
      "blob!",
      "text/x-blob",
    ],
    ["an ArrayBuffer", () => new TextEncoder().encode("ab").buffer, "ab", null],
    ["a typed array", () => new TextEncoder().encode("typed"), "typed", null],
    [
      "a ReadableStream",
      () =>
        new ReadableStream({
          start(controller) {
            controller.enqueue(new TextEncoder().encode("streamed"));
            controller.close();
          },
        }),
      "streamed",
      null,
    ],
  ];
  for (const [name, make, expected, type] of passThrough) {
    await t.step(`sends ${name} untouched`, async () => {
      const grab = createGrab(server.url);
      const [data, error] = await grab<
        { body: string; headers: Record<string, string> }
      >("POST /raw", { body: make() });
      assertStrictEquals(error, null);
      assertStrictEquals(data?.body, expected);
      assertStrictEquals(data?.headers["content-type"], type ?? undefined);
    });
  }

  await t.step("sends FormData untouched", async () => {
    const form = new FormData();
    form.set("field", "value");
    const [data] = await createGrab(server.url)<
      { body: string; headers: Record<string, string> }
    >("POST /form", { body: form });
    assertMatch(data!.headers["content-type"]!, /^multipart\/form-data/);
    assertMatch(data!.body, /name="field"\r\n\r\nvalue/);
  });

  await t.step("merges headers case-insensitively, call wins", async () => {
    const grab = createGrab(server.url, {
      headers: { "X-Team": "factory", "X-Only-Factory": "1" },
    });
    const [data] = await grab<{ headers: Record<string, string> }>("GET /h", {
      headers: { "x-team": "call", Accept: "text/plain" },
    });
    assertEquals(data?.headers["x-team"], "call");
    assertEquals(data?.headers["x-only-factory"], "1");
    assertEquals(data?.headers["accept"], "text/plain");
  });

  await t.step("calls an async header function per request", async () => {
    let calls = 0;
    const grab = createGrab(server.url, {
      headers: async () => {
        calls++;
        await Promise.resolve();
        return { authorization: `Bearer token-${calls}` };
      },
    });
    const [first] = await grab<{ headers: Record<string, string> }>("GET /a");
    const [second] = await grab<{ headers: Record<string, string> }>("GET /b");
    assertEquals(first?.headers["authorization"], "Bearer token-1");
    assertEquals(second?.headers["authorization"], "Bearer token-2");
  });

  await t.step("factory headers go only to the base origin", async () => {
    await using other = startServer((_request, seen) =>
      json({ auth: seen.headers.get("authorization") })
    );
    await using trustedServer = startServer((_request, seen) =>
      json({ auth: seen.headers.get("authorization") })
    );
    const grab = createGrab(server.url, {
      headers: { authorization: "Bearer secret" },
      trustedOrigins: [trustedServer.url],
    });
    const [foreign] = await grab<{ auth: string | null }>(
      `GET ${other.url}/x`,
      { headers: { "x-call": "1" } },
    );
    assertStrictEquals(foreign?.auth, null);
    const [trusted] = await grab<{ auth: string | null }>(
      `GET ${trustedServer.url}/x`,
    );
    assertEquals(trusted?.auth, "Bearer secret");
    const [own] = await grab<{ headers: Record<string, string> }>("GET /x");
    assertEquals(own?.headers["authorization"], "Bearer secret");
    const open = createGrab(undefined, {
      headers: { authorization: "Bearer everywhere" },
    });
    const [anywhere] = await open<{ auth: string | null }>(
      `GET ${other.url}/x`,
    );
    assertEquals(anywhere?.auth, "Bearer everywhere");
  });

  await t.step("uses a custom fetch", async () => {
    const seen: string[] = [];
    const grab = createGrab(server.url, {
      fetch: (input, init) => {
        seen.push(typeof input === "string" ? input : input.url);
        return fetch(input, init);
      },
    });
    const [, error] = await grab("GET /custom");
    assertStrictEquals(error, null);
    assertEquals(seen, [`${server.url}/custom`]);
  });

  await t.step("casing converts body and query keys, not values", async () => {
    const grab = createGrab(server.url, { casing: "camelCase" });
    const [data] = await grab("POST /cased", {
      body: { firstName: "Ada", nestedThing: [{ innerKey: "keepMe_Value" }] },
      query: { pageSize: 10, filter: { createdAt: "x" } },
    });
    const echoed = data as { body: string; query: string };
    assertEquals(JSON.parse(echoed.body), {
      first_name: "Ada",
      nested_thing: [{ inner_key: "keepMe_Value" }],
    });
    assertEquals(
      echoed.query,
      "?page_size=10&filter%5Bcreated_at%5D=x",
    );
  });

  await t.step(
    "casing converts response keys to the caller casing",
    async () => {
      await using snake = startServer(() =>
        json({ user_name: "ada", tag_list: [{ tag_id: 1 }] })
      );
      const grab = createGrab(snake.url, { casing: "camelCase" });
      const [data] = await grab("GET /x");
      assertEquals(data, { userName: "ada", tagList: [{ tagId: 1 }] });
      const kebab = createGrab(snake.url, {
        casing: "camelCase",
        wireCasing: "kebab-case",
      });
      const [again] = await kebab("GET /x");
      assertEquals(again, data);
    },
  );

  await t.step("wireCasing shapes the request body", async () => {
    const grab = createGrab(server.url, {
      casing: "camelCase",
      wireCasing: "kebab-case",
    });
    const [data] = await grab("POST /kebab", { body: { firstName: "Ada" } });
    assertEquals((data as { body: string }).body, '{"first-name":"Ada"}');
  });
});

Deno.test("createGrab() response safety", async (t) => {
  await using server = startServer({
    "/proto": () =>
      new Response(
        '{"__proto__": {"polluted": true}, "a": {"__proto__": {"polluted": 1}}}',
      ),
    "/secret": () => json({ error: "x" }, { status: 401 }),
  });

  await t.step("a __proto__ key never becomes a prototype", async () => {
    for (const casing of ["none", "camelCase"] as const) {
      const [data] = await createGrab(server.url, { casing })<
        Record<string, Record<string, unknown>>
      >("GET /proto");
      assert(data);
      assertStrictEquals(Object.getPrototypeOf(data), Object.prototype);
      assert(Object.hasOwn(data, "__proto__"));
      assertEquals(data["__proto__"], { polluted: true });
      // assertEquals does not tell Object.prototype from a null prototype.
      assertStrictEquals(
        Object.getPrototypeOf(data["__proto__"]),
        Object.prototype,
      );
      assertStrictEquals(data["polluted"], undefined);
      assert(Object.hasOwn(data["a"]!, "__proto__"));
      assertStrictEquals(
        ({} as Record<string, unknown>)["polluted"],
        undefined,
      );
    }
  });

  await t.step(
    "messages hold no userinfo, query or header values",
    async () => {
      const grab = createGrab(server.url, {
        headers: { authorization: "Bearer hunter2", cookie: "sid=hunter2" },
      });
      const [, error] = await grab("GET /secret?token=hunter2&x=1");
      assert(error instanceof GrabError);
      for (
        const text of [
          error.message,
          String(error),
          JSON.stringify(error),
          error.url,
        ]
      ) {
        assert(!text.includes("hunter2"), text);
        assert(!text.includes("token"), text);
      }
      const [, transport] = await grab(
        `GET http://127.0.0.1:${closedPort()}/x?token=hunter2`,
        { retry: 0 },
      );
      assert(transport instanceof GrabTransportError);
      assert(!String(transport).includes("hunter2"));
      assert(!JSON.stringify(transport).includes("hunter2"));
      // The platform's own error, kept as the cause, quotes the URL: redacted.
      assert(transport.cause instanceof Error);
      assert(!Deno.inspect(transport).includes("hunter2"));
    },
  );
});

Deno.test("createGrab() keeps the base address it was given, whatever happens to its URL object", async () => {
  await using server = startServer(() => json({}));
  const base = new URL(`${server.url}/v1?key=k`);
  const grab = createGrab(base, { retry: 0, timeout: 10_000 });
  await grab("GET /users");
  // The caller reuses the object: a grab already made and a new one alike
  // still go where the factory was pointed.
  base.pathname = "/v2";
  base.search = "?key=other";
  await grab("GET /users");
  await grab("GET /teams");
  assertEquals(
    server.requests.map(({ url }) => url.pathname + url.search),
    ["/v1/users?key=k", "/v1/users?key=k", "/v1/teams?key=k"],
  );
});
