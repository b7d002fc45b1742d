import {
  assert,
  assertEquals,
  assertRejects,
  assertStrictEquals,
  assertStringIncludes,
} from "@std/assert";
import createGrab, {
  Call,
  GrabError,
  GrabTransportError,
  GrabValidationError,
  isGrabHttpError,
  isGrabTransportError,
  isGrabValidationError,
  orThrow,
} from "../mod.ts";
import { httpErrorMessage } from "../src/http_error.ts";
import { safeUrl } from "../src/redact.ts";
import { anotherCopy } from "./_another_copy.ts";
import { closedPort, json, startServer } from "./_server.ts";

function httpError(): GrabError {
  return new GrabError("boom", {
    statusCode: 418,
    body: null,
    headers: new Headers(),
    method: "GET",
    url: "https://api.test/x",
  });
}

Deno.test("GrabError, GrabTransportError, GrabValidationError", async (t) => {
  await t.step("extend Error and carry their names and fields", () => {
    const cause = new TypeError("socket");
    const http = httpError();
    const transport = new GrabTransportError("t", {
      kind: "network",
      method: "POST",
      url: "https://api.test/y",
      cause,
    });
    const validation = new GrabValidationError("v", [{
      path: "",
      message: "m",
    }]);
    for (const error of [http, transport, validation]) {
      assert(error instanceof Error);
    }
    assertEquals(http.name, "GrabError");
    assertEquals(http.statusCode, 418);
    assertStrictEquals(http.cause, undefined);
    assertEquals(transport.name, "GrabTransportError");
    assertEquals(transport.kind, "network");
    assertStrictEquals(transport.cause, cause);
    assertEquals("issues" in transport, false);
    assertEquals(validation.name, "GrabValidationError");
    assertEquals(validation.issues, [{ path: "", message: "m" }]);
    assertEquals(String(http), "GrabError: boom");
  });

  await t.step("safeUrl drops userinfo, query and fragment", () => {
    assertEquals(
      safeUrl("https://u:p@api.test:8443/a/b?token=x#f"),
      "https://api.test:8443/a/b",
    );
    assertEquals(safeUrl("not a url"), "<invalid URL>");
  });

  await t.step("httpErrorMessage follows the contract", () => {
    assertEquals(
      httpErrorMessage(404, "Not Found", "GET", "https://a.test/x"),
      "404 Not Found: GET https://a.test/x",
    );
    assertEquals(
      httpErrorMessage(599, "", "PUT", "https://a.test/x"),
      "599: PUT https://a.test/x",
    );
  });
});

Deno.test("isGrabHttpError(), isGrabTransportError(), isGrabValidationError()", async (t) => {
  await t.step("recognise real instances", () => {
    assertEquals(isGrabHttpError(httpError()), true);
    assertEquals(
      isGrabTransportError(
        new GrabTransportError("t", { kind: "abort", method: "GET", url: "" }),
      ),
      true,
    );
    assertEquals(isGrabValidationError(new GrabValidationError("v", [])), true);
  });

  await t.step("recognise look-alikes from another copy of the module", () => {
    assertEquals(isGrabHttpError({ name: "GrabError", statusCode: 500 }), true);
    assertEquals(
      isGrabTransportError({ name: "GrabTransportError", kind: "timeout" }),
      true,
    );
    assertEquals(
      isGrabValidationError({ name: "GrabValidationError", issues: [] }),
      true,
    );
  });

  await t.step(
    "recognise the errors of another copy of the module",
    async () => {
      const copy = await anotherCopy();
      const server = startServer({ "/gone": () => json({}, { status: 410 }) });
      try {
        const grab = copy.createGrab(server.url, { retry: 0 });
        const [, http] = await grab("GET /gone");
        const [, transport] = await grab("GET /gone", {
          signal: AbortSignal.abort(),
        });
        const validation = await grab("GET /:id", { params: { id: "" } })
          .then(() => undefined, (error: unknown) => error);
        assertEquals(isGrabHttpError(http), true);
        assertEquals(isGrabTransportError(transport), true);
        assertEquals(isGrabValidationError(validation), true);
        assertEquals(isGrabTransportError(validation), false);
      } finally {
        await server[Symbol.asyncDispose]();
      }
    },
  );

  await t.step("refuse what merely copies a name", () => {
    // A transport error has a kind, a validation error its issues: code
    // that switches on the one or maps the other would fail on these.
    const lookAlikes = [
      { name: "GrabTransportError" },
      { name: "GrabTransportError", kind: "offline" },
      { name: "GrabTransportError", kind: { toString: () => "timeout" } },
      Object.assign(new Error("x"), { name: "GrabTransportError" }),
    ];
    for (const value of lookAlikes) {
      assertEquals(isGrabTransportError(value), false);
    }
    for (const issues of [undefined, "none", { length: 0 }]) {
      assertEquals(
        isGrabValidationError({ name: "GrabValidationError", issues }),
        false,
      );
    }
  });

  await t.step("refuse everything else", () => {
    for (const value of [null, undefined, 0, "GrabError", new Error("x"), {}]) {
      assertEquals(isGrabHttpError(value), false);
      assertEquals(isGrabTransportError(value), false);
      assertEquals(isGrabValidationError(value), false);
    }
    assertEquals(
      isGrabHttpError({ name: "GrabError", statusCode: "500" }),
      false,
    );
    assertEquals(
      isGrabHttpError({ name: "GrabTransportError", statusCode: 0 }),
      false,
    );
    // Not a status code at all: no HTTP error has one.
    for (const statusCode of [NaN, Infinity, 404.5]) {
      assertEquals(isGrabHttpError({ name: "GrabError", statusCode }), false);
    }
  });
});

Deno.test("errors of a grab as JSON, and across a Worker", async (t) => {
  await using server = startServer({
    "/gone": () => json({ gone: true }, { status: 410 }),
    "/item": () => new Response("not json"),
  });
  const { default: createGrab } = await import("../mod.ts");
  const grab = createGrab(server.url, { retry: 0 });
  const [, http] = await grab("GET /gone", { query: { token: "SECRET" } });
  const [, transport] = await grab("GET /item");
  const validation = await grab("GET /items/:id", {
    params: { id: ".." },
    query: { token: "SECRET" },
  }).then(() => undefined, (error: unknown) => error);
  assert(isGrabHttpError(http));
  assert(isGrabTransportError(transport));
  assert(isGrabValidationError(validation));
  const errors = [http, transport, validation];

  await t.step("JSON.stringify shows each one's name and message", () => {
    for (const error of errors) {
      const shown = JSON.parse(JSON.stringify(error));
      assertEquals(shown.name, error.name);
      assertEquals(shown.message, error.message);
      assert(!JSON.stringify(error).includes("SECRET"));
    }
    const shown = JSON.parse(JSON.stringify(validation));
    assertEquals(shown.issues, validation.issues);
  });

  await t.step(
    "toJSON() crosses to a Worker, where the guards know it",
    async () => {
      const worker = new Worker(
        new URL("./_guard_worker.ts", import.meta.url),
        { type: "module" },
      );
      try {
        const answered = new Promise<unknown>((resolve, reject) => {
          worker.onmessage = (event) => resolve(event.data);
          worker.onerror = (event) => {
            event.preventDefault();
            reject(new Error(event.message));
          };
        });
        // An error itself arrives as a plain `Error`: structured cloning
        // keeps its message, stack and cause, not its name or fields.
        worker.postMessage([
          ...errors,
          ...errors.map((error) => error.toJSON()),
        ]);
        const message = (error: Error) => error.message;
        assertEquals(await answered, [
          ...errors.map((error) => ({
            http: false,
            transport: false,
            validation: false,
            message: message(error),
          })),
          {
            http: true,
            transport: false,
            validation: false,
            message: message(http),
          },
          {
            http: false,
            transport: true,
            validation: false,
            message: message(transport),
          },
          {
            http: false,
            transport: false,
            validation: true,
            message: message(validation),
          },
        ]);
      } finally {
        worker.terminate();
      }
    },
  );
});

Deno.test("toJSON() of an error whose cause or issues hold functions can be posted", async () => {
  await using server = startServer({ "/ok": () => json({ ok: true }) });
  const { default: createGrab } = await import("../mod.ts");
  // A custom fetch's rejection, and a schema's issue (valibot's `check`
  // puts its function in `requirement`), may hold functions and symbols,
  // which structured cloning refuses.
  const refusing = createGrab(server.url, {
    retry: 0,
    fetch: () => Promise.reject({ code: "E_DOWN", retry() {}, tag: Symbol() }),
  });
  const [, network] = await refusing("GET /ok");
  const schema = {
    "~standard": {
      version: 1 as const,
      vendor: "test",
      validate: () => ({
        issues: [{ message: "Invalid", requirement: (v: unknown) => !!v }],
      }),
    },
  };
  const grab = createGrab(server.url, { retry: 0 });
  const [, failed] = await grab("GET /ok", { schema });
  assert(isGrabTransportError(network));
  assert(isGrabTransportError(failed));
  const cloned = structuredClone([network.toJSON(), failed.toJSON()]);
  assertEquals(cloned.map(isGrabTransportError), [true, true]);
  assertEquals(cloned[0]!.cause, { code: "E_DOWN" });
  assertEquals(cloned[1]!.issues, [{ message: "Invalid" }]);
  // The properties themselves keep what was given.
  assertEquals(typeof (network.cause as { retry: unknown }).retry, "function");
});

Deno.test("JSON.stringify of an error whose cause holds a BigInt writes its digits", async () => {
  await using server = startServer({ "/ok": () => json({ ok: true }) });
  const { default: createGrab } = await import("../mod.ts");
  // A custom fetch's rejection, and an exception of the caller's code that
  // a validation error quotes, may hold a BigInt, which JSON refuses.
  const refusing = createGrab(server.url, {
    retry: 0,
    fetch: () =>
      Promise.reject(Object.assign(new Error("down"), { code: 10n, n: [1n] })),
  });
  const [, network] = await refusing("GET /ok");
  assert(isGrabTransportError(network));
  assertEquals(JSON.parse(JSON.stringify(network)).cause, {
    name: "Error",
    message: "down",
    code: "10",
    n: ["1"],
  });
  const grab = createGrab(server.url, { retry: 0 });
  const body = {
    toJSON() {
      throw Object.assign(new Error("no"), { limit: 3n });
    },
  };
  const invalid = await assertRejects(
    () => grab("POST /ok", { body }),
    GrabValidationError,
  );
  assertEquals(JSON.parse(JSON.stringify(invalid)).cause, {
    name: "Error",
    message: "no",
    limit: "3",
  });
  // The causes themselves keep what was thrown.
  assertStrictEquals((network.cause as { code: unknown }).code, 10n);
  assertEquals(server.requests.length, 0);
});

Deno.test("orThrow()", async (t) => {
  await using server = startServer({
    "/ok": () => json({ a: 1 }),
    "/gone": () => json({ gone: true }, { status: 410 }),
  });
  const { default: createGrab } = await import("../mod.ts");
  const grab = createGrab(server.url, { retry: 0 });

  await t.step("resolves [data, meta] on success", async () => {
    const [data, meta] = await orThrow(grab("GET /ok"));
    assertEquals(data, { a: 1 });
    assertEquals(meta.statusCode, 200);
  });

  await t.step("rejects with the GrabError", async () => {
    const error = await assertRejects(
      () => orThrow(grab("GET /gone")),
      GrabError,
    );
    assertEquals(error.statusCode, 410);
  });

  await t.step("rejects with the GrabTransportError", async () => {
    const error = await assertRejects(() =>
      orThrow(grab("GET /ok", { signal: AbortSignal.abort() }))
    );
    assert(isGrabTransportError(error));
    assertEquals(error.kind, "abort");
  });

  await t.step(
    "refuses what a grab does not resolve to, saying so",
    async () => {
      const outcome = new Call("GET /ok", server.url).send({ retry: 0 });
      await assertRejects(
        // @ts-expect-error: a Call.send outcome is no tuple
        () => orThrow(outcome),
        TypeError,
        "Cannot use orThrow on an object (a Call.send outcome: read its ok, error and body instead)",
      );
      const mapped = grab("GET /ok").then((
        [data, , meta],
      ) => [data, undefined, meta]);
      await assertRejects(
        // @ts-expect-error: the error slot is undefined, not null
        () => orThrow(mapped),
        TypeError,
        "Cannot use orThrow on a tuple whose error is undefined, not null or an error",
      );
    },
  );

  await t.step("passes a validation rejection through", async () => {
    await assertRejects(
      () =>
        orThrow(
          grab("GET /x/:id", { params: {} } as { params: { id: string } }),
        ),
      GrabValidationError,
    );
  });
});

Deno.test("a validation error keeps the exception it quotes as its cause", async (t) => {
  await using server = startServer(() => json({}));
  const { default: createGrab } = await import("../mod.ts");
  const grab = createGrab(server.url, { retry: 0 });
  const rejected = (promise: Promise<unknown>) =>
    promise.then(() => undefined, (error: unknown) => error);

  await t.step("a toJSON that threw: the exception itself", async () => {
    const thrown = new RangeError("no JSON today");
    const error = await rejected(grab("POST /x", {
      body: {
        toJSON() {
          throw thrown;
        },
      },
    }));
    assert(isGrabValidationError(error));
    assertStrictEquals(error.cause, thrown);
  });

  await t.step("a getter of the options, the query or the params", async () => {
    const thrown = new RangeError("unreadable");
    const getter = {
      get id(): string {
        throw thrown;
      },
    };
    const errors = [
      await rejected(grab(
        "GET /x",
        Object.defineProperty({}, "timeout", {
          get() {
            throw thrown;
          },
          enumerable: true,
        }),
      )),
      await rejected(grab("GET /x", { query: getter })),
      await rejected(grab("GET /x/:id", { params: getter })),
    ];
    for (const error of errors) {
      assert(isGrabValidationError(error));
      assertStrictEquals(error.cause, thrown);
    }
  });

  await t.step("redacted as the message is", async () => {
    const body = {
      get at(): string {
        throw new Error("cannot reach http://h.test/?token=SECRET");
      },
    };
    const error = await rejected(grab("POST /x", { body }));
    assert(isGrabValidationError(error));
    assert(error.cause instanceof Error);
    assertEquals(error.cause.message, "cannot reach http://h.test/?…");
    assert(!Deno.inspect(error, { depth: 10 }).includes("SECRET"));
  });

  await t.step(
    "shown by toJSON(), as the other errors show theirs",
    async () => {
      const error = await rejected(grab("POST /x", {
        body: {
          get at(): string {
            throw new RangeError("cannot reach http://h.test/?token=SECRET");
          },
        },
      }));
      assert(isGrabValidationError(error));
      const logged = JSON.parse(JSON.stringify(error));
      assertEquals(logged.cause.name, "RangeError");
      assertEquals(logged.cause.message, "cannot reach http://h.test/?…");
      assert(!JSON.stringify(error).includes("SECRET"));
      const plain = await rejected(grab("POST /x", { body: { n: 1n } }));
      assert(!("cause" in JSON.parse(JSON.stringify(plain))));
    },
  );

  await t.step("several: an AggregateError, in the issues' order", async () => {
    const first = new Error("first");
    const second = new Error("second");
    const body = {
      get a(): string {
        throw first;
      },
      get b(): string {
        throw second;
      },
    };
    const error = await rejected(grab("POST /x", { body }));
    assert(isGrabValidationError(error));
    assert(error.cause instanceof AggregateError);
    const order = error.issues.map(({ path }) =>
      path === "/a" ? first : second
    );
    assertEquals(error.cause.errors, order);
    assertEquals(order.length, 2);
  });

  await t.step("none where nothing threw", async () => {
    const error = await rejected(grab("POST /x", { body: { n: 1n } }));
    assert(isGrabValidationError(error));
    assert(!("cause" in error));
  });
  assertEquals(server.requests.length, 0);
});

Deno.test("toJSON() shows a cause that is an error by its name, message and fields", async (t) => {
  const { default: createGrab } = await import("../mod.ts");

  await t.step("a refused connection: why the network failed", async () => {
    const grab = createGrab(`http://127.0.0.1:${closedPort()}`, { retry: 0 });
    const [, error] = await grab("GET /x");
    assert(isGrabTransportError(error));
    assert(error.cause instanceof Error);
    const shown = JSON.parse(JSON.stringify(error)).cause;
    assertEquals(shown.name, error.cause.name);
    assertEquals(shown.message, error.cause.message);
    assert(shown.message.length > 0);
    const inner = error.cause.cause; // Deno's: the connection's own error.
    if (inner instanceof Error) {
      assertEquals(shown.cause.message, inner.message);
    }
    // An inspector still shows the error itself, as an error.
    assertStringIncludes(Deno.inspect(error), `cause: ${error.cause.name}: `);
  });

  await t.step(
    "a custom fetch's error: its fields and causes, redacted",
    async () => {
      const failure = new AggregateError(
        [new Error("at https://api.test/a?token=SECRET")],
        "all failed",
        { cause: Object.assign(new Error("socket"), { code: "ECONNRESET" }) },
      );
      const grab = createGrab("http://api.test", {
        retry: 0,
        fetch: () => Promise.reject(failure),
      });
      const [, error] = await grab("GET /x");
      assert(isGrabTransportError(error));
      const json = JSON.stringify(error);
      assert(!json.includes("SECRET"));
      assertEquals(JSON.parse(json).cause, {
        name: "AggregateError",
        message: "all failed",
        errors: [{ name: "Error", message: "at https://api.test/a?…" }],
        cause: { name: "Error", message: "socket", code: "ECONNRESET" },
      });
    },
  );

  await t.step(
    "a GrabError's cause crosses to a Worker as data the guards know",
    async () => {
      await using server = startServer(() =>
        json({ error: "x".repeat(1_000) }, { status: 500 })
      );
      const grab = createGrab(server.url, { retry: 0, maxBodyBytes: 100 });
      const [, error] = await grab("GET /x");
      assert(isGrabHttpError(error));
      const cloned = structuredClone(error.toJSON());
      assert(isGrabTransportError(cloned.cause));
      assertEquals(cloned.cause.kind, "too-large");
    },
  );
});

Deno.test("a conditional GET answered 304 is a GrabError with no body, sent once", async () => {
  await using server = startServer((request) =>
    request.headers.get("if-none-match") === '"v1"'
      ? new Response(null, { status: 304, headers: { etag: '"v1"' } })
      : Response.json({ id: 1 }, { headers: { etag: '"v1"' } })
  );
  const grab = createGrab(server.url);
  const [first, firstError, meta] = await grab("GET /item");
  assert(firstError === null, String(firstError));
  assertEquals(first, { id: 1 });
  const etag = meta.headers.get("etag") ?? "";
  const [data, error] = await grab("GET /item", {
    headers: { "if-none-match": etag },
  });
  assertEquals(data, null);
  assert(error instanceof GrabError);
  assertEquals(error.statusCode, 304);
  assertEquals(error.body, null);
  assertEquals(error.headers.get("etag"), '"v1"');
  assertEquals(server.requests.length, 2);
});
