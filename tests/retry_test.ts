import assert from "node:assert/strict";
import {
  IDEMPOTENT_METHODS,
  parseRetryAfter,
  resolveRetry,
  RETRY_STATUS_CODES,
  retryDelay,
} from "../src/retry.ts";

Deno.test("resolveRetry()", async (t) => {
  await t.step("defaults to 2 retries of idempotent methods", () => {
    const policy = resolveRetry(undefined);
    assert.equal(policy.limit, 2);
    assert.deepEqual(
      [...policy.methods],
      ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"],
    );
    assert.deepEqual([...policy.statusCodes], [408, 429, 500, 502, 503, 504]);
    assert.equal(policy.backoff, undefined);
    assert.equal(policy.maxDelay, 10_000);
  });

  await t.step("a number sets the limit and keeps the rest", () => {
    const policy = resolveRetry(5);
    assert.equal(policy.limit, 5);
    assert.equal(policy.methods, IDEMPOTENT_METHODS);
    assert.equal(policy.statusCodes, RETRY_STATUS_CODES);
    assert.equal(policy.maxDelay, 10_000);
    assert.equal(resolveRetry(2), resolveRetry(undefined));
  });

  const none: [string, number][] = [
    ["0", 0],
    ["a negative number", -1],
    ["NaN", NaN],
  ];
  for (const [name, retry] of none) {
    await t.step(`${name} means no retry`, () => {
      assert.equal(resolveRetry(retry).limit, 0);
    });
  }

  await t.step("an object fills the fields it leaves out", () => {
    const backoff = (attempt: number) => attempt * 10;
    const policy = resolveRetry({
      methods: ["POST"],
      statusCodes: [418],
      backoff,
    });
    assert.equal(policy.limit, 2);
    assert.deepEqual([...policy.methods], ["POST"]);
    assert.deepEqual([...policy.statusCodes], [418]);
    assert.equal(policy.backoff, backoff);
    assert.equal(policy.maxDelay, 10_000);
    assert.deepEqual(resolveRetry({ limit: 0, maxDelay: 5 }), {
      limit: 0,
      methods: IDEMPOTENT_METHODS,
      statusCodes: RETRY_STATUS_CODES,
      backoff: undefined,
      maxDelay: 5,
    });
  });

  await t.step("an empty object is the default policy", () => {
    assert.deepEqual(resolveRetry({}), resolveRetry(undefined));
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
      assert.equal(retryDelay(attempt, policy, () => random), delay);
    }
  });

  await t.step("stays within [0, cap) for random() in [0, 1)", () => {
    for (let attempt = 1; attempt <= 8; attempt++) {
      const cap = Math.min(10_000, 300 * 2 ** (attempt - 1));
      assert.equal(retryDelay(attempt, policy, () => 0), 0);
      const top = retryDelay(attempt, policy, () => 0.999999);
      assert.ok(top < cap && top > cap * 0.99, `attempt ${attempt}: ${top}`);
    }
  });

  await t.step("is clamped to maxDelay", () => {
    assert.equal(retryDelay(20, policy, () => 0.999999), 9999.99);
    const tight = resolveRetry({ maxDelay: 100 });
    assert.equal(retryDelay(10, tight, () => 0.5), 50);
    assert.equal(retryDelay(1, tight, () => 0.999999), 99.9999);
  });

  await t.step("uses Math.random by default", () => {
    for (let i = 0; i < 20; i++) {
      const delay = retryDelay(1, policy);
      assert.ok(delay >= 0 && delay < 300);
    }
  });

  await t.step("a custom backoff is used as is, without jitter", () => {
    const seen: number[] = [];
    const custom = resolveRetry({
      backoff: (attempt) => {
        seen.push(attempt);
        return attempt * 1000;
      },
    });
    assert.equal(retryDelay(1, custom, () => 0), 1000);
    assert.equal(retryDelay(3, custom, () => 0), 3000);
    assert.deepEqual(seen, [1, 3]);
  });

  await t.step("a custom backoff is clamped to maxDelay", () => {
    const custom = resolveRetry({ backoff: () => 60_000, maxDelay: 2_000 });
    assert.equal(retryDelay(1, custom), 2_000);
  });

  await t.step("a negative, NaN or zero backoff gives 0", () => {
    for (const value of [-5, NaN, 0, -Infinity]) {
      assert.equal(retryDelay(1, resolveRetry({ backoff: () => value })), 0);
    }
  });

  await t.step("an infinite backoff gives maxDelay", () => {
    const custom = resolveRetry({ backoff: () => Infinity, maxDelay: 7 });
    assert.equal(retryDelay(1, custom), 7);
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
  ];
  for (const [name, value, expected] of cases) {
    await t.step(`${name}: ${JSON.stringify(value)}`, () => {
      assert.equal(parseRetryAfter(value, now), expected);
    });
  }
});
