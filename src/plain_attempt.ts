/**
 * The attempts of an exchange, the plain one's first taken short: no hook,
 * no counted upload or stream body, no `attemptTimeout`. Its answer is read
 * in the promise chain of `fetch` itself (raced against the deadline and
 * checked, for a `fetch` not the platform's), with none of the attempt
 * loop's frames around it; whatever is not a plain answer (a failure, a
 * status to retry, a head that cannot be read) goes on as the loop would
 * take it.
 *
 * @module
 */

import { type Exchange, runAttempts } from "./attempts.ts";
import { readingOf, withStatus } from "./attempt_status.ts";
import {
  attemptLimit,
  networkFailure,
  passed,
  retriesOf,
  type Retry,
} from "./attempt_failure.ts";
import { PASSED } from "./deadline.ts";
import { isPlatform, sendRequest, statusOf } from "./fetch.ts";
import { noteSent } from "./http_error.ts";
import { readOutcome } from "./outcome.ts";
import type { SendOutcome } from "./result.ts";
import { sourceOf } from "./send.ts";
import { isMadeFirst } from "./stream_request.ts";
import { owns } from "./object.ts";

/**
 * Runs the attempts of `exchange` until one gives an outcome the policy does
 * not retry, as {@linkcode runAttempts} does.
 */
export function attemptAll(exchange: Exchange): Promise<SendOutcome> {
  if (!isPlain(exchange)) return runAttempts(exchange);
  const { fetch, href, init } = exchange;
  // The number of the retry that may follow, as the loop counts it.
  const retry = retriesOf(exchange) > 0 ? 1 : 0;
  let sending: Promise<Response>;
  try {
    // Called as a plain function: see `sendRequest`. A wrapper installed
    // before grab may give its answer without a promise, as `await` takes.
    sending = isPlatform(fetch)
      ? Promise.resolve(fetch(href, init))
      : sendRequest(fetch, href, init, undefined, exchange.deadline);
  } catch (cause) {
    // Not the platform's, which rejects: a wrapper or a custom `fetch`.
    sending = Promise.reject(cause);
  }
  return sending.then(
    (response) => plainAnswer(exchange, retry, response),
    (cause) =>
      cause === PASSED ? passed(exchange) : goOn(
        exchange,
        networkFailure(
          exchange,
          exchange.deadline,
          retry,
          undefined,
          cause,
          true,
        ),
      ),
  );
}

/**
 * True for an exchange whose first attempt is only `fetch` and a read: no
 * hook, no counted upload, stream body or blob of a class with its own
 * `stream()` (each needs a request made for it), no attempt deadline of its
 * own, and a deadline not yet passed.
 */
function isPlain(exchange: Exchange): boolean {
  const { init } = exchange;
  return exchange.hooks === undefined &&
    exchange.onUploadProgress === undefined &&
    attemptLimit(exchange) === undefined &&
    !isMadeFirst(init.body) &&
    exchange.deadline.reason === undefined;
}

/** The first answer read, unless it is one the attempt loop takes. */
function plainAnswer(
  exchange: Exchange,
  retry: number,
  response: Response,
): SendOutcome | Promise<SendOutcome> {
  const { deadline } = exchange;
  const status = statusOf(response);
  const source = sourceOf(exchange, response, deadline, undefined);
  // Status 0 is a network error a wrapper answered with, or a response
  // that is opaque: the loop tells them apart.
  if (
    status === undefined || status === 0 ||
    (retry !== 0 && exchange.policy.statusCodes.has(status))
  ) {
    const step = withStatus(
      exchange,
      deadline,
      retry,
      undefined,
      undefined,
      response,
      source,
      status,
    );
    return goOn(exchange, step);
  }
  const reading = readingOf(
    exchange,
    response,
    status,
    source,
    undefined,
    undefined,
  );
  return readOutcome(reading).then(
    (outcome) =>
      owns(outcome, "broken")
        ? goOn(
          exchange,
          networkFailure(
            exchange,
            deadline,
            retry,
            undefined,
            outcome.broken,
            false,
            outcome.status,
          ),
        )
        : noteSent(
          outcome,
          exchange.init.headers ?? {},
          exchange.read?.schema !== undefined,
        ),
    (error: unknown) => rejected(exchange, error),
  );
}

/** The first attempt's step taken on: a retry by the loop, else its outcome. */
function goOn(
  exchange: Exchange,
  step: SendOutcome | Retry | Promise<SendOutcome | Retry>,
): SendOutcome | Promise<SendOutcome> {
  if (step instanceof Promise) {
    return step.then(
      (taken) => goOn(exchange, taken),
      (error: unknown) => rejected(exchange, error),
    );
  }
  return owns(step, "retry") ? runAttempts(exchange, step) : step;
}

/** A rejection as the loop gives it: the deadline's passing is an outcome. */
function rejected(exchange: Exchange, error: unknown): SendOutcome {
  if (error === PASSED) return passed(exchange);
  throw error;
}
