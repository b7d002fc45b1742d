import {
  assertEquals,
  assertInstanceOf,
  assertRejects,
  assertThrows,
} from "@std/assert";
import createGrab, {
  Call,
  type GrabCallOptions,
  type GrabOptions,
  GrabValidationError,
  paginate,
} from "../mod.ts";
import { startServer } from "./_server.ts";
import { rowSchema } from "./_types.ts";

/** The messages of a validation error's issues. */
function messagesOf(error: GrabValidationError): string[] {
  return error.issues.map((issue) => issue.message);
}

/** Options the types refuse, as a caller without types (or a cast) gives them. */
const untyped = (options: Record<string, unknown>) =>
  options as GrabCallOptions & GrabOptions;

Deno.test("an option no grab takes is refused, never lost", async (t) => {
  await using server = startServer(() => Response.json({ ok: true }));
  const grab = createGrab(server.url);

  await t.step(
    "a misspelt call option rejects, naming it and a match",
    async () => {
      const error = await assertRejects(
        () => grab("GET /x", untyped({ timout: 500 })),
        GrabValidationError,
      );
      assertEquals(messagesOf(error), [
        'Cannot use the option "timout": there is no such option (did you mean "timeout"?)',
      ]);
      // Nothing was sent with the 30 s default in its place.
      assertEquals(server.requests.length, 0);
    },
  );

  await t.step("a misspelt factory option throws from createGrab", () => {
    const error = assertThrows(
      () => createGrab(server.url, untyped({ maxBodySize: 1024 })),
      GrabValidationError,
    );
    assertEquals(messagesOf(error), [
      'Cannot use the option "maxBodySize": there is no such option',
    ]);
    assertThrows(
      () => createGrab(server.url, untyped({ Timeout: 5 })),
      GrabValidationError,
      'did you mean "timeout"?',
    );
  });

  await t.step("an option in the wrong place says where it goes", async () => {
    const inCall = await assertRejects(
      () => grab("GET /x", untyped({ trustedOrigins: ["https://a.test"] })),
      GrabValidationError,
    );
    assertEquals(messagesOf(inCall), [
      'Cannot use the option "trustedOrigins" in a call: it is an option of createGrab',
    ]);
    await assertRejects(
      () => grab("GET /x", untyped({ fetch: globalThis.fetch })),
      GrabValidationError,
      'Cannot use the option "fetch" in a call: it is an option of createGrab',
    );
    const signal = new AbortController().signal;
    assertThrows(
      () => createGrab(server.url, untyped({ signal })),
      GrabValidationError,
      'Cannot use the option "signal" in createGrab: it is an option of each call',
    );
    assertEquals(server.requests.length, 0);
  });

  await t.step("fetch's own init members say how to pass them", async () => {
    const factoryFetch = (name: string) =>
      `a factory's fetch can add it: fetch: (input, init) => fetch(input, { ...init, ${name} })`;
    // A member that a Request carries: one call's hook can set it.
    for (const name of ["cache", "keepalive", "mode", "integrity"]) {
      await assertRejects(
        () => grab("GET /x", untyped({ [name]: "x" })),
        GrabValidationError,
        `Cannot use the option "${name}": grab does not pass it to fetch. ` +
          `For one call, a beforeRequest hook can set it: hooks: { beforeRequest: (request) => new Request(request, { ${name} }) }; ` +
          `for every grab, ${factoryFetch(name)}`,
      );
    }
    for (const name of ["client", "dispatcher", "next", "priority"]) {
      await assertRejects(
        () => grab("GET /x", untyped({ [name]: "x" })),
        GrabValidationError,
        `Cannot use the option "${name}": grab does not pass it to fetch, ` +
          `but ${factoryFetch(name)}`,
      );
    }
    // What the message says, done: the hook's request is what is sent.
    await using other = startServer(() => Response.json({ ok: true }));
    const sent: Request[] = [];
    const hooked = createGrab(other.url, {
      fetch: (input, init) => {
        sent.push(new Request(input, init));
        return fetch(input, init);
      },
    });
    const [data] = await hooked("GET /x", {
      hooks: {
        beforeRequest: (request) =>
          new Request(request, {
            cache: "no-store",
            keepalive: true,
            integrity: "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
            referrerPolicy: "no-referrer",
          }),
      },
    });
    assertEquals(data, { ok: true });
    const [request] = sent;
    assertEquals(
      [request?.cache, request?.keepalive, request?.referrerPolicy],
      ["no-store", true, "no-referrer"],
    );
    assertEquals(
      request?.integrity,
      "sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=",
    );
    assertThrows(
      () => createGrab(server.url, untyped({ cache: "no-store" })),
      GrabValidationError,
      `Cannot use the option "cache" in createGrab: grab does not pass it to fetch, but ${
        factoryFetch("cache")
      }`,
    );
    // The method is not fetch's to be told: it is the endpoint's.
    await assertRejects(
      () => grab("GET /x", untyped({ method: "POST" })),
      GrabValidationError,
      'Cannot use the option "method": the method is the endpoint\'s first word ("POST /users")',
    );
    assertEquals(server.requests.length, 0);
  });

  await t.step("another client's name for an option says grab's", async () => {
    const cases: [string, string][] = [
      ["json", 'a plain object or array in "body" is sent as JSON'],
      ["data", 'a plain object or array in "body" is sent as JSON'],
      ["searchParams", 'query values go in "query"'],
      ["prefixUrl", "the base address is createGrab's first argument"],
      ["baseURL", "the base address is createGrab's first argument"],
    ];
    for (const [name, told] of cases) {
      await assertRejects(
        () => grab("POST /x", untyped({ [name]: { a: 1 } })),
        GrabValidationError,
        `Cannot use the option "${name}": ${told}`,
      );
    }
    assertThrows(
      () => createGrab(undefined, untyped({ baseUrl: server.url })),
      GrabValidationError,
      `Cannot use the option "baseUrl": the base address is createGrab's first argument`,
    );
    await assertRejects(
      () => new Call("GET /x", server.url).send(untyped({ prefixUrl: "/" })),
      GrabValidationError,
      `Cannot use the option "prefixUrl": the base address is new Call's second argument`,
    );
    assertEquals(server.requests.length, 0);
  });

  await t.step("a misspelt hook or retry member is refused", async () => {
    let called = false;
    const error = await assertRejects(
      () =>
        grab(
          "GET /x",
          untyped({
            hooks: { beforeRequst: () => void (called = true) },
            retry: { limt: 3, maxDelay: 10 },
            jsonApi: { extensions: ["https://a.test/ext"] },
          }),
        ),
      GrabValidationError,
    );
    assertEquals(messagesOf(error).sort(), [
      'Cannot use the option "hooks.beforeRequst": there is no such member (did you mean "beforeRequest"?)',
      'Cannot use the option "jsonApi.extensions": there is no such member',
      'Cannot use the option "retry.limt": there is no such member (did you mean "limit"?)',
    ]);
    assertEquals(called, false);
    assertThrows(
      () =>
        createGrab(
          server.url,
          untyped({ hooks: { afterresponse: () => undefined } }),
        ),
      GrabValidationError,
      '"hooks.afterresponse": there is no such member (did you mean "afterResponse"?)',
    );
    assertEquals(server.requests.length, 0);
  });

  await t.step(
    "each issue is told: a wrong value and a wrong name",
    async () => {
      const error = await assertRejects(
        () => grab("GET /x", untyped({ timeout: 0, retrys: 1 })),
        GrabValidationError,
      );
      assertEquals(messagesOf(error), [
        'Cannot use the option "timeout": it must be false, Infinity or a number from 1 to 2147483647',
        'Cannot use the option "retrys": there is no such option (did you mean "retry"?)',
      ]);
    },
  );

  await t.step(
    "an unknown name holding null or undefined loses nothing",
    async () => {
      const [data, error] = await grab(
        "GET /x",
        untyped({ cache: undefined, timout: null }),
      );
      assertEquals(error, null);
      assertEquals(data, { ok: true });
    },
  );

  await t.step("a class instance's hooks keep their own fields", async () => {
    class Auth {
      token = "t1";
      seen: string[] = [];
      beforeRequest(request: Request) {
        this.seen.push(request.url);
        request.headers.set("authorization", `Bearer ${this.token}`);
      }
    }
    const auth = new Auth();
    const [, error] = await grab("GET /x", { hooks: auth });
    assertEquals(error, null);
    assertEquals(auth.seen.length, 1);
    assertEquals(
      server.requests.at(-1)?.headers.get("authorization"),
      "Bearer t1",
    );
  });

  await t.step("paginate refuses it too, before any request", async () => {
    const before = server.requests.length;
    const pages = paginate(grab, "GET /x", untyped({ limt: 2 }));
    await assertRejects(() => pages.next(), GrabValidationError, '"limt"');
    // A misspelt hook beside paginate's own, with a right one or alone.
    for (
      const hooks of [{ beforeRequst() {} }, { afterResponse() {}, befor: 1 }]
    ) {
      await assertRejects(
        () => paginate(grab, "GET /x", untyped({ hooks })).next(),
        GrabValidationError,
        "there is no such member",
      );
    }
    assertEquals(server.requests.length, before);
  });
});

Deno.test("Call.send takes fetch, and refuses what only a grab does", async (t) => {
  await using server = startServer(() => Response.json({ ok: true }));
  const call = new Call("GET /x", server.url);

  await t.step("trustedOrigins is createGrab's", async () => {
    await assertRejects(
      () => call.send({ trustedOrigins: [] } as Record<string, unknown>),
      GrabValidationError,
      'Cannot use the option "trustedOrigins" in Call.send: it is an option of createGrab',
    );
  });

  await t.step("a fetch of its own is used", async () => {
    let used = 0;
    const outcome = await call.send({
      fetch: (input, init) => {
        used++;
        return fetch(input, init);
      },
    });
    assertEquals(outcome.ok, true);
    assertEquals(used, 1);
  });

  await t.step(
    "fetch's own init members point at Call.send's fetch",
    async () => {
      await assertRejects(
        () => call.send({ cache: "no-store" } as Record<string, unknown>),
        GrabValidationError,
        'Cannot use the option "cache": grab does not pass it to fetch. ' +
          "For one call, a beforeRequest hook can set it: hooks: { beforeRequest: (request) => new Request(request, { cache }) }; " +
          "for every send, Call.send's own fetch can add it: fetch: (input, init) => fetch(input, { ...init, cache })",
      );
    },
  );

  await t.step("schema and casing are a grab's: refused", async () => {
    const error = await assertRejects(
      () =>
        call.send(
          { schema: rowSchema, casing: "camelCase" } as Record<string, unknown>,
        ),
      GrabValidationError,
    );
    assertInstanceOf(error, GrabValidationError);
    assertEquals(messagesOf(error), [
      'Cannot use the option "schema" in Call.send, which checks no body: it is an option of a grab',
      'Cannot use the option "casing" in Call.send, which sends and reads keys as they are: it is an option of a grab',
    ]);
    assertEquals(server.requests.length, 1);
  });
});

Deno.test("a schema with a response type it cannot check is refused", async () => {
  await using server = startServer(() => new Response("raw"));
  const grab = createGrab(server.url);
  for (const responseType of ["bytes", "blob", "stream"] as const) {
    await assertRejects(
      () =>
        grab("GET /x", { responseType, schema: rowSchema } as Record<
          string,
          unknown
        >),
      GrabValidationError,
      `Cannot use the option "schema" with responseType "${responseType}": ` +
        "bytes, blobs and raw streams are not checked",
    );
  }
  // The factory's response type counts too.
  const bytes = createGrab(server.url, { responseType: "bytes" });
  await assertRejects(
    () => bytes("GET /x", { schema: rowSchema } as Record<string, unknown>),
    GrabValidationError,
    'responseType "bytes"',
  );
  assertEquals(server.requests.length, 0);
  const [text, error] = await grab("GET /x", {
    responseType: "text",
    schema: {
      "~standard": { version: 1, vendor: "t", validate: (v) => ({ value: v }) },
    },
  });
  assertEquals([text, error], ["raw", null]);
});
