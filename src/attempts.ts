/**
 * The attempts of one exchange: send, run the hooks, retry what the policy
 * retries, read the body. Everything the caller's code or a server controls
 * is held to the exchange's {@linkcode Deadline}.
 *
 * @module
 */

import { owns } from "./object.ts";
import { Deadline, PASSED, sleep } from "./deadline.ts";
import type { HttpMethod } from "./endpoint.ts";
import {
  attemptLimit,
  networkFailure,
  passed,
  retriesOf,
  type Retry,
  sourceFailure,
} from "./attempt_failure.ts";
import {
  type Fetch,
  isNetworkError,
  networkErrorCause,
  statusOf,
} from "./fetch.ts";
import { callHook, type Hooks, refuseLockedBody } from "./hooks.ts";
import { runAfterResponse } from "./after_response.ts";
import { discardBody } from "./body.ts";
import type { ReadSettings } from "./outcome.ts";
import type { Progress } from "./response_type.ts";
import type { SendOutcome } from "./result.ts";
import type { Upload } from "./upload.ts";
import { buildHookedRequest, pairForHooks } from "./hooked_request.ts";
import { releaseReplaced } from "./replaced.ts";
import { withStatus } from "./attempt_status.ts";
import {
  attemptInit,
  send,
  sourceOf,
  Unloaded,
  uploaded,
  uploadOf,
} from "./send.ts";
import { streamRequest } from "./stream_request.ts";
import type { RetryPolicy } from "./retry.ts";
import type { SourcePipe } from "./source_pipe.ts";

/** Everything the attempts of one exchange need, decided before the first. */
export interface Exchange {
  method: HttpMethod;
  href: string;
  init: RequestInit;
  /** False for a stream body, which cannot be sent twice. */
  replayable: boolean;
  /** The pipe a stream body is sent through: it tells when its source failed. */
  source?: SourcePipe | undefined;
  hooks: Hooks | undefined;
  fetch: Fetch;
  policy: RetryPolicy;
  maxBodyBytes: number;
  /** The whole grab's deadline. */
  deadline: Deadline;
  /** Milliseconds for each attempt; `false` or absent for none. */
  attemptTimeout?: number | false | undefined;
  /** How a 2xx body is read; JSON when absent. */
  read?: ReadSettings | undefined;
  /** Told as the request body is sent. */
  onUploadProgress?: ((progress: Progress) => void) | undefined;
  /**
   * How many attempts have begun, as the attempt loop counts them; absent
   * while only the first has.
   */
  attempts?: number | undefined;
}

/**
 * Runs attempts until one gives an outcome the policy does not retry. A hook
 * that throws rejects; everything else resolves. The deadline stays the
 * caller's to dispose. `after` is a first attempt made already, whose retry
 * is taken from here.
 */
export async function runAttempts(
  exchange: Exchange,
  after?: Retry,
): Promise<SendOutcome> {
  const { hooks, deadline } = exchange;
  const retries = retriesOf(exchange);
  let upload: Upload | undefined;
  try {
    if (deadline.reason !== undefined) return passed(exchange);
    const preparing = uploadOf(exchange);
    upload = preparing === undefined ? undefined : await preparing;
    for (let attempt = 0;; attempt++) {
      // A network failure's message counts them.
      exchange.attempts = attempt + 1;
      const step = attempt === 0 && after !== undefined
        ? after
        : await attemptOnce(
          exchange,
          attempt < retries ? attempt + 1 : 0,
          upload,
        );
      const retrying = owns(step, "retry");
      // A failed or retried attempt ends its upload; a callback error rejects.
      if (retrying || !step.ok) upload?.end();
      if (!retrying) return step;
      // A retry whose time came while its answer was let go of is not
      // begun, nor its hooks run.
      if (deadline.due()) return passed(exchange);
      if (hooks?.beforeRetry) {
        await deadline.race(callHook(hooks.beforeRetry, deadline, {
          request: step.request ?? new Request(exchange.href, exchange.init),
          attempt: attempt + 1,
          error: step.error,
          statusCode: step.statusCode,
          delay: step.delay,
        }));
      }
      // A busy loop fires the wait's timer late, maybe before the timeout's:
      // a retry past the timeout is not begun, nor its hooks run.
      if (!(await sleep(step.delay, deadline.signal)) || deadline.due()) {
        return passed(exchange);
      }
    }
  } catch (error) {
    upload?.leave();
    if (error === PASSED) return passed(exchange);
    if (error instanceof Unloaded) return error.outcome;
    throw error;
  }
}

/**
 * One attempt, within its own `attemptTimeout` when there is one: an
 * attempt that passes it fails as the network would, and may be retried.
 * `retry` is the number of the retry that may follow, or 0 when none may.
 */
function attemptOnce(
  exchange: Exchange,
  retry: number,
  upload: Upload | undefined,
): Promise<SendOutcome | Retry> {
  const limit = attemptLimit(exchange);
  return limit === undefined
    ? attemptWithin(exchange, exchange.deadline, { retry }, upload)
    : attemptTimed(exchange, limit, retry, upload);
}

/** One attempt within its own deadline, which ends with it. */
async function attemptTimed(
  exchange: Exchange,
  limit: number,
  retry: number,
  upload: Upload | undefined,
): Promise<SendOutcome | Retry> {
  const whole = exchange.deadline;
  const attempt = new Deadline(limit, whole.signal);
  const plan: Plan = { retry };
  try {
    return await attemptWithin(exchange, attempt, plan, upload);
  } catch (error) {
    if (error !== PASSED || whole.reason !== undefined) throw error;
    const cause = attempt.signal?.reason;
    return networkFailure(exchange, attempt, plan.retry, plan.sent, cause);
  } finally {
    // A live body keeps it until the body is done with.
    attempt.dispose();
  }
}

/**
 * What an attempt that passes its `attemptTimeout` fails as: the retry that
 * may follow (none for a method a hook sent that the policy does not
 * retry), and the request sent, which names the failure.
 */
interface Plan {
  retry: number;
  sent?: Request | undefined;
}

/** One attempt: send, run the response hook, read the body. */
async function attemptWithin(
  exchange: Exchange,
  attempt: Deadline,
  plan: Plan,
  upload: Upload | undefined,
): Promise<SendOutcome | Retry> {
  const { hooks } = exchange;
  const init = attemptInit(exchange, attempt, upload);
  let request = hooks === undefined
    ? streamRequest(exchange, init, upload)
    : await buildHookedRequest(exchange, init, attempt);
  // A hook may send another method: one the policy does not retry is not.
  if (request !== undefined && !exchange.policy.methods.has(request.method)) {
    plan.retry = 0;
  }
  const next = plan.retry;
  let sent = request;
  // `afterResponse`, and `beforeRetry` when a retry may follow, see the
  // request unsent, its body there to read.
  const unsent = hooks?.afterResponse || (hooks?.beforeRetry && next !== 0);
  if (request !== undefined && unsent) {
    [sent, request] = pairForHooks(exchange, attempt, request);
  }
  plan.sent = request;
  let response: Response;
  try {
    response = await send(exchange, attempt, init, sent, upload);
  } catch (cause) {
    upload?.rethrow();
    // A busy loop may run a failure past the time before its timer.
    if (cause === PASSED || attempt.due()) throw PASSED;
    if (hooks?.beforeRequest) refuseLockedBody(sent!);
    const broken = sourceFailure(exchange, request);
    if (broken !== undefined) return broken;
    return networkFailure(exchange, attempt, next, request, cause, true);
  } finally {
    // `fetch` has taken the request: what the hooks replaced is let go.
    if (hooks?.beforeRequest) releaseReplaced(request, sent);
  }
  return answered(exchange, attempt, next, upload, request, response);
}

/**
 * An attempt from its response on: the response hook run, then its status
 * read and taken on by {@linkcode withStatus}. `request` is what a hook
 * saw, if any.
 */
async function answered(
  exchange: Exchange,
  attempt: Deadline,
  retry: number,
  upload: Upload | undefined,
  request: Request | undefined,
  answer: Response,
): Promise<SendOutcome | Retry> {
  const { hooks } = exchange;
  let response = answer;
  const source = sourceOf(exchange, response, attempt, request);
  if (upload !== undefined) await uploaded(upload, response, source);
  const broken = sourceFailure(exchange, request);
  if (broken !== undefined) {
    await discardBody(response, source);
    return broken;
  }
  if (hooks?.afterResponse) {
    response = await runAfterResponse(
      hooks.afterResponse,
      request!,
      response,
      source,
    );
    if (isNetworkError(response)) {
      const cause = networkErrorCause();
      return networkFailure(exchange, attempt, retry, request, cause);
    }
  }
  return withStatus(
    exchange,
    attempt,
    retry,
    upload,
    request,
    response,
    source,
    statusOf(response),
  );
}
