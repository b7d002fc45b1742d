/**
 * What each attempt sends, and sending it: the exchange's init with the
 * attempt's own signal and, when the upload is reported, a fresh counted
 * body, sent again whole when it meets a redirect.
 *
 * @module
 */

import type { Exchange } from "./attempts.ts";
import { type BodySource, discardBody } from "./body.ts";
import { isBrowser } from "./browser.ts";
import { isNode } from "./runtime.ts";
import { tellProgress } from "./progress.ts";
import { asValidationError } from "./validation_error.ts";
import { type Deadline, PASSED } from "./deadline.ts";
import { isPlatform, isPlatformResponse, sendRequest } from "./fetch.ts";
import { lazy } from "./lazy.ts";
import type { Broken } from "./outcome.ts";
import { isLive, type ResponseType } from "./response_type.ts";
import type { SendOutcome } from "./result.ts";
import { unloadedOutcome } from "./transport_error.ts";
import type { Upload } from "./upload.ts";
import { bare, owns } from "./object.ts";

/** Thrown for an upload module not loaded: the exchange's network failure. */
export class Unloaded {
  constructor(readonly outcome: SendOutcome & { ok: false }) {}
}

/**
 * The body of an exchange whose upload is reported, prepared once; it
 * rejects with {@linkcode Unloaded} when the upload module is not loaded.
 */
export function uploadOf(
  exchange: Exchange,
): Promise<Upload> | undefined {
  const { onUploadProgress: report, init } = exchange;
  if (report === undefined || init.body === undefined || init.body === null) {
    return undefined;
  }
  // A stream is grab's pipe of the caller's (see `SourcePipe`), counted as
  // it passes. Any other body but a blob is taken now, as `fetch` takes it:
  // bytes the caller reuses once the grab has begun are sent as they were.
  const given = init.body;
  const body = given instanceof ReadableStream || given instanceof Blob
    ? given
    : serialised(exchange, given);
  // Loaded on first use: a program that reports no upload never loads it.
  const preparing = uploadModule().then((module) =>
    module.Upload.of(
      body,
      (progress) => tellProgress(report, progress),
      // Told here, not by the upload module, which then shares no code
      // with the rest but what the whole program loads.
      exchange.hooks?.beforeRequest === undefined && !isBrowser()
        ? "stream"
        : isNode()
        ? "blob"
        : "whole",
    ).catch((error: unknown) => {
      // A body the platform cannot read is the caller's to fix.
      throw asValidationError(error, exchange.method, exchange.href);
    }), (error: unknown) => {
    // A module not loaded (a bundle's chunk not fetched) fails as the
    // network would, never as the caller's mistake; the next grab loads it.
    const what = "the module of upload progress";
    const { method, href } = exchange;
    throw new Unloaded(unloadedOutcome(what, method, href, error));
  });
  return exchange.deadline.race(preparing);
}

const uploadModule = lazy(() => import("./upload.ts"));

/** The init of an encoded request. */
type EncodedInit = RequestInit & { headers: Record<string, string> };

/** The init of one attempt: its own signal, its counted upload body. */
export function attemptInit(
  exchange: Exchange,
  attempt: Deadline,
  upload: Upload | undefined,
): RequestInit {
  let init = exchange.init;
  if (attempt !== exchange.deadline) {
    init = bare({ ...init, signal: attempt.signal ?? null });
  }
  if (upload === undefined) return init;
  const counted = upload.init(init as EncodedInit, () => attempt.due());
  // A stream is sent once, counted: the counted stream is what `fetch`
  // takes, and what a grab that fails before it did releases.
  if (!exchange.replayable) exchange.init.body = counted.body ?? null;
  return counted;
}

/**
 * Sends one attempt. A counted upload goes out as a stream, which `fetch`
 * cannot send twice, so it meets redirects itself: each hop is followed
 * here as `fetch` would follow it, with the body as given.
 */
export function send(
  exchange: Exchange,
  attempt: Deadline,
  init: RequestInit,
  request: Request | undefined,
  upload: Upload | undefined,
): Promise<Response> {
  // A timeout that passed while a hook was awaited and the loop kept busy
  // sends nothing (a plain attempt has no await before its `fetch`).
  if (attempt.due()) return Promise.reject(PASSED);
  const sending = sendRequest(
    exchange.fetch,
    exchange.href,
    init,
    request,
    attempt,
  );
  if (upload === undefined) return sending;
  return sending.then((response) =>
    upload.redirected(response)
      ? followRedirect(exchange, attempt, request, upload, response)
      : response
  );
}

/** The redirects `fetch` follows before it fails (the Fetch standard's 20). */
const MAX_REDIRECTS = 20;

/**
 * The redirects met by a counted upload, followed here hop by hop as `fetch`
 * would, and no more of them: each hop from where the last one led, with its
 * method and headers, and none once the time has come, its timer run or not.
 */
async function followRedirect(
  exchange: Exchange,
  attempt: Deadline,
  request: Request | undefined,
  upload: Upload,
  response: Response,
): Promise<Response> {
  let from = request?.url ?? exchange.href;
  let plain = attemptInit(exchange, attempt, undefined);
  for (let hops = 1;; hops++) {
    // With no place to go, the redirect is the response, as from `fetch`.
    const location = response.headers.get("location");
    if (location === null) return hops > 1 ? followed(response) : response;
    await discardBody(response, {
      platform: isPlatformResponse(response),
      deadline: attempt,
      // A wrapper may keep a clone, whose cancel it alone can settle.
      cloned: !isPlatform(exchange.fetch),
    });
    upload.rethrow();
    if (attempt.due()) throw PASSED;
    if (hops > MAX_REDIRECTS) throw new TypeError("Too many redirects");
    const hop = upload.follow(response.status, location, {
      from,
      plain,
      request: hops === 1 ? request : undefined,
    });
    const { fetch } = exchange;
    response = await sendRequest(fetch, hop.url, hop.init, undefined, attempt);
    if (!upload.redirected(response)) return followed(response);
    [from, plain] = [hop.url, hop.init];
  }
}

/**
 * The response a redirect led to, `redirected` as from `fetch`: a hook may
 * tell by it that it was sent elsewhere (to a login page).
 */
function followed(response: Response): Response {
  try {
    Object.defineProperty(response, "redirected", { value: true });
  } catch {
    // A response-like that cannot take it is left as it is.
  }
  return response;
}

/**
 * Ends the report of an upload at the response head, whose body is let go
 * when the callback threw (the grab rejects) or held the loop past the time.
 */
export async function uploaded(
  upload: Upload,
  response: Response,
  source: BodySource,
): Promise<void> {
  try {
    upload.rethrow();
    if (upload.sent() && source.deadline?.due()) throw PASSED;
  } catch (error) {
    await discardBody(response, source);
    throw error;
  }
}

/**
 * Ends what is sent of the request's body once its answer is read (a server
 * may answer before it reads the body whole): the rest is not wanted.
 *
 * A counted upload ends on every `fetch`, so that no progress is told after
 * the answer, and throws what its callback threw meanwhile: the upload it
 * stopped broke the connection, which is the callback's failure, not the
 * network's. An uncounted stream ends where the platform's `fetch` answered
 * (a wrapper's too), which would send the rest after the grab, to the end of
 * a source that may never end; a custom `fetch` that made its answer itself
 * may read the body after it, and keeps it. A live body, the caller's since
 * its head, keeps the request's going (a server may answer as it reads)
 * until it is done with.
 */
export function bodyAnswered(
  exchange: Exchange,
  upload: Upload | undefined,
  outcome: SendOutcome | Broken,
  platform: boolean,
): void {
  const { read, source } = exchange;
  // Most exchanges send no stream and count no upload: nothing to end.
  if (upload === undefined && (source === undefined || !platform)) return;
  if (read !== undefined && isHandedOver(outcome, read.responseType)) return;
  if (upload !== undefined) upload.end();
  else source!.finish();
}

/**
 * True for an outcome whose body is live and the caller's since its head:
 * the request's body may still be sent then (a server may answer as it
 * reads). Any other outcome is over, its body read whole or none.
 */
export function isHandedOver(
  outcome: SendOutcome | Broken,
  type: ResponseType,
): boolean {
  return owns(outcome, "ok") && outcome.ok && !outcome.empty &&
    outcome.status >= 200 && outcome.status < 300 && isLive(type);
}

/**
 * Where a response came from: whether the platform made it, and sent it.
 * `sent` is the request a `beforeRequest` hook left, when there is one.
 */
export function sourceOf(
  exchange: Exchange,
  response: Response,
  deadline: Deadline,
  sent: Request | undefined,
): BodySource & { deadline: Deadline } {
  const platform = isPlatformResponse(response);
  const own = isPlatform(exchange.fetch);
  // A response the platform did not make shows the fetch is a wrapper; a
  // request a hook sent elsewhere is answered at its own URL, not ours.
  const direct = platform && own &&
    (exchange.hooks?.beforeRequest === undefined ||
      sent?.url === exchange.href);
  // A wrapper may keep a `clone()` (an interceptor, a tracer), and the
  // body's cancel then settles only once the clone is read or cancelled.
  return { platform, direct, deadline, cloned: !own };
}

/** A body but a blob or a stream, serialised as `fetch` serialises it. */
function serialised(exchange: Exchange, body: BodyInit): Response {
  try {
    return new Response(body);
  } catch (error) {
    throw asValidationError(error, exchange.method, exchange.href);
  }
}

/** A request of the exchange; what the platform refuses is a validation error. */
export function makeRequest(
  exchange: Exchange,
  init: RequestInit,
): Request {
  try {
    return new Request(exchange.href, init);
  } catch (error) {
    throw asValidationError(error, exchange.method, exchange.href);
  }
}
