import { assert, assertEquals, assertRejects } from "@std/assert";
import createGrab, { Call, isGrabTransportError, paginate } from "../mod.ts";
import { startServer } from "./_server.ts";

const N = 20;

/** An echo server: what it got, as JSON, after a short wait per request. */
function echo() {
  return startServer(async (request, seen) => {
    const wait = Number(seen.url.searchParams.get("wait") ?? "0");
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const seenBy = {
      method: request.method,
      path: seen.url.pathname,
      query: seen.url.search,
      x: seen.headers.get("x-n"),
      auth: seen.headers.get("authorization"),
      hooked: seen.headers.get("x-hooked"),
      body: seen.body,
    };
    // A JSON:API client gets what it saw as a resource's attributes.
    const jsonApi = seen.headers.get("accept")?.includes("vnd.api+json");
    const document = jsonApi
      ? { data: { type: "echo", id: "1", attributes: seenBy } }
      : seenBy;
    const headers = { "x-echo": seen.headers.get("x-n") ?? "" };
    return Response.json(document, { headers });
  });
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const key of Reflect.ownKeys(value)) {
      deepFreeze((value as Record<PropertyKey, unknown>)[key]);
    }
    Object.freeze(value);
  }
  return value;
}

Deno.test("one Call sent 20 times at once: each send gets its own answer", async () => {
  await using server = echo();
  const call = new Call(`POST ${server.url}/items/:id`);
  const outcomes = await Promise.all(
    Array.from({ length: N }, (_, i) =>
      call.send({
        params: { id: i },
        headers: { "x-n": String(i) },
        query: { n: i, wait: (N - i) * 2 },
        body: { n: i },
        retry: 0,
        timeout: 5_000,
      })),
  );
  outcomes.forEach((outcome, i) => {
    assert(outcome.ok);
    assertEquals(outcome.status, 200);
    const body = outcome.body as Record<string, unknown>;
    assertEquals(body.path, `/items/${i}`);
    assertEquals(body.x, String(i));
    assertEquals(body.query, `?n=${i}&wait=${(N - i) * 2}`);
    assertEquals(JSON.parse(body.body as string), { n: i });
    assertEquals(outcome.headers.get("x-echo"), String(i));
  });
  // Not aliased: changing one outcome changes no other.
  const [a, b] = outcomes;
  assert(a?.ok && b?.ok);
  assert(a.headers !== b.headers);
  (a.body as Record<string, unknown>).x = "changed";
  assertEquals((b.body as Record<string, unknown>).x, "1");
});

Deno.test("one Call: one send's signal or timeout ends only that send", async () => {
  await using server = echo();
  const call = new Call(`GET ${server.url}/slow`);
  const controller = new AbortController();
  const sends = Array.from({ length: N }, (_, i) =>
    call.send({
      query: { wait: i % 2 === 0 ? 200 : 0 },
      headers: { "x-n": String(i) },
      signal: i === 0 ? controller.signal : undefined,
      timeout: i === 2 ? 20 : 10_000,
      retry: 0,
    }));
  controller.abort();
  const outcomes = await Promise.all(sends);
  outcomes.forEach((outcome, i) => {
    if (i === 0) {
      assert(!outcome.ok);
      assertEquals(outcome.error.kind, "abort");
    } else if (i === 2) {
      assert(!outcome.ok);
      assertEquals(outcome.error.kind, "timeout");
    } else {
      assert(outcome.ok, `send ${i}`);
      assertEquals((outcome.body as Record<string, unknown>).x, String(i));
    }
  });
});

Deno.test("a stream body given to two sends of one Call", async () => {
  await using server = echo();
  const call = new Call(`POST ${server.url}/up`);
  const stream = ReadableStream.from([new TextEncoder().encode("once")]);
  const first = await call.send({ body: stream, retry: 0, timeout: 5_000 });
  assert(first.ok);
  assertEquals((first.body as Record<string, unknown>).body, "once");
  // The second send: a locked/used stream is refused before sending.
  await assertRejects(() =>
    call.send({ body: stream, retry: 0, timeout: 5_000 })
  );
});

Deno.test("a factory header function called by 20 grabs at once: each grab its own value", async () => {
  await using server = echo();
  let n = 0;
  const shapes = [
    (v: string) => ({ authorization: v }),
    (v: string) => new Headers({ authorization: v }),
    (v: string) => [["authorization", v]] as [string, string][],
  ];
  const api = createGrab(server.url, {
    headers: async () => {
      const mine = n++;
      await new Promise((r) => setTimeout(r, (N - mine) * 2));
      if (mine === 5) throw new Error("no token 5");
      return shapes[mine % 3]!(`t${mine}`);
    },
    retry: 0,
  });
  const grabs = Array.from(
    { length: N },
    (_, i) => api("GET /me", { headers: { "x-n": String(i) } }),
  );
  const settled = await Promise.allSettled(grabs);
  settled.forEach((s, i) => {
    if (i === 5) {
      assertEquals(s.status, "rejected");
      assertEquals((s as PromiseRejectedResult).reason.message, "no token 5");
      return;
    }
    assert(s.status === "fulfilled", `grab ${i}`);
    const [data, error] = s.value;
    assertEquals(error, null);
    assertEquals((data as Record<string, unknown>).auth, `t${i}`);
    assertEquals((data as Record<string, unknown>).x, String(i));
  });
});

Deno.test("a sync header function that throws fails only its own grab", async () => {
  await using server = echo();
  let n = 0;
  const api = createGrab(server.url, {
    headers: () => {
      const mine = n++;
      if (mine === 3) throw new Error("sync 3");
      return { authorization: `t${mine}` };
    },
    retry: 0,
  });
  const settled = await Promise.allSettled(
    Array.from({ length: N }, () => api("GET /me")),
  );
  settled.forEach((s, i) => {
    if (i === 3) {
      assertEquals(s.status, "rejected");
      assertEquals((s as PromiseRejectedResult).reason.message, "sync 3");
    } else {
      assert(s.status === "fulfilled");
      assertEquals((s.value[0] as Record<string, unknown>).auth, `t${i}`);
    }
  });
});

Deno.test("a header function that never settles is bounded by the timeout", async () => {
  await using server = echo();
  const api = createGrab(server.url, {
    headers: () => new Promise<HeadersInit>(() => {}),
    retry: 0,
    timeout: 30,
  });
  const results = await Promise.all(
    Array.from({ length: N }, () => api("GET /me")),
  );
  for (const [, error] of results) {
    assert(isGrabTransportError(error));
    assertEquals(error.kind, "timeout");
  }
});

Deno.test("factory hooks that mutate the request: no leak between concurrent grabs", async () => {
  await using server = echo();
  let count = 0;
  const api = createGrab(server.url, {
    retry: 0,
    hooks: {
      async beforeRequest(request) {
        const mine = ++count;
        await new Promise((r) => setTimeout(r, N - mine));
        request.headers.set(
          "x-hooked",
          `${request.headers.get("x-n")}:${mine}`,
        );
      },
    },
  });
  const shared = { "x-n": "caller" };
  const results = await Promise.all(
    Array.from(
      { length: N },
      (_, i) =>
        api("GET /h", { headers: i % 2 === 0 ? { "x-n": String(i) } : shared }),
    ),
  );
  assertEquals(shared, { "x-n": "caller" });
  assertEquals(count, N);
  const marks = new Set<string>();
  results.forEach(([data], i) => {
    const d = data as Record<string, unknown>;
    const x = i % 2 === 0 ? String(i) : "caller";
    assertEquals(d.x, x);
    assert(String(d.hooked).startsWith(`${x}:`));
    marks.add(String(d.hooked).split(":")[1]!);
  });
  assertEquals(marks.size, N);
});

Deno.test("one frozen options object reused by 20 grabs at once is not changed", async () => {
  await using server = echo();
  const controller = new AbortController();
  const options = deepFreeze({
    headers: { "x-n": "7", authorization: "Bearer a" },
    query: { page: { size: 10 }, tags: ["a", "b"] },
    body: { nested: { list: [1, 2, { deep: true }] } },
    params: { id: 3 },
    retry: { limit: 1, statusCodes: [503] },
    hooks: { beforeRequest: (_r: Request) => {} },
  });
  const before = JSON.stringify(options);
  for (const format of ["json", "json-api"] as const) {
    const api = createGrab(server.url, {
      format,
      headers: { "x-factory": "f" },
      hooks: {
        beforeRequest: (request) => request.headers.set("x-hooked", "1"),
      },
    });
    const results = await Promise.all(
      Array.from({ length: N }, () =>
        api("PUT /r/:id", {
          ...options,
          body: format === "json"
            ? options.body
            : { type: "r", id: "3", ...options.body },
          signal: controller.signal,
        })),
    );
    for (const [data, error] of results) {
      assertEquals(error, null);
      const d = data as Record<string, unknown>;
      assertEquals(d.x, "7");
      assertEquals(d.path, "/r/3");
    }
  }
  const call = new Call(`PUT ${server.url}/r/:id`);
  const outcomes = await Promise.all(
    Array.from({ length: N }, () => call.send(options)),
  );
  for (const o of outcomes) assert(o.ok);
  assertEquals(JSON.stringify(options), before);
});

Deno.test("options changed right after the call: each grab sends what they held at call time", async () => {
  await using server = echo();
  for (const format of ["json", "json-api"] as const) {
    const api = createGrab(server.url, {
      format,
      retry: 0,
      headers: () => Promise.resolve({ "x-f": "1" }),
    });
    const options = {
      headers: { "x-n": "0" } as Record<string, string>,
      query: { n: 0 } as Record<string, unknown>,
      body: { type: "t", id: "1", n: 0 } as Record<string, unknown>,
      params: { id: 0 },
    };
    const grabs = [];
    for (let i = 0; i < N; i++) {
      grabs.push(api("PATCH /p/:id", options));
      options.headers["x-n"] = String(i + 1);
      options.query.n = i + 1;
      options.body.n = i + 1;
      options.params.id = i + 1;
    }
    const results = await Promise.all(grabs);
    results.forEach(([data, error], i) => {
      assertEquals(error, null, `${format} ${i}`);
      const d = data as Record<string, unknown>;
      assertEquals(d.x, String(i), `${format} ${i}`);
      assertEquals(d.path, `/p/${i}`, `${format} ${i}`);
      assertEquals(d.query, `?n=${i}`, `${format} ${i}`);
      const sent = JSON.parse(d.body as string);
      assertEquals(
        format === "json" ? sent.n : sent.data.attributes.n,
        i,
        `${format} ${i}`,
      );
    });
  }
});

Deno.test("Call.send: options changed right after send() are not what is sent", async () => {
  await using server = echo();
  const call = new Call(`POST ${server.url}/p/:id`);
  const options = {
    headers: { "x-n": "0" } as Record<string, string>,
    query: { n: 0 } as Record<string, unknown>,
    body: { n: 0 } as Record<string, unknown>,
    params: { id: 0 },
    retry: 0,
  };
  const sends = [];
  for (let i = 0; i < N; i++) {
    sends.push(call.send(options));
    options.headers["x-n"] = String(i + 1);
    options.query.n = i + 1;
    options.body.n = i + 1;
    options.params.id = i + 1;
  }
  const outcomes = await Promise.all(sends);
  outcomes.forEach((o, i) => {
    assert(o.ok);
    const d = o.body as Record<string, unknown>;
    assertEquals(d.x, String(i));
    assertEquals(d.path, `/p/${i}`);
    assertEquals(d.query, `?n=${i}`);
    assertEquals(JSON.parse(d.body as string).n, i);
  });
});

Deno.test("bytes, search parameters and Headers changed right after the call are not what is sent", async () => {
  await using server = echo();
  const api = createGrab(server.url);
  for (const retry of [0, 2]) {
    const bytes = new TextEncoder().encode("aaaa");
    const search = new URLSearchParams({ n: "0" });
    const headers = new Headers({ "x-n": "0" });
    const form = new URLSearchParams({ f: "0" });
    const pending = api("PUT /b", {
      body: bytes,
      query: search,
      headers,
      retry,
    });
    bytes.fill(98);
    search.set("n", "1");
    headers.set("x-n", "1");
    const pending2 = api("PUT /f", { body: form, retry });
    form.set("f", "1");
    const [data] = await pending;
    const [data2] = await pending2;
    const d = data as Record<string, unknown>;
    assertEquals(
      [d.body, d.query, d.x],
      ["aaaa", "?n=0", "0"],
      `retry ${retry}`,
    );
    assertEquals(
      (data2 as Record<string, unknown>).body,
      "f=0",
      `retry ${retry}`,
    );
  }
});

Deno.test("paginate with one frozen options object sends it on every page", async () => {
  await using server = startServer((_request, seen) => {
    const page = Number(seen.url.searchParams.get("p") ?? "1");
    const next = page < 3
      ? `<${server.url}/list?p=${page + 1}>; rel="next"`
      : "";
    return Response.json([page, seen.headers.get("x-n")], {
      headers: next ? { link: next } : {},
    });
  });
  const api = createGrab(server.url);
  const options = deepFreeze({
    query: { p: 1, f: { a: [1, 2] } },
    headers: { "x-n": "7" },
    body: "x",
  });
  const pages = [];
  for await (const [data] of paginate(api, "POST /list", options as never)) {
    pages.push(data);
  }
  assertEquals(pages, [[1, "7"], [2, "7"], [3, "7"]]);
});

Deno.test("an abort during the header function, and per-send replacement Requests", async () => {
  await using server = echo();
  const api = createGrab(server.url, {
    headers: () =>
      new Promise<HeadersInit>((r) => setTimeout(() => r({ a: "1" }), 50)),
  });
  const c = new AbortController();
  const p = api("GET /x", { signal: c.signal });
  c.abort();
  const [, error] = await p;
  assert(isGrabTransportError(error));
  assertEquals(error.kind, "abort");
  await new Promise((r) => setTimeout(r, 60));
  const call = new Call(`GET ${server.url}/x`);
  const outs = await Promise.all(Array.from({ length: N }, (_, i) =>
    call.send({
      hooks: {
        beforeRequest: (req) => {
          const again = new Request(`${req.url}?i=${i}`, req);
          again.headers.set("x-n", String(i));
          return again;
        },
      },
    })));
  outs.forEach((o, i) => {
    assert(o.ok);
    const d = o.body as Record<string, unknown>;
    assertEquals([d.x, d.query], [String(i), `?i=${i}`]);
  });
});

Deno.test("a hook that appends a header sees a fresh request on every attempt of 20 grabs", async () => {
  const tries = new Map<string, number>();
  await using server = startServer((_request, seen) => {
    const n = seen.headers.get("x-n")!;
    const t = (tries.get(n) ?? 0) + 1;
    tries.set(n, t);
    if (t < 3) {
      return new Response("busy", {
        status: 503,
        headers: { "retry-after": "0" },
      });
    }
    return Response.json({ a: seen.headers.get("x-a"), body: seen.body, n });
  });
  let before = 0;
  let retries = 0;
  let after = 0;
  const api = createGrab(server.url, {
    retry: { limit: 2, backoff: () => 1 },
    hooks: {
      beforeRequest(request) {
        before++;
        request.headers.append("x-a", "1");
      },
      beforeRetry() {
        retries++;
      },
      afterResponse() {
        after++;
      },
    },
  });
  const results = await Promise.all(
    Array.from(
      { length: N },
      (_, i) => api("PUT /r", { headers: { "x-n": String(i) }, body: { i } }),
    ),
  );
  results.forEach(([data, error], i) => {
    assertEquals(error, null);
    assertEquals(data, { a: "1", body: JSON.stringify({ i }), n: String(i) });
  });
  assertEquals([before, retries, after], [3 * N, 2 * N, 3 * N]);
});

Deno.test("JSON:API results of 20 grabs share no objects", async () => {
  await using server = startServer(() =>
    new Response(
      JSON.stringify({
        data: {
          type: "a",
          id: "1",
          attributes: { t: "x", tags: ["p"] },
          relationships: { b: { data: { type: "b", id: "2" } } },
        },
        included: [{ type: "b", id: "2", attributes: { n: 1 } }],
        meta: { total: 1 },
        links: { self: "/a/1" },
      }),
      { headers: { "content-type": "application/vnd.api+json" } },
    )
  );
  const api = createGrab(server.url, {
    format: "json-api",
    casing: "camelCase",
  });
  const results = await Promise.all(
    Array.from({ length: N }, () => api("GET /a/1")),
  );
  interface Article {
    t: string;
    tags: string[];
    b: { n: number };
  }
  interface Meta {
    meta: { total: number };
    links: { self: string };
  }
  const [[d0, , m0], [d1, , m1]] = results as never as [
    [Article, null, Meta],
    [Article, null, Meta],
  ];
  d0.t = "changed";
  d0.tags.push("q");
  d0.b.n = 9;
  m0.meta.total = 5;
  m0.links.self = "no";
  assertEquals([d1.t, d1.tags, d1.b.n, m1.meta.total, m1.links.self], [
    "x",
    ["p"],
    1,
    1,
    "/a/1",
  ]);
  const call = new Call(`GET ${server.url}/a/1`);
  const outs = await Promise.all([
    call.send({ format: "json-api" }),
    call.send({ format: "json-api" }),
  ]);
  interface Raw {
    body: { data: { attributes: { t: string } }; meta: { total: number } };
  }
  const [o0, o1] = outs as never as [Raw, Raw];
  o0.body.data.attributes.t = "c";
  o0.body.meta.total = 3;
  assertEquals([o1.body.data.attributes.t, o1.body.meta.total], ["x", 1]);
});

Deno.test("a header function or hook that rejects after the timeout leaves nothing unhandled", async () => {
  await using server = echo();
  const api = createGrab(server.url, {
    headers: () =>
      new Promise<HeadersInit>((_, no) =>
        setTimeout(() => no(new Error("late")), 40)
      ),
    timeout: 10,
    retry: 0,
  });
  const rs = await Promise.all(Array.from({ length: N }, () => api("GET /x")));
  for (const [, e] of rs) assertEquals((e as { kind: string }).kind, "timeout");
  const api2 = createGrab(server.url, {
    timeout: 10,
    retry: 0,
    hooks: {
      beforeRequest: () =>
        new Promise((_, no) => setTimeout(() => no(new Error("late2")), 40)),
    },
  });
  const rs2 = await Promise.all(
    Array.from({ length: N }, () => api2("GET /x")),
  );
  for (const [, e] of rs2) {
    assertEquals((e as { kind: string }).kind, "timeout");
  }
  const call = new Call(`GET ${server.url}/x`);
  const rs3 = await Promise.all(Array.from({ length: N }, () =>
    call.send({
      timeout: 10,
      retry: 0,
      hooks: {
        afterResponse: () =>
          new Promise((_, no) => setTimeout(() => no(new Error("late3")), 40)),
      },
    })));
  for (const o of rs3) assertEquals(!o.ok && o.error.kind, "timeout");
  await new Promise((r) => setTimeout(r, 80));
});

Deno.test("a hook that fails once the timeout has passed, before its timer ran, times the grab out", async () => {
  await using server = echo();
  const api = createGrab(server.url, {
    timeout: 10,
    retry: 0,
    hooks: {
      // Holds the event loop past the timeout, so its timer has not run yet.
      beforeRequest: () => {
        const end = performance.now() + 50;
        while (performance.now() < end) { /* busy */ }
        return Promise.reject(new Error("late"));
      },
    },
  });
  const [, error] = await api("GET /x");
  assertEquals((error as { kind: string }).kind, "timeout");
});

Deno.test("a form, buffer, view or slice body changed right after the call is not what is sent", async () => {
  await using server = echo();
  const api = createGrab(server.url);
  for (const method of ["PUT", "POST"]) {
    for (const retry of [0, 2]) {
      const form = new FormData();
      form.set("f", "0");
      const buffer = new TextEncoder().encode("aaaa").buffer;
      const view = new DataView(new TextEncoder().encode("cccc").buffer);
      const slice = new Uint8Array(
        new TextEncoder().encode("xxeexx").buffer,
        2,
        2,
      );
      const p1 = api(`${method} /f` as "PUT /f", { body: form, retry });
      const p2 = api(`${method} /b` as "PUT /b", { body: buffer, retry });
      const p3 = api(`${method} /v` as "PUT /v", { body: view, retry });
      const p4 = api(`${method} /s` as "PUT /s", { body: slice, retry });
      form.set("f", "1");
      new Uint8Array(buffer).fill(98);
      view.setUint8(0, 100);
      slice.fill(102);
      const [[d1], [d2], [d3], [d4]] = await Promise.all([p1, p2, p3, p4]);
      const what = `${method} retry ${retry}`;
      assert(
        String((d1 as Record<string, unknown>).body).includes("\r\n\r\n0\r\n"),
        what,
      );
      assertEquals((d2 as Record<string, unknown>).body, "aaaa", what);
      assertEquals((d3 as Record<string, unknown>).body, "cccc", what);
      assertEquals((d4 as Record<string, unknown>).body, "ee", what);
    }
  }
});

Deno.test("one stream given to two grabs: the second one's failure leaves the first one's upload whole", async () => {
  await using server = echo();
  let n = 0;
  const api = createGrab(server.url, {
    retry: 0,
    headers: async () => {
      const mine = n++;
      await new Promise((r) => setTimeout(r, mine === 0 ? 1 : 30));
      if (mine === 1) throw new Error("no token");
      return {};
    },
  });
  const stream = ReadableStream.from((async function* () {
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 15));
      yield new TextEncoder().encode(String(i));
    }
  })());
  const a = api("POST /s", { body: stream });
  const b = api("POST /s", { body: stream }).then((x) => x, (e) => e);
  const [ra, rb] = await Promise.all([a, b]);
  assertEquals((rb as Error).message, "no token");
  assertEquals((ra[0] as Record<string, unknown>)?.body, "01234");
});

Deno.test("a header function is called once per grab; its retries carry its value", async () => {
  const tries = new Map<string, string[]>();
  await using server = startServer((_request, seen) => {
    const n = seen.headers.get("x-n")!;
    const seenAuth = tries.get(n) ?? [];
    seenAuth.push(seen.headers.get("authorization") ?? "");
    tries.set(n, seenAuth);
    if (seenAuth.length < 3) return new Response("busy", { status: 503 });
    return Response.json(seenAuth);
  });
  let calls = 0;
  const api = createGrab(server.url, {
    retry: { limit: 2, backoff: () => 1 },
    headers: () => ({ authorization: `t${calls++}` }),
  });
  const results = await Promise.all(
    Array.from(
      { length: N },
      (_, i) => api("GET /r", { headers: { "x-n": String(i) } }),
    ),
  );
  assertEquals(calls, N);
  const tokens = new Set<string>();
  for (const [data, error] of results) {
    assertEquals(error, null);
    const [first, ...rest] = data as string[];
    assertEquals(rest, [first, first]);
    tokens.add(first!);
  }
  assertEquals(tokens.size, N);
});
