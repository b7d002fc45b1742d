import { assert, assertEquals, assertStrictEquals } from "@std/assert";
import { assertSpyCalls, returnsNext, spy, stub } from "@std/testing/mock";
import {
  IDEMPOTENT_METHODS,
  resolveRetry,
  RETRY_STATUS_CODES,
  retryDelay,
} from "../src/retry.ts";
import { parseRetryAfter } from "../src/retry_after.ts";

Deno.test("resolveRetry()", async (t) => {
  await t.step("defaults to 2 retries of idempotent methods", () => {
    const policy = resolveRetry(undefined);
    assertEquals(policy.limit, 2);
    assertEquals(
      [...policy.methods],
      ["GET", "HEAD", "PUT", "DELETE", "OPTIONS"],
    );
    assertEquals([...policy.statusCodes], [408, 429, 500, 502, 503, 504]);
    assertStrictEquals(policy.backoff, undefined);
    assertEquals(policy.maxDelay, 10_000);
  });

  await t.step("a number sets the limit and keeps the rest", () => {
    const policy = resolveRetry(5);
    assertEquals(policy.limit, 5);
    assertStrictEquals(policy.methods, IDEMPOTENT_METHODS);
    assertStrictEquals(policy.statusCodes, RETRY_STATUS_CODES);
    assertEquals(policy.maxDelay, 10_000);
    assertStrictEquals(resolveRetry(2), resolveRetry(undefined));
  });

  const none: [string, number][] = [
    ["0", 0],
    ["a negative number", -1],
    ["NaN", NaN],
  ];
  for (const [name, retry] of none) {
    await t.step(`${name} means no retry`, () => {
      assertEquals(resolveRetry(retry).limit, 0);
    });
  }

  await t.step("an object fills the fields it leaves out", () => {
    const backoff = (attempt: number) => attempt * 10;
    const policy = resolveRetry({
      methods: ["POST"],
      statusCodes: [418],
      backoff,
    });
    assertEquals(policy.limit, 2);
    assertEquals([...policy.methods], ["POST"]);
    assertEquals([...policy.statusCodes], [418]);
    assertStrictEquals(policy.backoff, backoff);
    assertEquals(policy.maxDelay, 10_000);
    assertEquals(resolveRetry({ limit: 0, maxDelay: 5 }), {
      limit: 0,
      methods: IDEMPOTENT_METHODS,
      statusCodes: RETRY_STATUS_CODES,
      backoff: undefined,
      maxDelay: 5,
    });
  });

  await t.step("an empty object is the default policy", () => {
    assertEquals(resolveRetry({}), resolveRetry(undefined));
  });
});

Deno.test("retryDelay()", async (t) => {
  const policy = resolveRetry(undefined);

  await t.step("full jitter: random() scales 300 * 2 ** (attempt - 1)", () => {
    const cases: [number, number, number][] = [
      [1, 0, 0],
      [1, 0.5, 150],
      [2, 0.5, 300],
      [3, 0.5, 600],
      [4, 0.25, 600],
    ];
    for (const [attempt, random, delay] of cases) {
      assertStrictEquals(retryDelay(attempt, policy, () => random), delay);
    }
  });

  await t.step("stays within [0, cap) for random() in [0, 1)", () => {
    for (let attempt = 1; attempt <= 8; attempt++) {
      const cap = Math.min(10_000, 300 * 2 ** (attempt - 1));
      assertEquals(retryDelay(attempt, policy, () => 0), 0);
      const top = retryDelay(attempt, policy, () => 0.999999);
      assert(top < cap && top > cap * 0.99, `attempt ${attempt}: ${top}`);
    }
  });

  await t.step("is clamped to maxDelay", () => {
    assertEquals(retryDelay(20, policy, () => 0.999999), 9999.99);
    const tight = resolveRetry({ maxDelay: 100 });
    assertEquals(retryDelay(10, tight, () => 0.5), 50);
    assertEquals(retryDelay(1, tight, () => 0.999999), 99.9999);
  });

  await t.step("uses Math.random by default", () => {
    for (let i = 0; i < 20; i++) {
      const delay = retryDelay(1, policy);
      assert(delay >= 0 && delay < 300);
    }
    using random = stub(Math, "random", returnsNext([0.5, 0.25]));
    assertEquals(retryDelay(1, policy), 150);
    assertEquals(retryDelay(3, policy), 300);
    assertSpyCalls(random, 2);
  });

  await t.step("a custom backoff is used as is, without jitter", () => {
    const backoff = spy((attempt: number) => attempt * 1000);
    const custom = resolveRetry({ backoff });
    const random = spy(() => 0);
    assertEquals(retryDelay(1, custom, random), 1000);
    assertEquals(retryDelay(3, custom, random), 3000);
    assertEquals(backoff.calls.map((call) => call.args[0]), [1, 3]);
    assertSpyCalls(random, 0);
  });

  await t.step("a custom backoff is clamped to maxDelay", () => {
    const custom = resolveRetry({ backoff: () => 60_000, maxDelay: 2_000 });
    assertEquals(retryDelay(1, custom), 2_000);
  });

  await t.step("a negative, NaN or zero backoff gives 0", () => {
    for (const value of [-5, NaN, 0, -Infinity]) {
      assertEquals(retryDelay(1, resolveRetry({ backoff: () => value })), 0);
    }
  });

  await t.step("an infinite backoff gives maxDelay", () => {
    const custom = resolveRetry({ backoff: () => Infinity, maxDelay: 7 });
    assertEquals(retryDelay(1, custom), 7);
  });
});

Deno.test("parseRetryAfter()", async (t) => {
  const now = Date.parse("Wed, 21 Oct 2015 07:28:00 GMT");

  const cases: [string, string | null, number | undefined][] = [
    ["delay-seconds", "120", 120_000],
    ["zero seconds", "0", 0],
    ["seconds with white space around", " 3 ", 3_000],
    ["an IMF-fixdate a minute ahead", "Wed, 21 Oct 2015 07:29:00 GMT", 60_000],
    ["an RFC 850 date", "Wednesday, 21-Oct-15 07:28:30 GMT", 30_000],
    ["an asctime date", "Wed Oct 21 07:28:05 2015", 5_000],
    [
      "an asctime date with a one-digit day",
      "Sun Nov  1 07:28:00 2015",
      950_400_000,
    ],
    ["a date equal to now", "Wed, 21 Oct 2015 07:28:00 GMT", 0],
    ["a past date", "Tue, 20 Oct 2015 07:28:00 GMT", 0],
    ["an absent header", null, undefined],
    ["an empty value", "", undefined],
    ["a word", "soon", undefined],
    ["a negative number", "-1", undefined],
    ["a fraction", "1.5", undefined],
    ["a month and day", "May 5", undefined],
    ["a signed number", "+5", undefined],
    ["a number with a unit", "5s", undefined],
    ["a date-like phrase", "tomorrow 1", undefined],
    ["an impossible date", "Wed, 32 Foo 2015 07:28:00 GMT", undefined],
    ["a day the month lacks", "Mon, 30 Feb 2015 07:28:00 GMT", undefined],
    ["an hour past the day's", "Wed, 21 Oct 2015 24:00:00 GMT", undefined],
    [
      "a leap second",
      "Thu, 31 Dec 2015 23:59:60 GMT",
      Date.UTC(2016, 0, 1) - now,
    ],
    [
      "a year past 2038",
      "Tue, 19 Jan 2038 03:14:08 GMT",
      Date.UTC(2038, 0, 19, 3, 14, 8) - now,
    ],
    ["an IMF-fixdate of the year 49", "Sun, 06 Nov 0049 08:49:37 GMT", 0],
    ["an asctime date of the year 49", "Sun Nov  6 08:49:37 0049", 0],
    [
      "an RFC 850 date less than 50 years ahead",
      "Tuesday, 20-Oct-65 07:28:00 GMT",
      Date.UTC(2065, 9, 20, 7, 28) - now,
    ],
    // Its year 2065 is 50 years ahead, but the date is more than that: it
    // is 1965 (RFC 9110, 5.6.7).
    [
      "an RFC 850 date more than 50 years ahead",
      "Friday, 20-Nov-65 07:28:00 GMT",
      0,
    ],
  ];
  for (const [name, value, expected] of cases) {
    await t.step(`${name}: ${JSON.stringify(value)}`, () => {
      assertStrictEquals(parseRetryAfter(value, now), expected);
    });
  }

  await t.step("an RFC 850 year is read from now's century", () => {
    const late = Date.UTC(2090, 0, 1);
    const value = "Friday, 01-Jan-10 00:00:00 GMT";
    assertStrictEquals(
      parseRetryAfter(value, late),
      Date.UTC(2110, 0, 1) - late,
    );
  });
});
