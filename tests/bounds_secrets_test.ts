/**
 * No URL in a message, `String(error)`, `JSON.stringify(error)` or an
 * inspected error (its `cause` included) carries a query string or userinfo:
 * not the request's, not one a hook added, not a redirect target's.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import { inspect } from "node:util";
import createGrab, { Call, type GrabValidationError } from "../mod.ts";
import { closedPort, startServer } from "./_server.ts";
import { assertTransport, settles } from "./_bounds.ts";

const SECRET = "SECRET";
const URL_KEY = Symbol("url");

/** Every way an error can be shown, none of which may hold the secret. */
function assertNoSecret(error: unknown, except: string[] = []): void {
  assert(error instanceof Error);
  const views: Record<string, string> = {
    message: error.message,
    "String(error)": String(error),
    "JSON.stringify(error)": JSON.stringify(error) ?? "",
    "Deno.inspect(error)": Deno.inspect(error, { depth: 10 }),
    "Deno.inspect(error.cause)": Deno.inspect(error.cause, { depth: 10 }),
    // How Node (and Bun) show it.
    "util.inspect(error)": inspect(error, { depth: 10 }),
    // How Node and Bun print an uncaught error, an `orThrow` left unhandled:
    // without the error's own inspect method, its enumerable fields as data.
    "an uncaught error": inspect(error, { depth: 10, customInspect: false }),
    stack: error.stack ?? "",
    url: String((error as { url?: unknown }).url ?? ""),
  };
  for (const [view, text] of Object.entries(views)) {
    if (except.includes(view)) continue;
    assert(
      !text.includes(SECRET),
      `${view} shows the secret:\n${text}`,
    );
  }
}

/**
 * The error a grab ends with: the tuple's, or the rejection's (a library may
 * refuse a URL with userinfo as a validation error).
 */
async function failureOf(
  grabbing: Promise<readonly [unknown, unknown, unknown]>,
): Promise<unknown> {
  let result: readonly [unknown, unknown, unknown];
  try {
    result = await settles(grabbing);
  } catch (error) {
    if (error instanceof Error && error.name === "AssertionError") throw error;
    return error;
  }
  assertEquals(result[0], null);
  assert(result[1] !== null, "the grab should fail");
  return result[1];
}

Deno.test("a query or userinfo a hook added never shows in the error", async (t) => {
  const port = closedPort();
  const grab = createGrab(`http://127.0.0.1:${port}`, {
    retry: 0,
    timeout: 10_000,
  });

  await t.step("?token=SECRET added by beforeRequest", async () => {
    const result = await settles(
      grab("GET /x", {
        hooks: {
          beforeRequest: (request) =>
            new Request(`${request.url}?token=${SECRET}`, request),
        },
      }),
    );
    const error = assertTransport(result, "network");
    assertNoSecret(error);
    // The error still says where it went.
    assertStringIncludes(error.message, `127.0.0.1:${port}`);
  });

  await t.step("?token=SECRET added to a URL that had a query", async () => {
    const result = await settles(
      grab("GET /x", {
        query: { page: 2 },
        hooks: {
          beforeRequest: (request) =>
            new Request(`${request.url}&token=${SECRET}`, request),
        },
      }),
    );
    assertNoSecret(assertTransport(result, "network"));
  });

  await t.step("user:SECRET@ added by beforeRequest", async () => {
    const error = await failureOf(
      grab("GET /x", {
        hooks: {
          beforeRequest: (request) => {
            const url = new URL(request.url);
            url.username = "user";
            url.password = SECRET;
            return new Request(url, request);
          },
        },
      }),
    );
    assertNoSecret(error);
  });

  await t.step("the same through Call.send", async () => {
    const outcome = await settles(
      new Call(`GET http://127.0.0.1:${port}/x`).send({
        retry: 0,
        hooks: {
          beforeRequest: (request) =>
            new Request(`${request.url}?token=${SECRET}`, request),
        },
      }),
    );
    assert(!outcome.ok, "the exchange should fail");
    assertNoSecret(outcome.error);
  });

  await t.step("the call's own query (control)", async () => {
    const result = await settles(grab("GET /x", { query: { token: SECRET } }));
    assertNoSecret(assertTransport(result, "network"));
  });
});

Deno.test("a redirect target's query or userinfo never shows in the error", async (t) => {
  const port = closedPort();
  await using server = startServer((_request, seen) => {
    const target = seen.url.pathname === "/userinfo"
      ? `http://user:${SECRET}@127.0.0.1:${port}/x`
      : `http://127.0.0.1:${port}/x?X-Amz-Signature=${SECRET}&X-Amz-Expires=60`;
    return new Response(null, { status: 302, headers: { location: target } });
  });
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });

  await t.step(
    "302 to a closed port with ?X-Amz-Signature=SECRET",
    async () => {
      const result = await settles(grab("GET /signed"));
      assertNoSecret(assertTransport(result, "network"));
    },
  );

  await t.step("the same with retries", async () => {
    const result = await settles(
      grab("GET /signed", { retry: { limit: 1, backoff: () => 0 } }),
    );
    assertNoSecret(assertTransport(result, "network"));
  });

  await t.step("302 to user:SECRET@ on a closed port", async () => {
    assertNoSecret(await failureOf(grab("GET /userinfo")));
  });

  await t.step("Call.send through the same redirect", async () => {
    const outcome = await settles(
      new Call("GET /signed", server.url).send({ retry: 0 }),
    );
    assert(!outcome.ok, "the exchange should fail");
    assertNoSecret(outcome.error);
  });
});

Deno.test("what a custom fetch rejects with shows no query, and never rejects the grab", async (t) => {
  const rejecting = (make: (url: string) => unknown) =>
    createGrab("http://127.0.0.1:9", {
      retry: 0,
      fetch: (input) => Promise.reject(make(String(input))),
    });
  const query = { token: SECRET };

  await t.step("a plain object carrying the URL", async () => {
    const grab = rejecting((url) => ({ message: "failed", url }));
    const error = assertTransport(
      await settles(grab("GET /x", { query })),
      "network",
    );
    assertNoSecret(error);
  });

  await t.step("an Error whose cause is such an object", async () => {
    const grab = rejecting((url) =>
      new TypeError("fetch failed", { cause: { request: { url } } })
    );
    const error = assertTransport(
      await settles(grab("GET /x", { query })),
      "network",
    );
    assertNoSecret(error);
  });

  // An inspected object shows its symbol-keyed properties too.
  const symbolKeyed: [string, (url: string) => unknown][] = [
    [
      "an Error",
      (url) => Object.assign(new Error("failed"), { [URL_KEY]: url }),
    ],
    ["a plain object", (url) => ({ message: "failed", [URL_KEY]: url })],
    [
      "an Error's cause",
      (url) => new TypeError("fetch failed", { cause: { [URL_KEY]: url } }),
    ],
  ];
  for (const [label, make] of symbolKeyed) {
    await t.step(`${label} carrying the URL under a symbol key`, async () => {
      const error = assertTransport(
        await settles(rejecting(make)("GET /x", { query })),
        "network",
      );
      assertNoSecret(error);
      const cause = error.cause as Record<symbol, unknown>;
      const carrier = label === "an Error's cause"
        ? (cause as { cause: Record<symbol, unknown> }).cause
        : cause;
      assertEquals(carrier[URL_KEY], "http://127.0.0.1:9/x?…");
    });
  }

  const unreadable: [string, () => unknown][] = [
    ["an Error whose message getter throws", () => {
      const error = new Error("x");
      Object.defineProperty(error, "message", {
        get() {
          throw new Error("boom");
        },
      });
      return error;
    }],
    ["a revoked Proxy", () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    }],
  ];
  for (const [label, make] of unreadable) {
    await t.step(`${label}: a network failure`, async () => {
      assertTransport(await settles(rejecting(make)("GET /x")), "network");
    });
  }
});

Deno.test("a JSON:API error detail that quotes a URL shows no query in the message", async () => {
  await using server = startServer(() =>
    Response.json({
      errors: [{
        status: "422",
        detail: `Cannot use https://user:${SECRET}@api.test/x?token=${SECRET}`,
      }],
    }, { status: 422, headers: { "content-type": "application/vnd.api+json" } })
  );
  for (const format of ["json", "json-api"] as const) {
    const grab = createGrab(server.url, { format, retry: 0 });
    const [, error] = await settles(grab("GET /x"));
    assert(error !== null);
    assertStringIncludes(error.message, "Cannot use https://api.test/x?…");
    assert(!error.message.includes(SECRET), error.message);
  }
});

Deno.test("a status text that quotes a URL shows no userinfo, query or fragment in the message", async () => {
  await using server = startServer(() => new Response("no", { status: 502 }));
  const statusText =
    `Bad gateway to %22https://user:${SECRET}@up.test/x?token=${SECRET}#k=${SECRET}`;
  const grab = createGrab(server.url, {
    retry: 0,
    hooks: {
      // A hook's replacement (or another runtime's server) may carry any
      // reason phrase.
      async afterResponse(_request, response) {
        await response.body?.cancel();
        return new Response("no", { status: 502, statusText });
      },
    },
  });
  const [, error] = await settles(grab("GET /x"));
  assert(error !== null);
  assertStringIncludes(
    error.message,
    "502 Bad gateway to %22https://up.test/x?…#…: GET",
  );
  assertNoSecret(error);
});

Deno.test("a URL the server sends back shows no query in a logged error, and stays as sent on it", async (t) => {
  await using server = startServer({
    "/moved": () =>
      new Response(null, {
        status: 302,
        headers: { location: `https://elsewhere.test/cb?code=${SECRET}` },
      }),
    "/echo": (request) =>
      Response.json({ error: "nope", seen: { urls: [request.url] } }, {
        status: 400,
      }),
    "/text": (request) => new Response(`No ${request.url}`, { status: 404 }),
    "/document": (request) =>
      Response.json({
        errors: [{ status: "422", detail: `Cannot use ${request.url}` }],
      }, {
        status: 422,
        headers: { "content-type": "application/vnd.api+json" },
      }),
  });
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  const query = { token: SECRET };

  await t.step("a manual redirect's Location", async () => {
    const [, error] = await settles(grab("GET /moved", { redirect: "manual" }));
    assert(error?.name === "GrabError");
    assertNoSecret(error);
    // The caller following it by hand still gets it whole.
    assertEquals(
      error.headers.get("location"),
      `https://elsewhere.test/cb?code=${SECRET}`,
    );
  });

  await t.step("a JSON body quoting the request's URL", async () => {
    const [, error] = await settles(grab("GET /echo", { query }));
    assert(error?.name === "GrabError");
    assertNoSecret(error);
    assertStringIncludes(JSON.stringify(error), `${server.url}/echo?…`);
    assertEquals(error.body, {
      error: "nope",
      seen: { urls: [`${server.url}/echo?token=${SECRET}`] },
    });
  });

  await t.step("a text body quoting it", async () => {
    const [, error] = await settles(grab("GET /text", { query }));
    assert(error?.name === "GrabError");
    assertNoSecret(error);
    assertEquals(error.body, `No ${server.url}/text?token=${SECRET}`);
  });

  await t.step("a JSON:API error's detail quoting it", async () => {
    const [, error] = await settles(grab("GET /document", { query }));
    assert(error?.name === "GrabError");
    // Node prints an uncaught error's `errors` array whether it is
    // enumerable or not, as it prints an AggregateError's.
    assertNoSecret(error, ["an uncaught error"]);
    assertStringIncludes(error.errors?.[0]?.detail ?? "", SECRET);
  });
});

Deno.test("a schema's issues quoting the request's URL show no query in a logged error, and stay as sent on it", async (t) => {
  await using server = startServer((request) =>
    Response.json({ next: request.url })
  );
  // As valibot writes an issue: the input, and a message that quotes it.
  const schema = {
    "~standard": {
      version: 1 as const,
      vendor: "quoting",
      validate(value: unknown) {
        const input = (value as { next: string }).next;
        return {
          issues: [{
            message: `Expected a number but received ${JSON.stringify(input)}`,
            input,
            path: [{ key: "next", value }],
          }],
        };
      },
    },
  };
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  const query = { token: SECRET };

  await t.step("a JSON body", async () => {
    const result = await settles(grab("GET /x", { query, schema }));
    const error = assertTransport(result, "schema");
    assertNoSecret(error);
    assertStringIncludes(JSON.stringify(error), `${server.url}/x?…`);
    // The caller showing a form error still gets the issue whole.
    const [issue] = error.issues as { input: string }[];
    assertEquals(issue?.input, `${server.url}/x?token=${SECRET}`);
  });

  await t.step("issues of a library's own class are shown", async () => {
    // As arktype writes an issue: a class whose message is a getter.
    class Issue {
      constructor(readonly input: string) {}
      get message() {
        return `must be a number (was ${this.input})`;
      }
      get path() {
        return ["next"];
      }
    }
    const classed = {
      "~standard": {
        ...schema["~standard"],
        validate: (value: unknown) => ({
          issues: [new Issue((value as { next: string }).next)],
        }),
      },
    };
    const result = await settles(grab("GET /x", { query, schema: classed }));
    const error = assertTransport(result, "schema");
    assertNoSecret(error);
    const logged = JSON.parse(JSON.stringify(error));
    assertEquals(logged.issues, [{
      message: `must be a number (was ${server.url}/x?…)`,
      path: ["next"],
    }]);
  });

  await t.step("issues that cannot be read still log", async () => {
    // An array whose reads throw passes the schema's Array.isArray check.
    const hostile = new Proxy([{ message: "x" }], {
      get(target, key) {
        if (key === "length") return target.length;
        throw new Error(`no ${String(key)}`);
      },
    });
    const unreadable = {
      "~standard": {
        ...schema["~standard"],
        validate: () => ({ issues: hostile }),
      },
    };
    const result = await settles(grab("GET /x", { query, schema: unreadable }));
    const error = assertTransport(result, "schema");
    const logged = JSON.parse(JSON.stringify(error));
    assertEquals(logged.kind, "schema");
    assertEquals(logged.issues, undefined);
  });

  await t.step("an NDJSON stream's error", async () => {
    const [lines, error] = await settles(
      grab("GET /x", { query, schema, responseType: "ndjson" }),
    );
    assert(error === null && lines !== null, "the head should arrive");
    for await (const _ of lines) throw new Error("no line passes the schema");
    assert(lines.error?.kind === "schema", String(lines.error));
    assertNoSecret(lines.error);
  });
});

Deno.test("an endpoint written the wrong way round shows no credentials in the error", async () => {
  await using server = startServer(() => Response.json({}));
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  for (
    const endpoint of [
      `https://user:${SECRET}@api.test/x GET`,
      `https://u:${SECRET}@api.test/x GET`,
      `http://${SECRET}@api.test/x POST`,
      `https://api.test/x?token=${SECRET} GET`,
    ]
  ) {
    const error = await failureOf(
      grab(endpoint as `GET /${string}`) as Promise<
        readonly [unknown, unknown, unknown]
      >,
    );
    assert(
      error instanceof Error && error.name === "GrabValidationError",
      String(error),
    );
    assertNoSecret(error);
    for (const { message } of (error as GrabValidationError).issues) {
      assert(!message.includes(SECRET), message);
    }
    assert(
      !/\bu(ser)?:/.test(error.message),
      `the message quotes the userinfo: ${error.message}`,
    );
  }
  assertEquals(server.requests.length, 0);
});

Deno.test("a URL a server or a fetch sends as a key shows no query in a logged error, and stays as sent on it", async (t) => {
  // Results keyed by the URL asked for, as a batch or link-check API sends.
  await using server = startServer((request) =>
    Response.json({
      failed: { [request.url]: "not found", [`${request.url}&b=2`]: "gone" },
    }, { status: 404 })
  );
  const query = { token: SECRET };

  await t.step("in a GrabError's body", async () => {
    const grab = createGrab(server.url, { retry: 0 });
    const [, error] = await settles(grab("GET /batch", { query }));
    assert(error?.name === "GrabError");
    assertNoSecret(error);
    const key = `${server.url}/batch?…`;
    // Two keys that one text stands for are both shown, the later numbered.
    assertEquals(JSON.parse(JSON.stringify(error)).body, {
      failed: { [key]: "not found", [`${key} (2)`]: "gone" },
    });
    const sent = `${server.url}/batch?token=${SECRET}`;
    assertEquals(Object.keys((error.body as { failed: object }).failed), [
      sent,
      `${sent}&b=2`,
    ]);
  });

  await t.step("in what a custom fetch rejects with", async () => {
    const grab = createGrab(server.url, {
      retry: 0,
      fetch: () =>
        Promise.reject(
          Object.assign(new Error("down"), {
            hosts: { [`https://api.test/x?token=${SECRET}`]: "refused" },
          }),
        ),
    });
    const error = assertTransport(await grab("GET /x"), "network");
    assertNoSecret(error);
  });
});
