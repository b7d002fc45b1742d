/**
 * How an attempt fails before it has an outcome to read: the transport
 * failure of the exchange, or the retry the policy makes of it.
 *
 * @module
 */

import type { Deadline } from "./deadline.ts";
import type { Exchange } from "./attempts.ts";
import type { GrabTransportError, TransportErrorKind } from "./errors.ts";
import {
  attemptTimeoutMessage,
  brokenBodyMessage,
  LET_GO_FOR_RETRY,
  networkMessage,
  SOURCE_FAILED,
  timeoutMessage,
  transportError,
} from "./transport_error.ts";
import { browserRefusal } from "./browser.ts";
import { MAX_TIMER_DELAY, retryDelay, statusRetryDelay } from "./retry.ts";
import { type BodySource, discardBody } from "./body.ts";
import { letGo } from "./drain.ts";
import { headerOf } from "./platform_response.ts";
import { isLive } from "./response_type.ts";
import { chainOf, unmendable } from "./unmendable.ts";
import { networkSaid } from "./network_said.ts";
import { thrownMessage } from "./fetch.ts";
import type { SendOutcome } from "./result.ts";

/** An attempt that failed in a way the policy retries. */
export interface Retry {
  retry: true;
  request: Request | undefined;
  delay: number;
  error: GrabTransportError | undefined;
  statusCode: number | undefined;
}

/**
 * How many retries may follow the first attempt: none for a stream body or
 * a method the policy leaves alone.
 */
export function retriesOf(exchange: Exchange): number {
  const { policy } = exchange;
  return exchange.replayable && policy.methods.has(exchange.method)
    ? policy.limit
    : 0;
}

/**
 * The milliseconds of the next attempt, or `undefined` when it has no limit
 * of its own: none is set, or the grab's time ends first (it may end a
 * little late, a signal shared by grabs that started together, but the
 * attempt must not end in its place). A live body outlives the grab's
 * time, so its attempt keeps its limit.
 */
export function attemptLimit(exchange: Exchange): number | undefined {
  const limit = exchange.attemptTimeout;
  if (limit === undefined || limit === false || limit === Infinity) {
    return undefined;
  }
  const live = exchange.read !== undefined &&
    isLive(exchange.read.responseType);
  return !live && limit >= exchange.deadline.left() ? undefined : limit;
}

/**
 * A failure before the head arrived, or of a 2xx body after it (`brokeOff`,
 * the response's status: the message then says so): retried while the
 * policy allows. `refused` when `fetch` itself rejected, which a browser
 * also does for what it refuses to send or to show: the message then says
 * so. The last of several attempts is counted.
 */
export function networkFailure(
  exchange: Exchange,
  attempt: Deadline,
  retry: number,
  request: Request | undefined,
  cause: unknown,
  refused = false,
  brokeOff?: number,
): SendOutcome | Retry {
  // `due`: a busy loop may run a failure past the time before its timer.
  if (exchange.deadline.due()) {
    return failure(exchange, exchange.deadline.reason!, cause, request);
  }
  const timedOut = attempt.due();
  const refusal = !timedOut
    ? unmendable(cause, refused && !exchange.replayable)
    : undefined;
  if (refusal !== undefined) {
    // No retry would mend it: the permission or the port stays refused.
    return failure(exchange, "network", cause, request, refusal);
  }
  const delay = retry === 0 ? Infinity : retryDelay(retry, exchange.policy);
  // Too late for a retry: the failure says more than a timeout would.
  const last = delay >= exchange.deadline.left() || delay > MAX_TIMER_DELAY;
  // Only the last attempt counts them: what `beforeRetry` is told of one
  // that a retry follows says what that attempt met, not that it was last.
  const counted = last ? exchange : { ...exchange, attempts: 1 };
  const attempts = counted.attempts ?? 1;
  const message = brokeOff === undefined
    ? thrownMessage(cause, attempts)
    : brokenBodyMessage(brokeOff, undefined, attempts);
  // Only the attempt's own time can have ended it: retried like the network.
  const outcome = !timedOut
    ? failure(counted, "network", cause, request, message, refused)
    : failure(
      counted,
      "timeout",
      cause,
      request,
      attemptTimeoutMessage(attempt, attempts),
    );
  if (last) return outcome;
  return {
    retry: true,
    request,
    delay,
    error: outcome.error,
    statusCode: undefined,
  };
}

/**
 * The failure of an attempt whose stream body failed while it was sent,
 * whatever came of it (some runtimes send the body cut short, and give the
 * server's answer); `undefined` when it did not fail. Never retried: the
 * body cannot be sent again.
 */
export function sourceFailure(
  exchange: Exchange,
  sent: Request | undefined,
): { ok: false; error: GrabTransportError } | undefined {
  const failed = exchange.source?.failed;
  if (failed === undefined) return undefined;
  return failure(exchange, "network", failed.error, sent, SOURCE_FAILED);
}

/** The outcome once the deadline has passed: kind `"timeout"` or `"abort"`. */
export function passed(exchange: Exchange): SendOutcome {
  const { deadline } = exchange;
  return failure(exchange, deadline.reason ?? "abort", deadline.signal?.reason);
}

/**
 * A transport failure of the exchange, named by the request sent (`sent`, as
 * a `beforeRequest` hook left it) or, when there is none, by the exchange's
 * own; `refused` when `fetch` rejected it.
 */
export function failure(
  exchange: Exchange,
  kind: TransportErrorKind,
  cause?: unknown,
  sent?: Request,
  message?: string,
  refused = false,
): { ok: false; error: GrabTransportError } {
  const method = sent?.method ?? exchange.method;
  const href = sent?.url ?? exchange.href;
  const refusal = refused
    ? browserRefusal(
      href,
      !exchange.replayable,
      sent?.credentials ?? exchange.init.credentials,
    )
    : undefined;
  // Else what the runtime says the network's failure was, where it says.
  const said = refusal === undefined && kind === "network" &&
      message === undefined
    ? networkSaid(chainOf(cause), href)
    : undefined;
  const detail = refusal ?? said;
  return {
    ok: false,
    error: transportError(kind, method, href, {
      cause,
      message: message ?? toldOf(exchange, kind),
      detail,
    }),
  };
}

/**
 * The message of a failure whose caller gave none: a timeout without one
 * is the grab's own, which names its milliseconds; the network's failure
 * of the last of several attempts counts them, as the caller cannot tell
 * retries made from none.
 */
function toldOf(
  exchange: Exchange,
  kind: TransportErrorKind,
): string | undefined {
  if (kind === "timeout") return timeoutMessage(exchange.deadline);
  return kind === "network"
    ? networkMessage(exchange.attempts ?? 1)
    : undefined;
}

/**
 * The wait before retrying a retryable status, its body let go (read to
 * its end first, where that keeps the connection), or
 * `undefined` when the server asks for a wait too long. A backoff that
 * throws is the caller's bug: the body is cancelled and the error rejects.
 * A body slow to end (its drain waits up to a second) may take the time the
 * wait needed: no wait is then begun that the timeout would cut short, and
 * the answer is returned, its body gone, with {@linkcode LET_GO_FOR_RETRY}
 * (a success, nothing without its body, as a timeout).
 */
export async function retryWait(
  exchange: Exchange,
  retry: number,
  response: Response,
  source: BodySource,
): Promise<number | typeof LET_GO_FOR_RETRY | undefined> {
  let delay: number | undefined;
  try {
    delay = statusRetryDelay(
      retry,
      headerOf(response, source.platform, "retry-after"),
      exchange.policy,
      exchange.deadline.left(),
    );
  } catch (error) {
    await discardBody(response, source);
    throw error;
  }
  if (delay === undefined) return undefined;
  await letGo(response, source);
  // One whose time has passed, or whose caller aborted, ends as such.
  const { deadline } = exchange;
  const fits = delay < deadline.left() || deadline.reason !== undefined;
  return fits ? delay : LET_GO_FOR_RETRY;
}
