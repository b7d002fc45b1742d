/**
 * The builder of {@linkcode GrabTransportError}s: one message per kind, the
 * request named by origin and path only.
 *
 * @module
 */

import type { TransportErrorKind, TransportExtra } from "./error_types.ts";
import { GrabTransportError } from "./errors.ts";
import { redactCause, safeUrl } from "./redact.ts";
import type { SendOutcome } from "./result.ts";

const TRANSPORT_MESSAGES: Record<TransportErrorKind, string> = {
  network: "Cannot complete the request: the network failed",
  abort: "Cannot complete the request: it was aborted",
  timeout: "Cannot complete the request: the timeout passed",
  parse: "Cannot read the response: the body is not valid JSON",
  "too-large": "Cannot read the response: the body is over maxBodyBytes",
  schema: "Cannot accept the response: the body fails the schema",
};

/**
 * Builds a {@linkcode GrabTransportError}: the request named by origin and
 * path only, the cause redacted of every URL's query and userinfo.
 */
export function transportError(
  kind: TransportErrorKind,
  method: string,
  href: string,
  extra: TransportExtra = {},
): GrabTransportError {
  const url = safeUrl(href);
  const detail = extra.detail === undefined ? "" : ` (${extra.detail})`;
  const what = extra.message ?? TRANSPORT_MESSAGES[kind];
  return new GrabTransportError(
    `${what}${detail}: ${method} ${url}`,
    {
      kind,
      method,
      url,
      cause: redactCause(extra.cause),
      issues: extra.issues,
    },
  );
}

/** The outcome of an exchange that failed with a transport error. */
export function failedOutcome(
  kind: TransportErrorKind,
  method: string,
  href: string,
  cause: unknown,
): SendOutcome & { ok: false } {
  return { ok: false, error: transportError(kind, method, href, { cause }) };
}

/**
 * The outcome of an exchange that a module it needs (`what`) was not loaded
 * for: a bundle's chunk that could not be fetched. Kind `"network"`, as that
 * fetch failed, though the request was never sent; the next grab loads the
 * module again.
 */
export function unloadedOutcome(
  what: string,
  method: string,
  href: string,
  cause: unknown,
): SendOutcome & { ok: false } {
  const message =
    `Cannot send the request: ${what} could not be loaded (the next grab loads it again)`;
  const extra = { cause, message };
  return { ok: false, error: transportError("network", method, href, extra) };
}
