/**
 * Waiting for a codec still loading (the JSON:API one, the first time)
 * before an exchange, within the grab's time.
 *
 * @module
 */

import { Deadline, PASSED } from "./deadline.ts";
import type { HttpMethod } from "./endpoint.ts";
import { type Codec, isPassThrough } from "./format.ts";
import { formNow } from "./json_form.ts";
import { checkSendable, held, releaseUnsent } from "./request.ts";
import { searchOf } from "./fill_url.ts";
import type { Resolved } from "./resolve.ts";
import type { SendOutcome } from "./result.ts";
import { passedOutcome, unloadedOutcome } from "./transport_error.ts";
import { fillUrl, paramsNow } from "./fill_url.ts";
import type { UrlTemplate } from "./url.ts";
import { asValidationError, validationError } from "./validation_error.ts";

/** A codec loaded, with the options that give the time left; or why not. */
export type Loaded =
  | { resolved: Resolved; codec: Codec }
  | { failed: SendOutcome & { ok: false } };

/**
 * Waits for a codec still loading (the JSON:API one, the first time) within
 * the grab's time: a load that fails (a bundle's chunk not fetched) is a
 * network failure, one that outlasts the timeout or the signal a timeout or
 * an abort. The exchange then has the time that is left. Path parameters
 * are checked first, as they would be without the wait, and fill the URL
 * that a failure names.
 */
export async function withCodec(
  method: HttpMethod,
  template: UrlTemplate,
  resolved: Resolved,
  loading: Promise<Codec>,
): Promise<Loaded> {
  const { url } = template;
  let href;
  try {
    href = fillUrl(template, resolved.params, "");
  } catch (error) {
    throw asValidationError(error, method, url);
  }
  if (typeof href !== "string") {
    throw validationError(href, { method, url, where: "the request" });
  }
  let now: Resolved;
  try {
    now = readNow(template, resolved);
  } catch (error) {
    throw asValidationError(error, method, url);
  }
  const deadline = new Deadline(resolved.timeout, resolved.signal);
  try {
    const codec = await deadline.race(loading);
    const left = deadline.left();
    if (left === Infinity) return { resolved: now, codec };
    const timeout = Math.max(1, Math.ceil(left));
    const timeoutGiven = now.timeoutGiven ?? now.timeout;
    return { resolved: { ...now, timeout, timeoutGiven }, codec };
  } catch (error) {
    // The body was never sent: a stream of it is released.
    releaseUnsent(resolved.body);
    if (error !== PASSED) {
      const what = "the JSON:API module";
      return { failed: unloadedOutcome(what, method, href, error) };
    }
    return { failed: passedOutcome(deadline, method, href) };
  } finally {
    deadline.dispose();
  }
}

/**
 * The caller's values read now, as an exchange that does not wait reads
 * them at once: the query serialised, the path parameters' values, the
 * body's JSON form (or a copy of its bytes, form or search parameters).
 * What the caller changes while the codec loads is not what is sent. Bytes
 * `fetch` would refuse (in a `SharedArrayBuffer`, transferred away) are
 * left as they are, for the request's checks to refuse as they would
 * without the wait: a copy would send the one and throw on the other.
 */
function readNow(template: UrlTemplate, resolved: Resolved): Resolved {
  const { query, body } = resolved;
  return {
    ...resolved,
    query: query === undefined
      ? undefined
      : new URLSearchParams(searchOf(resolved)),
    params: paramsNow(template, resolved.params),
    body: !isPassThrough(body)
      ? formNow(body)
      : checkSendable(body) === undefined
      ? held(body)
      : body,
  };
}
