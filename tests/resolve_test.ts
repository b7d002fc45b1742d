import {
  assert,
  assertEquals,
  assertInstanceOf,
  assertNotStrictEquals,
  assertStrictEquals,
  assertThrows,
} from "@std/assert";
import { assertSpyCalls, spy } from "@std/testing/mock";
import type { Fetch } from "../src/fetch.ts";
import { GrabValidationError, type ValidationIssue } from "../src/errors.ts";
import type { Hooks } from "../src/hooks.ts";
import { DEFAULTS } from "../src/defaults.ts";
import type { GrabOptions } from "../src/options.ts";
import {
  type CallOptions,
  type Factory,
  NO_FACTORY,
  type Resolved,
  resolveFactory,
  resolveOptions,
} from "../src/resolve.ts";
import { resolveRetry } from "../src/retry.ts";

/** `resolveOptions` that must succeed. */
function resolve(
  factory: Factory,
  call: CallOptions,
  trusted = true,
  scope: "call" | "send" = "call",
): Resolved {
  const result = resolveOptions(factory, call, trusted, scope);
  if (Array.isArray(result)) {
    throw new Error(`Unexpected issues: ${JSON.stringify(result)}`);
  }
  return result;
}

/** Options typed loosely, as a JavaScript caller may pass them. */
function loose(options: Record<string, unknown>): CallOptions {
  return options as CallOptions;
}

const fetchA: Fetch = () => Promise.resolve(new Response("a"));
const fetchB: Fetch = () => Promise.resolve(new Response("b"));

Deno.test("resolveFactory()", async (t) => {
  await t.step("keeps the options and checks the static headers", () => {
    const options: GrabOptions = {
      headers: { "X-Api-Key": " k1 ", Accept: "text/plain" },
      timeout: 5_000,
    };
    const factory = resolveFactory(options);
    // A copy, read once: a getter cannot answer differently later.
    assertNotStrictEquals(factory.options, options);
    // Its prototype names every option, so none is read from Object's.
    assertEquals({ ...factory.options }, options);
    assertEquals(factory.headers, { "x-api-key": "k1", accept: "text/plain" });
    assertStrictEquals(factory.headerFunction, undefined);
  });

  await t.step("a header function is kept, not called", () => {
    const headers = spy(() => ({ authorization: "Bearer t" }));
    const factory = resolveFactory({ headers });
    assertStrictEquals(factory.headerFunction, headers);
    assertStrictEquals(factory.headers, undefined);
    assertSpyCalls(headers, 0);
  });

  await t.step("no headers: none", () => {
    const factory = resolveFactory({});
    assertStrictEquals(factory.headers, undefined);
    assertStrictEquals(factory.headerFunction, undefined);
  });

  await t.step("null headers mean none", () => {
    const factory = resolveFactory(
      { headers: null } as unknown as GrabOptions,
    );
    assertStrictEquals(factory.headers, undefined);
    assertStrictEquals(factory.headerFunction, undefined);
  });

  await t.step("throws one GrabValidationError listing every problem", () => {
    const error = assertThrows(
      () =>
        resolveFactory({
          timeout: 0,
          maxBodyBytes: -1,
          retry: { maxDelay: -5 },
          headers: {
            "x-ok": "fine",
            "bad name": "v",
            "x-split": "a\r\nb",
            "x-wide": "\u2603",
          },
        }),
      GrabValidationError,
    );
    const issues: ValidationIssue[] = error.issues;
    assertEquals(issues.length, 6, JSON.stringify(issues));
    const messages = issues.map((issue) => issue.message);
    assert(messages[0]!.includes('"timeout"'));
    assert(messages[1]!.includes('"maxBodyBytes"'));
    assert(messages[2]!.includes('"retry.maxDelay"'));
    assertEquals(messages.slice(3), [
      "Cannot send a header: its name is not a valid HTTP token",
      'Cannot send header "x-split": its value contains CR, LF or NUL',
      'Cannot send header "x-wide": its value has a character outside Latin-1; percent-encode it',
    ]);
    assertEquals(
      error.message,
      `Cannot create the grab: 6 problems in the options (${
        messages.join("; ")
      })`,
    );
  });

  await t.step(
    "a single problem is counted, not led by a second Cannot",
    () => {
      assertThrows(
        () => resolveFactory({ timeout: 0 }),
        GrabValidationError,
        'Cannot create the grab: 1 problem in the options (Cannot use the option "timeout": it must be false, Infinity or a number from 1 to 2147483647)',
      );
    },
  );

  await t.step(
    "headers that are a string are one problem, not a pair's",
    () => {
      for (const headers of ["abc", ""]) {
        const error = assertThrows(
          () => resolveFactory({ headers } as unknown as GrabOptions),
          GrabValidationError,
        );
        assertEquals(error.issues.map((issue) => issue.message), [
          'Cannot use the option "headers": it must be a Headers, a record or a list of pairs',
        ]);
      }
    },
  );

  await t.step("a header value never appears in the error", () => {
    const error = assertThrows(
      () => resolveFactory({ headers: { authorization: "Bearer s3cret\n" } }),
      GrabValidationError,
    );
    assert(!error.message.includes("s3cret"));
  });
});

Deno.test("resolveOptions()", async (t) => {
  await t.step("call headers that are a string are one problem", () => {
    const issues = resolveOptions(
      NO_FACTORY,
      { headers: "abc" } as unknown as CallOptions,
      true,
    );
    assertEquals(issues, [{
      path: "",
      message:
        'Cannot use the option "headers": it must be a Headers, a record or a list of pairs',
    }]);
  });

  await t.step("no factory and no call options: DEFAULTS", () => {
    const resolved = resolve(NO_FACTORY, {});
    assertEquals(resolved.format, DEFAULTS.format);
    assertEquals(resolved.casing, DEFAULTS.casing);
    assertEquals(resolved.wireCasing, DEFAULTS.wireCasing);
    assertEquals(resolved.timeout, DEFAULTS.timeout);
    assertEquals(resolved.maxBodyBytes, DEFAULTS.maxBodyBytes);
    assertStrictEquals(resolved.retry, resolveRetry(undefined));
    assertEquals(resolved.retry.limit, DEFAULTS.retry.limit);
    assertStrictEquals(resolved.fetch, globalThis.fetch);
    assertEquals(resolved.headers, {});
    assertStrictEquals(resolved.headerFunction, undefined);
    assertStrictEquals(resolved.hooks, undefined);
    assertEquals(resolved.jsonApi, {});
    assertStrictEquals(resolved.redirect, undefined);
    assertStrictEquals(resolved.credentials, undefined);
    assertStrictEquals(resolved.signal, undefined);
    assertStrictEquals(resolved.query, undefined);
    assertStrictEquals(resolved.params, undefined);
    assertStrictEquals(resolved.schema, undefined);
    assertStrictEquals(resolved.body, undefined);
  });

  const factory = resolveFactory({
    format: "json-api",
    casing: "camelCase",
    wireCasing: "kebab-case",
    timeout: 5_000,
    maxBodyBytes: 1024,
    retry: 4,
    fetch: fetchA,
    jsonApi: { ext: ["https://example.test/ext"] },
    redirect: "manual",
    credentials: "include",
  });

  await t.step("the factory's options over DEFAULTS", () => {
    const resolved = resolve(factory, {});
    assertEquals(resolved.format, "json-api");
    assertEquals(resolved.casing, "camelCase");
    assertEquals(resolved.wireCasing, "kebab-case");
    assertEquals(resolved.timeout, 5_000);
    assertEquals(resolved.maxBodyBytes, 1024);
    assertEquals(resolved.retry.limit, 4);
    assertStrictEquals(resolved.fetch, fetchA);
    assertEquals(resolved.jsonApi, { ext: ["https://example.test/ext"] });
    assertEquals(resolved.redirect, "manual");
    assertEquals(resolved.credentials, "include");
  });

  await t.step("the call's options over the factory's", () => {
    const signal = new AbortController().signal;
    const resolved = resolve(factory, {
      format: "json",
      casing: "snake_case",
      wireCasing: "camelCase",
      timeout: false,
      maxBodyBytes: Infinity,
      retry: { limit: 1, maxDelay: Infinity },
      jsonApi: { headers: false },
      redirect: "error",
      credentials: "omit",
      signal,
      body: { a: 1 },
      query: { q: "x" },
      params: { id: 1 },
    });
    assertEquals(resolved.format, "json");
    assertEquals(resolved.casing, "snake_case");
    assertEquals(resolved.wireCasing, "camelCase");
    assertEquals(resolved.timeout, false);
    assertEquals(resolved.maxBodyBytes, Infinity);
    assertEquals(resolved.retry.limit, 1);
    assertEquals(resolved.retry.maxDelay, Infinity);
    assertStrictEquals(resolved.fetch, fetchA);
    assertEquals(resolved.jsonApi, { headers: false });
    assertEquals(resolved.redirect, "error");
    assertEquals(resolved.credentials, "omit");
    assertStrictEquals(resolved.signal, signal);
    assertEquals(resolved.body, { a: 1 });
    assertEquals(resolved.query, { q: "x" });
    assertEquals(resolved.params, { id: 1 });
  });

  await t.step("Call.send's fetch over the factory's", () => {
    const resolved = resolve(factory, { fetch: fetchB }, true, "send");
    assertStrictEquals(resolved.fetch, fetchB);
  });

  await t.step("a call's 0 is a value, not a fallback", () => {
    const resolved = resolve(factory, { retry: 0, maxBodyBytes: 0 });
    assertEquals(resolved.retry.limit, 0);
    assertEquals(resolved.maxBodyBytes, 0);
  });

  await t.step("null in the call means none: the factory's value", () => {
    const resolved = resolve(
      factory,
      loose({
        format: null,
        casing: null,
        wireCasing: null,
        timeout: null,
        maxBodyBytes: null,
        retry: null,
        fetch: null,
        hooks: null,
        headers: null,
        jsonApi: null,
        redirect: null,
        credentials: null,
        signal: null,
        query: null,
        params: null,
        schema: null,
      }),
    );
    assertEquals(resolved.format, "json-api");
    assertEquals(resolved.casing, "camelCase");
    assertEquals(resolved.timeout, 5_000);
    assertEquals(resolved.maxBodyBytes, 1024);
    assertEquals(resolved.retry.limit, 4);
    assertStrictEquals(resolved.fetch, fetchA);
    assertEquals(resolved.redirect, "manual");
    assertStrictEquals(resolved.signal, undefined);
    assertStrictEquals(resolved.query, undefined);
    assertStrictEquals(resolved.params, undefined);
    assertStrictEquals(resolved.schema, undefined);
    assertStrictEquals(resolved.hooks, undefined);
    assertEquals(resolved.headers, {});
  });

  await t.step("null in the factory means none: DEFAULTS", () => {
    const nulls = resolveFactory({
      format: null,
      timeout: null,
      maxBodyBytes: null,
      retry: null,
      fetch: null,
      hooks: null,
      headers: null,
    } as unknown as GrabOptions);
    const resolved = resolve(nulls, {});
    assertEquals(resolved.format, DEFAULTS.format);
    assertEquals(resolved.timeout, DEFAULTS.timeout);
    assertEquals(resolved.maxBodyBytes, DEFAULTS.maxBodyBytes);
    assertStrictEquals(resolved.retry, resolveRetry(undefined));
    assertStrictEquals(resolved.fetch, globalThis.fetch);
    assertStrictEquals(resolved.hooks, undefined);
    assertEquals(resolved.headers, {});
  });

  await t.step("a wrong call option gives the issues instead", () => {
    const result = resolveOptions(
      NO_FACTORY,
      loose({ timeout: 0, headers: { "x-a": "a\nb" } }),
      true,
    );
    assert(Array.isArray(result));
    assertEquals(result.length, 2);
    assert(result[0]!.message.includes('"timeout"'));
    assertEquals(
      result[1]!.message,
      'Cannot send header "x-a": its value contains CR, LF or NUL',
    );
  });

  const withHeaders = resolveFactory({
    headers: { "X-Token": "factory", Accept: "text/plain", "x-only": "f" },
  });

  await t.step(
    "headers merge case-insensitively, the call's winning",
    () => {
      const resolved = resolve(withHeaders, {
        headers: {
          "x-token": "call",
          "ACCEPT": "application/json",
          "x-c": "c",
        },
      });
      assertEquals(resolved.headers, {
        "x-token": "call",
        accept: "application/json",
        "x-only": "f",
        "x-c": "c",
      });
    },
  );

  await t.step("the merge never changes the factory's headers", () => {
    resolve(withHeaders, { headers: { "x-token": "call" } });
    assertEquals(withHeaders.headers, {
      "x-token": "factory",
      accept: "text/plain",
      "x-only": "f",
    });
  });

  await t.step("the call's headers as Headers or pairs", () => {
    assertEquals(
      resolve(withHeaders, { headers: new Headers({ "X-Token": "h" }) })
        .headers["x-token"],
      "h",
    );
    assertEquals(
      resolve(withHeaders, { headers: [["X-TOKEN", "p"]] }).headers["x-token"],
      "p",
    );
  });

  await t.step("untrusted: the factory's static headers dropped", () => {
    const resolved = resolve(
      withHeaders,
      { headers: { "x-c": "c" } },
      false,
    );
    assertEquals(resolved.headers, { "x-c": "c" });
  });

  const headerFunction = () => ({ authorization: "Bearer t" });
  const withFunction = resolveFactory({ headers: headerFunction });

  await t.step("the factory's header function kept only when trusted", () => {
    assertStrictEquals(
      resolve(withFunction, {}, true).headerFunction,
      headerFunction,
    );
    assertStrictEquals(
      resolve(withFunction, {}, false).headerFunction,
      undefined,
    );
  });

  const ran: string[] = [];
  const factoryHooks: Hooks = { beforeRequest: () => void ran.push("factory") };
  const callHooks: Hooks = { beforeRetry: () => void ran.push("call") };
  const withHooks = resolveFactory({ hooks: factoryHooks });
  const retryInfo = {
    request: new Request("https://api.test/"),
    attempt: 1,
    error: undefined,
    statusCode: 503,
    delay: 0,
  };

  await t.step(
    "untrusted: the factory's hooks dropped, the call's kept",
    async () => {
      ran.length = 0;
      const hooks = resolve(withHooks, { hooks: callHooks }, false).hooks;
      assertEquals(Object.keys(hooks!), ["beforeRetry"]);
      await hooks!.beforeRetry!(retryInfo);
      assertEquals(ran, ["call"]);
      assertStrictEquals(resolve(withHooks, {}, false).hooks, undefined);
    },
  );

  await t.step(
    "untrusted: the factory's credentials dropped, the call's kept",
    () => {
      const withCookies = resolveFactory({ credentials: "include" });
      assertEquals(resolve(withCookies, {}, true).credentials, "include");
      assertEquals(resolve(withCookies, {}, false).credentials, undefined);
      assertEquals(
        resolve(withCookies, { credentials: "omit" }, false).credentials,
        "omit",
      );
    },
  );

  await t.step(
    "trusted: the factory's hooks alone, or both combined",
    async () => {
      ran.length = 0;
      const alone = resolve(withHooks, {}, true).hooks;
      assertEquals(Object.keys(alone!), ["beforeRequest"]);
      await alone!.beforeRequest!(retryInfo.request);
      assertEquals(ran, ["factory"]);
      const both = resolve(withHooks, { hooks: callHooks }, true).hooks;
      assert(both !== undefined);
      assertInstanceOf(both.beforeRequest, Function);
      assertInstanceOf(both.beforeRetry, Function);
      assertStrictEquals(both.afterResponse, undefined);
    },
  );

  await t.step("combined hooks run the factory's first", async () => {
    const order: string[] = [];
    const factoryWithBoth = resolveFactory({
      hooks: { beforeRetry: () => void order.push("factory") },
    });
    const hooks = resolve(factoryWithBoth, {
      hooks: { beforeRetry: () => void order.push("call") },
    }).hooks;
    await hooks!.beforeRetry!({
      request: new Request("http://127.0.0.1/"),
      attempt: 1,
      error: undefined,
      statusCode: 503,
      delay: 0,
    });
    assertEquals(order, ["factory", "call"]);
  });
});
