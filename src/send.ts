/**
 * What each attempt sends, and sending it: the exchange's init with the
 * attempt's own signal and, when the upload is reported, a fresh counted
 * body, sent again whole when it meets a redirect.
 *
 * @module
 */

import type { Exchange } from "./attempts.ts";
import { type BodySource, discardBody } from "./body.ts";
import type { Deadline } from "./deadline.ts";
import { isPlatform, sendRequest } from "./fetch.ts";
import type { Upload } from "./upload.ts";

/** The body of an exchange whose upload is reported, prepared once. */
export function uploadOf(
  exchange: Exchange,
): Promise<Upload | undefined> | undefined {
  const { onUploadProgress: report, init } = exchange;
  if (report === undefined || init.body === undefined || init.body === null) {
    return undefined;
  }
  // Loaded on first use: a program that reports no upload never loads it.
  const preparing = (uploadModule ??= import("./upload.ts")).then((module) =>
    module.Upload.of(init.body!, report)
  );
  return exchange.deadline.race(preparing);
}

let uploadModule: Promise<typeof import("./upload.ts")> | undefined;

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
    init = { ...init, signal: attempt.signal ?? null };
  }
  return upload === undefined ? init : upload.init(init as EncodedInit);
}

/**
 * Sends one attempt. A counted upload that meets a redirect is sent again
 * with its body as given, for `fetch` to follow the redirect as it would
 * have without the count: a streamed body cannot be sent twice.
 */
export async function send(
  exchange: Exchange,
  attempt: Deadline,
  init: RequestInit,
  request: Request | undefined,
  upload: Upload | undefined,
): Promise<Response> {
  const { fetch, href } = exchange;
  const response = await sendRequest(fetch, href, init, request, attempt);
  if (upload === undefined || !upload.redirected(response)) return response;
  await discardBody(response, {
    platform: isPlatform(fetch),
    deadline: attempt,
  });
  const again = upload.plain(attemptInit(exchange, attempt, undefined));
  const repeat = request === undefined
    ? undefined
    : new Request(request, again);
  return await sendRequest(fetch, href, again, repeat, attempt);
}

/**
 * Ends the report of an upload once the response head has arrived. What the
 * callback threw rejects the grab, its response cancelled.
 */
export async function uploaded(
  upload: Upload,
  response: Response,
  source: BodySource,
): Promise<void> {
  try {
    upload.rethrow();
    upload.sent();
  } catch (error) {
    await discardBody(response, source);
    throw error;
  }
}
