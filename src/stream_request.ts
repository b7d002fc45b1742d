/**
 * The request of an attempt that no hook sees, made before `fetch` is
 * called where making it tells what the platform refuses of the caller's
 * body, or where a custom `fetch` needs it.
 *
 * @module
 */

import type { Exchange } from "./attempts.ts";
import { isPlatform } from "./fetch.ts";
import { makeRequest } from "./send.ts";
import type { Upload } from "./upload.ts";

/**
 * The request of a caller's stream body that no hook sees, made here and
 * sent as it is: the platform refuses a stream that was read from already,
 * which is the caller's to fix, not a network failure, and nothing tells
 * such a stream without making a body of it. So is a blob's whose class has
 * a `stream()` of its own, which the request calls, once, and which may
 * throw: `fetch` would fail at every attempt as if the network had. So is a
 * counted upload's to a custom `fetch`, which may send no web stream
 * (`node-fetch`: "[object ReadableStream]") and is then given bytes
 * (`sendRequest`); else none.
 */
export function streamRequest(
  exchange: Exchange,
  init: RequestInit,
  upload: Upload | undefined,
): Request | undefined {
  const made = upload === undefined
    ? isMadeFirst(init.body)
    : !isPlatform(exchange.fetch);
  return made ? makeRequest(exchange, init) : undefined;
}

/**
 * True for a body whose request is made before `fetch` is called, to tell
 * what the platform refuses of it: a stream, or a blob whose `stream()` is
 * not the platform's (or cannot be read).
 */
export function isMadeFirst(body: unknown): boolean {
  if (body instanceof ReadableStream) return true;
  if (!(body instanceof Blob)) return false;
  try {
    return body.stream !== Blob.prototype.stream;
  } catch {
    return true;
  }
}
