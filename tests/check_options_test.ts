import { assert, assertEquals } from "@std/assert";
import { checkOptions } from "../src/check_options.ts";
import type { Fetch } from "../src/fetch.ts";

const fetchA: Fetch = () => Promise.resolve(new Response("a"));

Deno.test("checkOptions() names each option that is wrong", async (t) => {
  const invalid: [string, string, unknown][] = [
    ["timeout", "timeout", 0],
    ["timeout", "timeout", -1],
    ["timeout", "timeout", NaN],
    ["timeout", "timeout", 2 ** 31],
    ["timeout", "timeout", -Infinity],
    ["timeout", "timeout", "5"],
    ["timeout", "timeout", true],
    ["maxBodyBytes", "maxBodyBytes", NaN],
    ["maxBodyBytes", "maxBodyBytes", -1],
    ["maxBodyBytes", "maxBodyBytes", 1.5],
    ["maxBodyBytes", "maxBodyBytes", "1024"],
    ["retry", "retry", -1],
    ["retry", "retry", 1.5],
    ["retry", "retry", "2"],
    ["retry", "retry", NaN],
    ["retry", "retry.limit", { limit: -1 }],
    ["retry", "retry.limit", { limit: 1.5 }],
    ["retry", "retry.maxDelay", { maxDelay: -5 }],
    ["retry", "retry.maxDelay", { maxDelay: NaN }],
    ["retry", "retry.backoff", { backoff: 5 }],
    ["retry", "retry.methods", { methods: "GET" }],
    ["retry", "retry.methods", { methods: ["get"] }],
    ["retry", "retry.methods", { methods: ["GET", "FETCH"] }],
    ["retry", "retry.methods", { methods: [1] }],
    ["retry", "retry.statusCodes", { statusCodes: 503 }],
    ["retry", "retry.statusCodes", { statusCodes: [5030] }],
    ["retry", "retry.statusCodes", { statusCodes: [503, -1] }],
    ["retry", "retry.statusCodes", { statusCodes: [0] }],
    ["retry", "retry.statusCodes", { statusCodes: [99] }],
    ["retry", "retry.statusCodes", { statusCodes: [600] }],
    ["retry", "retry.statusCodes", { statusCodes: [503.5] }],
    ["retry", "retry.statusCodes", { statusCodes: ["503"] }],
    ["retry", "retry.statusCodes", { statusCodes: new Set([503]) }],
    ["signal", "signal", {}],
    ["signal", "signal", new AbortController()],
    ["fetch", "fetch", "x"],
    ["hooks", "hooks", "x"],
    ["hooks", "hooks.beforeRequest", { beforeRequest: 1 }],
    ["hooks", "hooks.afterResponse", { afterResponse: "f" }],
    ["hooks", "hooks.beforeRetry", { beforeRetry: {} }],
    ["format", "format", "xml"],
    ["redirect", "redirect", "bogus"],
    ["credentials", "credentials", "bogus"],
  ];
  for (const [option, name, value] of invalid) {
    const shown = typeof value === "string"
      ? JSON.stringify(value)
      : typeof value === "number"
      ? String(value)
      : Deno.inspect(value);
    await t.step(`${option}: ${shown} gives one issue naming "${name}"`, () => {
      const issues = checkOptions({ [option]: value }, "send");
      assertEquals(issues.length, 1, JSON.stringify(issues));
      assertEquals(issues[0]!.path, "");
      assert(
        issues[0]!.message.startsWith(
          `Cannot use the option "${name}": it must be `,
        ),
        issues[0]!.message,
      );
    });
  }

  await t.step("the message says what the option must be", () => {
    assertEquals(checkOptions({ timeout: 0 }, "send"), [{
      path: "",
      message:
        'Cannot use the option "timeout": it must be false, Infinity or a number from 1 to 2147483647',
    }]);
    assertEquals(checkOptions({ format: "xml" }, "send"), [{
      path: "",
      message:
        'Cannot use the option "format": it must be "json" or "json-api"',
    }]);
    assertEquals(checkOptions({ retry: { statusCodes: [5030] } }, "send"), [{
      path: "",
      message:
        'Cannot use the option "retry.statusCodes": it must be an array of status codes from 100 to 599',
    }]);
    assertEquals(checkOptions({ redirect: "bogus" }, "send"), [{
      path: "",
      message:
        'Cannot use the option "redirect": it must be "follow", "error" or "manual"',
    }]);
  });

  await t.step("every wrong option gives its own issue", () => {
    const issues = checkOptions({
      timeout: 0,
      maxBodyBytes: -1,
      retry: { limit: -1, maxDelay: -1 },
      signal: {},
      fetch: 1,
      hooks: { beforeRequest: 1, beforeRetry: 2 },
      format: "xml",
      redirect: "x",
      credentials: "x",
    }, "send");
    assertEquals(
      issues.map((issue) => issue.message.match(/"([^"]+)"/)?.[1]),
      [
        "timeout",
        "maxBodyBytes",
        "retry.limit",
        "retry.maxDelay",
        "signal",
        "fetch",
        "format",
        "redirect",
        "credentials",
        "hooks.beforeRequest",
        "hooks.beforeRetry",
      ],
    );
  });

  const valid: [string, unknown][] = [
    ["timeout", false],
    ["timeout", Infinity],
    ["timeout", 1],
    ["timeout", 2 ** 31 - 1],
    ["timeout", 1.5],
    ["maxBodyBytes", 0],
    ["maxBodyBytes", Infinity],
    ["maxBodyBytes", 1024],
    ["retry", 0],
    ["retry", 5],
    ["retry", {}],
    ["retry", { maxDelay: Infinity }],
    ["retry", { limit: 0, maxDelay: 0, backoff: () => 0 }],
    ["retry", { methods: ["POST"], statusCodes: [418] }],
    ["retry", { statusCodes: [100, 202, 304, 599] }],
    ["retry", { statusCodes: [] }],
    ["signal", new AbortController().signal],
    ["fetch", fetchA],
    ["hooks", {}],
    ["hooks", { beforeRequest: () => {}, afterResponse: undefined }],
    ["format", "json"],
    ["format", "json-api"],
    ["redirect", "manual"],
    ["credentials", "include"],
  ];
  for (const [option, value] of valid) {
    await t.step(`${option}: ${Deno.inspect(value)} gives none`, () => {
      assertEquals(checkOptions({ [option]: value }, "send"), []);
    });
  }

  const names = [
    "timeout",
    "maxBodyBytes",
    "retry",
    "signal",
    "fetch",
    "hooks",
    "format",
    "redirect",
    "credentials",
  ];
  for (const empty of [null, undefined]) {
    await t.step(`${empty} means none for every option`, () => {
      const options = Object.fromEntries(names.map((name) => [name, empty]));
      assertEquals(checkOptions(options, "send"), []);
      assertEquals(
        checkOptions({
          retry: {
            limit: empty,
            maxDelay: empty,
            backoff: empty,
            methods: empty,
            statusCodes: empty,
          },
          hooks: {
            beforeRequest: empty,
            afterResponse: empty,
            beforeRetry: empty,
          },
        }, "send"),
        [],
      );
    });
  }

  await t.step("no options: no issues", () => {
    assertEquals(checkOptions({}, "send"), []);
  });
});
