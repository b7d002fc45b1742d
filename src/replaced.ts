/**
 * Requests that `beforeRequest` hooks replaced, held until `fetch` has taken
 * the request sent in their place, then released. A replaced request may
 * hold the caller's stream body, or a branch of it a `clone()` teed, which
 * nothing would read or cancel: its source (a file, a socket, a `pull` that
 * never ends) would stay open after the grab. It may also share that stream
 * with its replacement without locking it (`new Request(url, request)`), so
 * nothing is released before `fetch` has the replacement.
 *
 * @module
 */

import { releaseRequest } from "./hooks.ts";

/** The requests replaced on the way to the request the hooks left, by it. */
const HELD = new WeakMap<Request, Request[]>();

/**
 * Holds `replaced`, requests hooks replaced on the way to `kept`, until
 * `kept` is sent ({@linkcode releaseReplaced}).
 */
export function holdReplaced(
  kept: Request,
  replaced: readonly Request[],
): void {
  if (replaced.length === 0) return;
  const held = HELD.get(kept);
  if (held === undefined) HELD.set(kept, [...replaced]);
  else held.push(...replaced);
}

/**
 * Releases the requests held for `kept` once `fetch` has taken `sent`
 * (`kept`, or a clone of it), whether it answered or failed: the stream body
 * of each is cancelled unless it is the one `sent` carries or something
 * reads it (`fetch`, a pipe, a tee). Bodies are read only now: reading the
 * body of a request not yet sent makes Deno send bytes chunked.
 */
export function releaseReplaced(
  kept: Request | undefined,
  sent: Request | undefined,
): void {
  const held = kept === undefined ? undefined : HELD.get(kept);
  if (held === undefined) return;
  HELD.delete(kept!);
  let open: ReadableStream[] | undefined;
  for (const request of held) {
    const body = streamOf(request);
    if (body?.locked === false) (open ??= []).push(body);
  }
  if (open === undefined) return;
  const given = sent === undefined ? undefined : streamOf(sent);
  for (const body of open) {
    if (body !== given) body.cancel().catch(() => {});
  }
}

/**
 * Releases a request that will not be sent, with what was held for it: a
 * chain's answer that came after the deadline passed.
 */
export function releaseUnsentRequest(request: Request | void): void {
  if (request === undefined) return;
  releaseReplaced(request, undefined);
  releaseRequest(request);
}

/** The body of a request, `undefined` when its getter throws. */
function streamOf(request: Request): ReadableStream | null | undefined {
  try {
    return request.body;
  } catch {
    return undefined;
  }
}
