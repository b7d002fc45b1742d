/**
 * The retry policy as pure functions: which failures to retry, and how long
 * to wait. The attempt loop in `attempts.ts` is the only place that sleeps.
 *
 * @module
 */

import type { HttpMethod } from "./endpoint.ts";
import { describeValue } from "./json_value.ts";
import { DEFAULTS } from "./defaults.ts";
import { parseRetryAfter } from "./retry_after.ts";
import { validationError } from "./validation_error.ts";

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
  limit?: number | undefined;
  /**
   * Methods that are retried. POST and PATCH are not idempotent, so they are
   * left out unless named here.
   * @default {["GET", "HEAD", "PUT", "DELETE", "OPTIONS"]}
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
  methods?: readonly HttpMethod[] | undefined;
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
  statusCodes?: readonly number[] | undefined;
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
  backoff?: ((attempt: number) => number) | undefined;
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
  maxDelay?: number | undefined;
}

/** A retry policy with every field decided. */
export interface RetryPolicy {
  limit: number;
  methods: ReadonlySet<string>;
  statusCodes: ReadonlySet<number>;
  backoff: ((attempt: number) => number) | undefined;
  maxDelay: number;
}

const RETRY = DEFAULTS.retry;

/** Methods retried by default. */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(RETRY.methods);

/** Statuses retried by default. */
export const RETRY_STATUS_CODES: ReadonlySet<number> = new Set(
  RETRY.statusCodes,
);

const DEFAULT_POLICY: RetryPolicy = {
  limit: RETRY.limit,
  methods: IDEMPOTENT_METHODS,
  statusCodes: RETRY_STATUS_CODES,
  backoff: undefined,
  maxDelay: RETRY.maxDelay,
};

const NO_RETRY: RetryPolicy = { ...DEFAULT_POLICY, limit: 0 };

/** Fills the defaults of a `retry` option. */
export function resolveRetry(
  retry: number | RetryOptions | undefined,
): RetryPolicy {
  if (retry === undefined) return DEFAULT_POLICY;
  if (typeof retry === "number") {
    if (retry === RETRY.limit) return DEFAULT_POLICY;
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
 * Always within `[0, maxDelay]`. A `backoff` that gives anything but a
 * number throws a `GrabValidationError`: `"500"` is not taken for 500 ms.
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
  const wanted: unknown = policy.backoff ? policy.backoff(attempt) : random() *
    Math.min(policy.maxDelay, RETRY.backoffBase * 2 ** (attempt - 1));
  if (typeof wanted !== "number") throw notMilliseconds(wanted);
  if (!(wanted > 0)) return 0;
  return Math.min(wanted, policy.maxDelay);
}

// Worded and placed as the options' own issues: `path` is a pointer into
// the body, so `""` here.
function notMilliseconds(value: unknown) {
  const gave = value === undefined
    ? "nothing"
    : isThenable(value)
    ? "a Promise, which is not awaited: give the number itself"
    : describeValue(value);
  const message = `Cannot use the option "retry.backoff": it must return ` +
    `a number of milliseconds, and it returned ${gave}`;
  return validationError([{ path: "", message }]);
}

/**
 * True for a promise (an async backoff), whose failure is then taken as
 * handled: it is never awaited, and would end the program as an unhandled
 * rejection.
 */
function isThenable(value: unknown): boolean {
  let then: unknown;
  try {
    then = (value as PromiseLike<unknown> | null)?.then;
  } catch {
    return false;
  }
  if (typeof then !== "function") return false;
  try {
    then.call(value, undefined, () => {});
  } catch {
    // A `then` that throws has nothing pending to leave unhandled.
  }
  return true;
}

/** The longest wait a timer can hold: 2^31 − 1 ms (about 24.8 days). */
export const MAX_TIMER_DELAY = 2 ** 31 - 1;

/**
 * The wait before retrying a retryable status: what `Retry-After` asks, or
 * the backoff without it. `undefined`, so that the response is returned as
 * it is, when the server asks for more than `maxDelay`, when the wait would
 * take the `left` milliseconds of the timeout (the retry could not be made
 * in time: the status says more than a timeout would), or when it is more
 * than a timer can hold. `now` is the wall clock, which an HTTP-date is on.
 */
export function statusRetryDelay(
  attempt: number,
  retryAfter: string | null,
  policy: RetryPolicy,
  left: number,
  now: number = Date.now(),
): number | undefined {
  const asked = parseRetryAfter(retryAfter, now);
  if (asked !== undefined && (asked > policy.maxDelay || asked >= left)) {
    return undefined;
  }
  const delay = asked ?? retryDelay(attempt, policy);
  return delay >= left || delay > MAX_TIMER_DELAY ? undefined : delay;
}
