/**
 * An attempt from its status on: a response without one failed, a retryable
 * status retried, the body read as the request sent (a `beforeRequest` hook
 * may have changed its method and URL).
 *
 * @module
 */

import { type BodySource, discardBody } from "./body.ts";
import type { Deadline } from "./deadline.ts";
import type { Exchange } from "./attempts.ts";
import {
  failure,
  networkFailure,
  type Retry,
  retryWait,
} from "./attempt_failure.ts";
import { isNetworkError, networkErrorCause } from "./fetch.ts";
import { READ_JSON, type Reading, readOutcome } from "./outcome.ts";
import type { SendOutcome } from "./result.ts";
import type { Upload } from "./upload.ts";
import { noteHidden, noteSent } from "./http_error.ts";
import { bodyAnswered } from "./send.ts";
import { owns } from "./object.ts";

/**
 * An attempt from its status on, read once (a response-like may give
 * another on a later read): one without a status failed, a retryable status
 * retried, the body read.
 */
export async function withStatus(
  exchange: Exchange,
  attempt: Deadline,
  retry: number,
  upload: Upload | undefined,
  request: Request | undefined,
  response: Response,
  source: BodySource & { deadline: Deadline },
  status: number | undefined,
): Promise<SendOutcome | Retry> {
  if (status === undefined) {
    await discardBody(response, source);
    const cause = new TypeError("Cannot read the response: it has no status");
    return networkFailure(exchange, attempt, retry, request, cause);
  }
  // A wrapper that passes for the platform's `fetch` may tell a failure as a
  // service worker does; only that status is worth the look.
  if (status === 0 && isNetworkError(response)) {
    const cause = networkErrorCause();
    return networkFailure(exchange, attempt, retry, request, cause);
  }
  let unread: string | undefined;
  if (retry !== 0 && exchange.policy.statusCodes.has(status)) {
    const delay = await retryWait(exchange, retry, response, source);
    if (typeof delay === "number") {
      return {
        retry: true,
        request,
        delay,
        error: undefined,
        statusCode: status,
      };
    }
    // Its body let go of, when the drain took the time the wait needed. A
    // success is nothing without its body: the grab ends as the time does.
    if (delay !== undefined && status >= 200 && status < 300) {
      return failure(exchange, "timeout", undefined, request, delay);
    }
    unread = delay;
  }
  const reading = readingOf(
    exchange,
    response,
    status,
    source,
    upload,
    request,
  );
  reading.unread = unread;
  const outcome = await readOutcome(reading);
  if (status === 0) noteHidden(outcome, response);
  const sent = request?.headers ?? exchange.init.headers ?? {};
  noteSent(outcome, sent, exchange.read?.schema !== undefined);
  bodyAnswered(exchange, upload, outcome, source.platform);
  if (!owns(outcome, "broken")) return outcome;
  const { broken, status: brokeOff } = outcome;
  return networkFailure(
    exchange,
    attempt,
    retry,
    request,
    broken,
    false,
    brokeOff,
  );
}

/**
 * What `readOutcome` reads an attempt's response with; `request` is the one
 * sent, as a `beforeRequest` hook left it, when there are hooks.
 */
export function readingOf(
  exchange: Exchange,
  response: Response,
  status: number,
  source: BodySource & { deadline: Deadline },
  upload: Upload | undefined,
  request: Request | undefined,
): Reading {
  return {
    method: request?.method ?? exchange.method,
    // A counted upload that followed a redirect itself is now elsewhere.
    href: upload?.movedTo ?? request?.url ?? exchange.href,
    maxBodyBytes: exchange.maxBodyBytes,
    read: exchange.read ?? READ_JSON,
    response,
    status,
    source,
    whole: exchange.deadline,
    // Closures only where there is a body to let go of or to blame.
    letGoOfBody: exchange.source === undefined && upload === undefined
      ? undefined
      : () => letGoOfBody(exchange, upload, source.platform),
    bodyFailed: exchange.source === undefined
      ? undefined
      : () => exchange.source!.failed,
    sent: request?.headers ?? exchange.init.headers,
  };
}

/**
 * Lets go of the request's body once a live response is done with (read to
 * its end, cancelled, failed): the rest is no longer wanted, as when any
 * other answer is read (see {@linkcode bodyAnswered}, whose rules it
 * follows: `platform` when the platform's `fetch` made the response).
 */
function letGoOfBody(
  exchange: Exchange,
  upload: Upload | undefined,
  platform: boolean,
): void {
  upload?.leave();
  if (platform) exchange.source?.finish();
}
