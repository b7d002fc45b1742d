/**
 * The request of an attempt that has hooks: as `beforeRequest` leaves it,
 * the requests it replaced held until `fetch` has taken it, and the copy
 * an `afterResponse` or `beforeRetry` hook sees unsent.
 *
 * @module
 */

import type { Exchange } from "./attempts.ts";
import type { Deadline } from "./deadline.ts";
import { callHook, isRequest, notA, releaseRequest } from "./hooks.ts";
import {
  holdReplaced,
  releaseReplaced,
  releaseUnsentRequest,
} from "./replaced.ts";
import { attemptInit, makeRequest } from "./send.ts";

/**
 * The request the hooks see, as `beforeRequest` leaves it. What the platform
 * refuses to make a request of is the caller's to fix. A request a hook
 * replaced is held until the one left is sent (see `replaced.ts`); when
 * none will be, it is released here.
 */
export async function buildHookedRequest(
  exchange: Exchange,
  init: RequestInit,
  attempt: Deadline,
): Promise<Request> {
  const request = makeRequest(exchange, init);
  const hook = exchange.hooks!.beforeRequest;
  if (hook === undefined) return request;
  let sent = request;
  try {
    const running = callHook(hook, attempt, request);
    const replaced = await attempt.race(running, releaseUnsentRequest);
    // The hook's bug, not a request to send and retry as the network failing.
    if (replaced && !isRequest(replaced)) {
      throw notA("Request", "beforeRequest");
    }
    if (replaced) sent = replaced;
    if (sent.bodyUsed) throw usedBody();
  } catch (error) {
    // Nothing is sent: the caller's stream, or a branch of it a hook teed,
    // is let go, and so is what a chain of hooks replaced.
    releaseReplaced(sent, undefined);
    if (!exchange.replayable) releaseRequest(request);
    throw error;
  }
  // A replayable body is grab's own bytes, which hold nothing open.
  if (sent !== request && !exchange.replayable) holdReplaced(sent, [request]);
  return sent;
}

/**
 * A request whose body a `beforeRequest` hook read, or that it returned for
 * an earlier attempt too, which sent it: it cannot be sent.
 */
function usedBody(): TypeError {
  return new TypeError(
    "Cannot send the request: the Request a beforeRequest hook left has its body used (the hook read it, or an earlier attempt sent it); read a clone(), and return a new Request for each attempt",
  );
}

/**
 * The request to send and the one the hooks see unsent, so that
 * `afterResponse` can build a repeat of it (a token refresh), and
 * `beforeRetry` read what failed, even when it has a body. A replayable
 * body that no `beforeRequest` hook could change is made again from the
 * exchange: a clone would tee it, and hold every
 * byte sent until the hook is done. A stream body is not kept at all: the
 * hook sees the request as sent, its body used, as no retry could send it
 * again either.
 */
export function pairForHooks(
  exchange: Exchange,
  attempt: Deadline,
  request: Request,
): [sent: Request, unsent: Request] {
  if (!exchange.replayable) return [request, request];
  // Not told by `request.body`: reading it makes Deno send a body of bytes
  // as a stream, chunked, without the `Content-Length` a server may want.
  if (exchange.hooks?.beforeRequest !== undefined) {
    return [request.clone(), request];
  }
  if (exchange.init.body === undefined || exchange.init.body === null) {
    return [request, request];
  }
  const plain = attemptInit(exchange, attempt, undefined);
  return [request, new Request(exchange.href, plain)];
}
