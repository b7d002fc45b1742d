/**
 * The retry policy as pure functions: which failures to retry, and how long
 * to wait. The request loop in `call.ts` is the only place that sleeps.
 *
 * @module
 */

import type { HttpMethod } from "./endpoint.ts";

/**
 * When and how often to retry.
 *
 * @example A patient policy for a rate-limited API
 * ```ts
 * import createGrab, { type RetryOptions } from "@grab/grab";
 * const retry: RetryOptions = { limit: 5, statusCodes: [429, 503], maxDelay: 30_000 };
 * const grab = createGrab("https://api.example.com", { retry });
 * ```
 */
export interface RetryOptions {
  /**
   * Retries after the first attempt.
   * @default {2}
   *
   * @example Up to five retries
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com", { retry: { limit: 5 } });
   * ```
   */
  limit?: number;
  /**
   * Methods that are retried. POST and PATCH are not idempotent, so they are
   * left out unless named here.
   * @default {["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"]}
   *
   * @example Also retrying POST, for an API with idempotency keys
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com", {
   *   headers: () => ({ "idempotency-key": crypto.randomUUID() }),
   *   retry: { methods: ["GET", "PUT", "DELETE", "POST"] },
   * });
   * ```
   */
  methods?: readonly HttpMethod[];
  /**
   * Response statuses that are retried. Network failures are always retried.
   * @default {[408, 429, 500, 502, 503, 504]}
   *
   * @example Retrying only rate limiting and maintenance
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com", { retry: { statusCodes: [429, 503] } });
   * ```
   */
  statusCodes?: readonly number[];
  /**
   * Milliseconds to wait before retry number `attempt` (1 for the first
   * retry). Without it: exponential backoff from 300 ms with full jitter.
   * The result is clamped to `maxDelay`.
   * @default {(attempt) => Math.random() * Math.min(maxDelay, 300 * 2 ** (attempt - 1))}
   *
   * @example A linear backoff: 1 s, 2 s, 3 s
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com", {
   *   retry: { limit: 3, backoff: (attempt) => attempt * 1_000 },
   * });
   * ```
   */
  backoff?: (attempt: number) => number;
  /**
   * The longest wait between attempts. A `Retry-After` asking for more is not
   * honoured: the last failure is returned at once, headers included.
   * @default {10000}
   *
   * @example Waiting up to a minute for a `Retry-After`
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com", { retry: { maxDelay: 60_000 } });
   * ```
   */
  maxDelay?: number;
}

/** A retry policy with every field decided. */
export interface RetryPolicy {
  limit: number;
  methods: ReadonlySet<string>;
  statusCodes: ReadonlySet<number>;
  backoff: ((attempt: number) => number) | undefined;
  maxDelay: number;
}

/** Methods retried by default. */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set([
  "GET",
  "HEAD",
  "PUT",
  "DELETE",
  "OPTIONS",
  "TRACE",
]);

/** Statuses retried by default. */
export const RETRY_STATUS_CODES: ReadonlySet<number> = new Set([
  408,
  429,
  500,
  502,
  503,
  504,
]);

const DEFAULT_POLICY: RetryPolicy = {
  limit: 2,
  methods: IDEMPOTENT_METHODS,
  statusCodes: RETRY_STATUS_CODES,
  backoff: undefined,
  maxDelay: 10_000,
};

const NO_RETRY: RetryPolicy = { ...DEFAULT_POLICY, limit: 0 };

/** Fills the defaults of a `retry` option. */
export function resolveRetry(
  retry: number | RetryOptions | undefined,
): RetryPolicy {
  if (retry === undefined) return DEFAULT_POLICY;
  if (typeof retry === "number") {
    if (retry === 2) return DEFAULT_POLICY;
    return retry > 0 ? { ...DEFAULT_POLICY, limit: retry } : NO_RETRY;
  }
  return {
    limit: retry.limit ?? DEFAULT_POLICY.limit,
    methods: retry.methods ? new Set(retry.methods) : IDEMPOTENT_METHODS,
    statusCodes: retry.statusCodes
      ? new Set(retry.statusCodes)
      : RETRY_STATUS_CODES,
    backoff: retry.backoff,
    maxDelay: retry.maxDelay ?? DEFAULT_POLICY.maxDelay,
  };
}

/**
 * Milliseconds before retry number `attempt` (1-based): the policy's
 * `backoff`, or `random() * min(maxDelay, 300 * 2 ** (attempt - 1))`.
 * Always within `[0, maxDelay]`.
 *
 * @example
 * ```ts ignore
 * retryDelay(3, policy, () => 0.5); // 600
 * ```
 */
export function retryDelay(
  attempt: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  const wanted = policy.backoff
    ? policy.backoff(attempt)
    : random() * Math.min(policy.maxDelay, 300 * 2 ** (attempt - 1));
  if (!(wanted > 0)) return 0;
  return Math.min(wanted, policy.maxDelay);
}

/**
 * The shape shared by the three HTTP-date formats (IMF-fixdate, RFC 850,
 * asctime): a day name, then the date, then `hh:mm:ss`. `Date.parse` alone
 * reads `"1.5"` or `"2024"` as dates, differently on each runtime.
 */
const HTTP_DATE = /^[A-Za-z]{3,9},? [\w -]+ \d\d:\d\d:\d\d/;

/**
 * Milliseconds a `Retry-After` value asks for: delay-seconds or an HTTP date
 * relative to `now`. `undefined` when absent or unreadable.
 *
 * @example
 * ```ts ignore
 * parseRetryAfter("120", 0); // 120000
 * parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", Date.parse("Wed, 21 Oct 2015 07:27:00 GMT")); // 60000
 * ```
 */
export function parseRetryAfter(
  value: string | null,
  now: number,
): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // asctime has no zone but means GMT; Date.parse would read local time.
  const date = HTTP_DATE.test(text)
    ? Date.parse(text.endsWith("GMT") ? text : `${text} GMT`)
    : NaN;
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
