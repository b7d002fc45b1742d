// deno-lint-ignore-file explicit-module-boundary-types -- plain JavaScript, shared with runtimes that run no TypeScript
/**
 * The conformance cases every runtime of the matrix runs: plain JavaScript
 * with no imports, so Deno, Node, Bun, Chromium and workerd load the same
 * file. Each case takes the module under test and the address of the API
 * server in `api_server.mjs`, and throws on a failure.
 *
 * The portability facts at the end of the contract each have a case:
 * a refused connection is kind "network" (workerd throws a plain `Error`),
 * a 204 is empty (Chromium gives it an empty, non-null body), TRACE and URL
 * userinfo are refused by grab itself (Bun and workerd accept TRACE), and
 * importing the module does no work (workerd forbids it at load time).
 *
 * @module
 */

/**
 * Imports the module with `fetch`, timers and random sources counted, and
 * returns the module and the number of calls the import made.
 *
 * @param {() => Promise<Record<string, unknown>>} load
 */
export async function importCounted(load) {
  const names = ["fetch", "setTimeout", "setInterval", "queueMicrotask"];
  const saved = {};
  let calls = 0;
  for (const name of names) {
    const original = globalThis[name];
    if (typeof original !== "function") continue;
    saved[name] = original;
    globalThis[name] = function (...args) {
      calls++;
      return original.apply(globalThis, args);
    };
  }
  const random = Math.random;
  Math.random = () => {
    calls++;
    return random();
  };
  try {
    const module = await load();
    return { module, calls };
  } finally {
    for (const [name, original] of Object.entries(saved)) {
      globalThis[name] = original;
    }
    Math.random = random;
  }
}

class CaseFailure extends Error {
  name = "CaseFailure";
}

function ok(condition, message) {
  if (!condition) throw new CaseFailure(message);
}

function same(actual, expected, label) {
  const a = JSON.stringify(actual);
  const e = JSON.stringify(expected);
  ok(a === e, `${label}: expected ${e}, got ${a}`);
}

async function rejectsWith(promise, name, label) {
  try {
    await promise;
  } catch (error) {
    ok(
      error?.name === name,
      `${label}: expected ${name}, got ${error?.name}: ${error?.message}`,
    );
    return error;
  }
  throw new CaseFailure(`${label}: expected ${name}, but it resolved`);
}

// A fetch that counts its calls: `count() === 0` proves a rejection came
// from grab's own checks, before any request.
function countingFetch() {
  let count = 0;
  const fetch = (input, init) => {
    count++;
    return globalThis.fetch(input, init);
  };
  return { fetch, count: () => count };
}

/**
 * The cases, in order: `[name, run]`, where `run({ mod, api, closedPort })`
 * throws a `CaseFailure` (or anything else) on failure.
 */
export const CASES = [
  ["success: 200 JSON gives [data, null, meta]", async ({ mod, api }) => {
    const grab = mod.createGrab(api);
    const [data, error, meta] = await grab("GET /users/:id", {
      params: { id: 1 },
    });
    same(error, null, "error");
    same(data, { id: 1, first_name: "Ada" }, "data");
    same(meta.statusCode, 200, "statusCode");
    ok(
      meta.headers.get("content-type")?.startsWith("application/json"),
      "meta.headers is the response Headers",
    );
  }],
  ["success: casing converts response keys", async ({ mod, api }) => {
    const grab = mod.default(api, { casing: "camelCase" });
    const [data] = await grab("GET /users/1");
    same(data, { id: 1, firstName: "Ada" }, "data");
  }],
  ["success: a native fetch passed as an option", async ({ mod, api }) => {
    // Browsers throw "Illegal invocation" when fetch is called as a method
    // of another object.
    const grab = mod.createGrab(api, { fetch: globalThis.fetch });
    const [data, error] = await grab("GET /users/1");
    same(error?.message ?? null, null, "error");
    same(data?.id, 1, "data.id");
  }],
  ["HTTP error: 404 is a GrabError, meta {} frozen", async ({ mod, api }) => {
    const grab = mod.createGrab(api);
    const [data, error, meta] = await grab("GET /users/2");
    same(data, null, "data");
    ok(error instanceof Error, "error is an Error");
    same(error.name, "GrabError", "name");
    same(error.statusCode, 404, "statusCode");
    same(error.body, { message: "no such user" }, "body");
    same(error.method, "GET", "method");
    ok(error.headers.get("content-type") !== null, "error.headers");
    ok(mod.isGrabHttpError(error), "isGrabHttpError");
    same(meta, {}, "meta");
    ok(Object.isFrozen(meta), "meta is frozen");
  }],
  ["HTTP error: a non-JSON 502 body is kept as text", async ({ mod, api }) => {
    const grab = mod.createGrab(api, { retry: 0 });
    const [, error] = await grab("GET /proxy-error");
    same(error?.statusCode, 502, "statusCode");
    same(error?.body, "<html>bad gateway</html>", "body");
  }],
  ["transport: a refused connection is kind network", async (context) => {
    const { mod, closedPort } = context;
    const grab = mod.createGrab(`http://127.0.0.1:${closedPort}`, {
      retry: 0,
    });
    const [data, error, meta] = await grab("GET /users/1?token=secret");
    same(data, null, "data");
    same(error?.name, "GrabTransportError", "name");
    same(error?.kind, "network", "kind");
    ok(error?.cause !== undefined, "cause is kept");
    same(meta, { statusCode: 0 }, "meta");
    ok(mod.isGrabTransportError(error), "isGrabTransportError");
    ok(!String(error).includes("secret"), "message has no query");
    ok(!String(error.url).includes("secret"), "url has no query");
  }],
  ["transport: a 2xx body that is not JSON is kind parse", async (c) => {
    const grab = c.mod.createGrab(c.api);
    const [data, error, meta] = await grab("GET /html");
    same(data, null, "data");
    same(error?.kind, "parse", "kind");
    same(meta, { statusCode: 0 }, "meta");
  }],
  ["transport: timeout is kind timeout", async ({ mod, api }) => {
    const grab = mod.createGrab(api, { retry: 0 });
    const [, error] = await grab("GET /slow", { timeout: 100 });
    same(error?.kind, "timeout", "kind");
  }],
  ["transport: abort is kind abort", async ({ mod, api }) => {
    const grab = mod.createGrab(api);
    const controller = new AbortController();
    const pending = grab("GET /slow", { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const [, error] = await pending;
    same(error?.kind, "abort", "kind");
  }],
  ["empty: 204 gives [null, null, { statusCode: 204 }]", async (c) => {
    const grab = c.mod.createGrab(c.api);
    const [data, error, meta] = await grab("DELETE /items/:id", {
      params: { id: 1 },
    });
    same(error?.message ?? null, null, "error");
    same(data, null, "data");
    same(meta.statusCode, 204, "statusCode");
  }],
  ["empty: HEAD and a 200 with no body give null data", async (c) => {
    const grab = c.mod.createGrab(c.api);
    const [head, headError, headMeta] = await grab("HEAD /users/1");
    same([head, headError?.message ?? null], [null, null], "HEAD");
    same(headMeta.statusCode, 200, "HEAD statusCode");
    const [empty, emptyError] = await grab("GET /empty");
    same([empty, emptyError?.message ?? null], [null, null], "empty 200");
  }],
  ["JSON:API read: denormalised with links and meta", async ({ mod, api }) => {
    const grab = mod.createGrab(api, {
      format: "json-api",
      casing: "camelCase",
    });
    const [article, error, meta] = await grab("GET /articles/:id", {
      params: { id: 1 },
      query: { include: ["author"] },
    });
    same(error?.message ?? null, null, "error");
    same(article.title, "Portable", "title");
    same(article.wordCount, 812, "wordCount");
    same(
      article.author,
      { type: "people", id: "9", firstName: "Grace" },
      "author",
    );
    ok(!("comments" in article), "a data-less relationship is left out");
    same(meta.meta, { generated: "matrix" }, "document meta");
    const info = mod.jsonApiOf(article);
    same(info?.links, { self: "/articles/1" }, "resource links");
    same(
      info?.relationships?.comments?.links,
      { related: "/articles/1/comments" },
      "data-less relationship links",
    );
  }],
  ["JSON:API write: a flat body goes out in wire shape", async (c) => {
    const grab = c.mod.createGrab(c.api, {
      format: "json-api",
      casing: "camelCase",
    });
    const [created, error, meta] = await grab("POST /articles", {
      body: {
        type: "articles",
        title: "Hi",
        wordCount: 2,
        author: { type: "people", id: "9" },
      },
    });
    same(error?.message ?? null, null, "error");
    same(meta.statusCode, 201, "statusCode");
    same(created.id, "2", "id");
    const received = meta.meta.received.data;
    same(received.attributes, { title: "Hi", word_count: 2 }, "attributes");
    same(
      received.relationships,
      { author: { data: { type: "people", id: "9" } } },
      "relationships",
    );
    same(
      meta.meta.content_type,
      "application/vnd.api+json",
      "Content-Type sent",
    );
  }],
  ["JSON:API errors: field in the caller's casing", async ({ mod, api }) => {
    const grab = mod.createGrab(api, {
      format: "json-api",
      casing: "camelCase",
    });
    const [, error] = await grab("POST /people", {
      body: { type: "people", firstName: "" },
    });
    same(error?.statusCode, 422, "statusCode");
    same(error?.message, "can't be blank", "message");
    same(error?.errors?.[0]?.field, "firstName", "field");
  }],
  ["JSON:API write: every violation, before any request", async (c) => {
    const counted = countingFetch();
    const grab = c.mod.createGrab(c.api, {
      format: "json-api",
      fetch: counted.fetch,
    });
    const error = await rejectsWith(
      grab("PATCH /articles/1", { body: { type: "articles", views: 10n } }),
      "GrabValidationError",
      "PATCH without id, with a BigInt",
    );
    same(error.issues.length, 2, "issues");
    ok(c.mod.isGrabValidationError(error), "isGrabValidationError");
    same(counted.count(), 0, "fetch calls");
  }],
  ["orThrow: resolves [data, meta], rejects the error", async (c) => {
    const grab = c.mod.createGrab(c.api, { retry: 0 });
    const [data, meta] = await c.mod.orThrow(grab("GET /users/1"));
    same(data.first_name, "Ada", "data");
    same(meta.statusCode, 200, "statusCode");
    const http = await rejectsWith(
      c.mod.orThrow(grab("GET /users/2")),
      "GrabError",
      "404",
    );
    same(http.statusCode, 404, "statusCode");
    await rejectsWith(
      c.mod.orThrow(grab("GET /html")),
      "GrabTransportError",
      "parse",
    );
  }],
  ["paginate: follows relative Link headers", async ({ mod, api }) => {
    const grab = mod.createGrab(api);
    const pages = [];
    for await (const [data] of mod.paginate(grab, "GET /pages/1")) {
      pages.push(data);
    }
    same(pages, [[1], [2], [3]], "pages");
  }],
  ["Call: send() performs one exchange", async ({ mod, api }) => {
    const call = new mod.Call("GET /users/:id", api);
    same(call.method, "GET", "method");
    const outcome = await call.send({ params: { id: 1 } });
    same(outcome.ok, true, "ok");
    same(outcome.status, 200, "status");
    same(outcome.body, { id: 1, first_name: "Ada" }, "body");
  }],
  ["validation: TRACE and CONNECT are refused by grab", async (c) => {
    const counted = countingFetch();
    const grab = c.mod.createGrab(c.api, { fetch: counted.fetch });
    await rejectsWith(grab("TRACE /users/1"), "GrabValidationError", "TRACE");
    await rejectsWith(
      grab("CONNECT /users/1"),
      "GrabValidationError",
      "CONNECT",
    );
    let thrown;
    try {
      new c.mod.Call("TRACE /users/1", c.api);
    } catch (error) {
      thrown = error;
    }
    same(thrown?.name, "GrabValidationError", "new Call(TRACE)");
    same(counted.count(), 0, "fetch calls");
  }],
  ["validation: URL userinfo is refused by grab", async (c) => {
    const counted = countingFetch();
    const grab = c.mod.createGrab(undefined, { fetch: counted.fetch });
    const target = c.api.replace("http://", "http://user:hunter2@");
    const error = await rejectsWith(
      grab(`GET ${target}/users/1`),
      "GrabValidationError",
      "userinfo",
    );
    ok(!String(error).includes("hunter2"), "message has no password");
    same(counted.count(), 0, "fetch calls");
  }],
  ["validation: CR/LF header and missing param", async (c) => {
    const counted = countingFetch();
    const grab = c.mod.createGrab(c.api, { fetch: counted.fetch });
    await rejectsWith(
      grab("GET /users/1", { headers: { "x-note": "a\r\nb" } }),
      "GrabValidationError",
      "CR/LF header",
    );
    await rejectsWith(
      grab("GET /users/:id", {}),
      "GrabValidationError",
      "missing param",
    );
    same(counted.count(), 0, "fetch calls");
  }],
];

/**
 * Runs every case and returns one result per case, the import check first.
 *
 * @param {() => Promise<Record<string, unknown>>} load imports the module
 * @param {{ api: string, closedPort: number }} context
 * @returns {Promise<{ name: string, ok: boolean, message?: string }[]>}
 */
export async function runConformance(load, context) {
  const results = [];
  const { module: mod, calls } = await importCounted(load);
  results.push(
    calls === 0 ? { name: "import: no work at import time", ok: true } : {
      name: "import: no work at import time",
      ok: false,
      message: `${calls} calls to fetch, timers or Math.random`,
    },
  );
  for (const [name, run] of CASES) {
    try {
      await run({ ...context, mod });
      results.push({ name, ok: true });
    } catch (error) {
      results.push({
        name,
        ok: false,
        message: `${error?.name}: ${error?.message}`,
      });
    }
  }
  return results;
}
