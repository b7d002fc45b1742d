/**
 * The attempts of one exchange: send, run the hooks, retry what the policy
 * retries, read the body. Everything the caller's code or a server controls
 * is held to the exchange's {@linkcode Deadline}.
 *
 * @module
 */

import { type BodySource, discardBody, readBody, TOO_LARGE } from "./body.ts";
import { type Deadline, PASSED, sleep } from "./deadline.ts";
import type { HttpMethod } from "./endpoint.ts";
import {
  type GrabTransportError,
  transportError,
  type TransportErrorKind,
} from "./errors.ts";
import { type Fetch, isPlatform, sendRequest } from "./fetch.ts";
import { type Hooks, runAfterResponse } from "./hooks.ts";
import type { SendOutcome } from "./result.ts";
import {
  MAX_TIMER_DELAY,
  retryDelay,
  type RetryPolicy,
  statusRetryDelay,
} from "./retry.ts";

/** Everything the attempts of one exchange need, decided before the first. */
export interface Exchange {
  method: HttpMethod;
  href: string;
  init: RequestInit;
  /** False for a stream body, which cannot be sent twice. */
  replayable: boolean;
  hooks: Hooks | undefined;
  fetch: Fetch;
  policy: RetryPolicy;
  maxBodyBytes: number;
  deadline: Deadline;
}

/** An attempt that failed in a way the policy retries. */
interface Retry {
  retry: true;
  request: Request | undefined;
  delay: number;
  error: GrabTransportError | undefined;
  statusCode: number | undefined;
}

/**
 * Runs attempts until one gives an outcome the policy does not retry. A hook
 * that throws rejects; everything else resolves. The deadline stays the
 * caller's to dispose.
 */
export async function runAttempts(exchange: Exchange): Promise<SendOutcome> {
  const { policy, hooks, deadline } = exchange;
  const retries = exchange.replayable && policy.methods.has(exchange.method)
    ? policy.limit
    : 0;
  try {
    if (deadline.reason !== undefined) return passed(exchange);
    for (let attempt = 0;; attempt++) {
      const step = await attemptOnce(
        exchange,
        attempt < retries ? attempt + 1 : 0,
      );
      if (!("retry" in step)) return step;
      if (hooks?.beforeRetry) {
        await deadline.race(hooks.beforeRetry({
          request: step.request ?? new Request(exchange.href, exchange.init),
          attempt: attempt + 1,
          error: step.error,
          statusCode: step.statusCode,
          delay: step.delay,
        }));
      }
      if (!(await sleep(step.delay, deadline.signal))) return passed(exchange);
    }
  } catch (error) {
    if (error === PASSED) return passed(exchange);
    throw error;
  }
}

/**
 * One attempt: send, run the response hook, read the body. `retry` is the
 * number of the retry that may follow, or 0 when none may.
 */
async function attemptOnce(
  exchange: Exchange,
  retry: number,
): Promise<SendOutcome | Retry> {
  const { hooks, deadline } = exchange;
  let request: Request | undefined;
  if (hooks !== undefined) {
    request = new Request(exchange.href, exchange.init);
    if (hooks.beforeRequest) {
      request = (await deadline.race(hooks.beforeRequest(request))) ?? request;
    }
  }
  let response: Response;
  // afterResponse gets the request unsent, so it can build a repeat of it
  // (a token refresh) even when the request has a body.
  const sent = request !== undefined && hooks?.afterResponse &&
      request.body !== null
    ? request.clone()
    : request;
  try {
    const { fetch, href, init } = exchange;
    response = await sendRequest(fetch, href, init, sent, deadline);
  } catch (cause) {
    if (cause === PASSED) throw cause;
    return networkFailure(exchange, retry, request, cause);
  }
  const source = fromFetch(exchange);
  let platform = source.platform;
  if (hooks?.afterResponse) {
    const replaced = await runAfterResponse(
      hooks.afterResponse,
      request!,
      response,
      source,
    );
    platform &&= replaced === response;
    response = replaced;
  }
  const status = response.status;
  if (retry !== 0 && exchange.policy.statusCodes.has(status)) {
    let delay: number | undefined;
    try {
      delay = statusRetryDelay(
        retry,
        response.headers.get("retry-after"),
        exchange.policy,
        deadline.end,
      );
    } catch (error) {
      // A backoff that throws is the caller's bug; the body is not left open.
      await discardBody(response, { platform, deadline });
      throw error;
    }
    if (delay !== undefined) {
      await discardBody(response, { platform, deadline });
      return {
        retry: true,
        request,
        delay,
        error: undefined,
        statusCode: status,
      };
    }
  }
  return await readOutcome(exchange, retry, request, response, platform);
}

/** The source of a response as the exchange's `fetch` gave it. */
function fromFetch(exchange: Exchange): BodySource {
  return {
    platform: isPlatform(exchange.fetch),
    deadline: exchange.deadline,
  };
}

/**
 * Reads the body into the outcome. A 2xx body that breaks off is a network
 * failure; once a non-2xx head has arrived, the outcome is that response
 * whatever happens to its body, which is then `null`.
 */
async function readOutcome(
  exchange: Exchange,
  retry: number,
  request: Request | undefined,
  response: Response,
  platform: boolean,
): Promise<SendOutcome | Retry> {
  const status = response.status;
  const ok = status >= 200 && status < 300;
  const { deadline, method, maxBodyBytes } = exchange;
  let text: string | null | typeof TOO_LARGE;
  try {
    text = await readBody(response, method, maxBodyBytes, {
      platform,
      deadline,
    });
  } catch (cause) {
    if (!ok) text = null;
    else if (cause === PASSED || deadline.reason !== undefined) throw PASSED;
    else return networkFailure(exchange, retry, request, cause);
  }
  if (text === TOO_LARGE) {
    if (ok) return failure(exchange, "too-large");
    text = null;
  }
  let body: unknown = null;
  if (text !== null) {
    if (ok) {
      try {
        body = JSON.parse(text);
      } catch (cause) {
        return failure(exchange, "parse", cause);
      }
    } else {
      body = parseLoose(text);
    }
  }
  return {
    ok: true,
    status,
    statusText: response.statusText,
    url: response.url || exchange.href,
    headers: response.headers,
    body,
    empty: text === null,
  };
}

/** A failure before the head arrived: retried while the policy allows. */
function networkFailure(
  exchange: Exchange,
  retry: number,
  request: Request | undefined,
  cause: unknown,
): SendOutcome | Retry {
  const kind = exchange.deadline.reason ?? "network";
  const outcome = failure(exchange, kind, cause);
  if (kind !== "network" || retry === 0) return outcome;
  const delay = retryDelay(retry, exchange.policy);
  if (delay > MAX_TIMER_DELAY) return outcome;
  return {
    retry: true,
    request,
    delay,
    error: outcome.error,
    statusCode: undefined,
  };
}

/** The outcome once the deadline has passed: kind `"timeout"` or `"abort"`. */
function passed(exchange: Exchange): SendOutcome {
  const { deadline } = exchange;
  return failure(exchange, deadline.reason ?? "abort", deadline.signal?.reason);
}

/** A transport failure of the exchange. */
function failure(
  exchange: Exchange,
  kind: TransportErrorKind,
  cause?: unknown,
): { ok: false; error: GrabTransportError } {
  return {
    ok: false,
    error: transportError(kind, exchange.method, exchange.href, { cause }),
  };
}

function parseLoose(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
