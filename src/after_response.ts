/**
 * Running an `afterResponse` hook within the deadline: the response to read
 * from then on, and the one it replaced let go.
 *
 * @module
 */

import { type BodySource, cancelBody, discardBody } from "./body.ts";
import { isPlatformResponse, isResponse } from "./fetch.ts";
import { callHook, type Hooks, notA } from "./hooks.ts";
import { PASSED } from "./deadline.ts";
import { urlOf } from "./platform_response.ts";

/**
 * Runs an `afterResponse` hook within the deadline of `source`; the response
 * to use from here on. The response it replaced is cancelled, and so is one
 * that arrives after the deadline passed.
 */
export async function runAfterResponse(
  hook: NonNullable<Hooks["afterResponse"]>,
  request: Request,
  response: Response,
  source: BodySource,
): Promise<Response> {
  // A `clone()` puts a new stream in the body's place, and the original's
  // cancel then settles only once the clone is read or cancelled too.
  const body = streamOf(response);
  let replaced: Response | void;
  try {
    // Not called once the time has come, its timer run or not (a custom
    // `fetch` that held the event loop past it).
    if (source.deadline?.due()) throw PASSED;
    const running = callHook(hook, source.deadline, request, response);
    replaced = source.deadline === undefined
      ? await running
      : await source.deadline.race<Response | void>(running, releaseLate);
    // A hook that held the event loop past the time answers too late, as
    // one whose promise settles after the timer has run.
    if (source.deadline?.due()) {
      if (replaced !== response) releaseLate(replaced);
      throw PASSED;
    }
  } catch (error) {
    // A hook that threw or outlasted the deadline leaves this body unread.
    source.cloned ||= streamOf(response) !== body;
    await discardBody(response, source);
    throw error;
  }
  if (!replaced || replaced === response) {
    source.cloned ||= streamOf(response) !== body;
    if (unreadable(response)) throw usedBody();
    return response;
  }
  if (!isResponse(replaced)) {
    // The hook's bug: no response to read, and nothing the network did.
    source.cloned ||= streamOf(response) !== body;
    await discardBody(response, source);
    throw notA("Response", "afterResponse");
  }
  // A replacement is new to grab: the hook may have cloned it too, and it
  // is the platform's only if the platform's fetch made it.
  source.cloned = true;
  source.platform = isPlatformResponse(replaced);
  source.direct = false;
  inheritUrl(replaced, response);
  release(response, replaced);
  if (unreadable(replaced)) throw usedBody();
  return replaced;
}

/** Cancels a response a hook gave once the deadline had passed. */
function releaseLate(late: Response | void): void {
  if (isResponse(late)) void cancelBody(late);
}

/** The responses {@linkcode inheritUrl} gave a URL, which is not their own. */
const given = new WeakSet<Response>();

/**
 * Gives a response a hook returned in place of `replaced` the URL and
 * `redirected` of the one it replaced, when it has no URL of its own (one
 * made with `new Response(body, response)` has the URL `""`): it answers
 * the same request, so a `GrabError`, `Call.send`'s outcome, a relative
 * `next` link and a later hook all read where that request was answered,
 * after its redirects. A response fetched again keeps its own URL; one
 * given a URL before (a bodyless response a hook returns for every grab)
 * gets the URL of the one it replaces now.
 */
export function inheritUrl(by: Response, replaced: Response): void {
  if (given.has(by)) {
    Reflect.deleteProperty(by, "url");
    Reflect.deleteProperty(by, "redirected");
    given.delete(by);
  }
  const url = urlOf(replaced, false);
  if (url === "" || urlOf(by, false) !== "") return;
  try {
    Object.defineProperty(by, "url", { value: url, configurable: true });
    given.add(by);
    if (replaced.redirected === true && by.redirected !== true) {
      Object.defineProperty(by, "redirected", {
        value: true,
        configurable: true,
      });
    }
  } catch {
    // A frozen response-like, or one whose getters throw: left as it is.
  }
}

/**
 * Cancels the body of a response a hook replaced, unless the replacement
 * carries that very stream on (`new Response(response.body, response)`).
 * The cancel is asked, not waited for: when the replacement is a clone, the
 * original's cancel settles only once the clone is read or cancelled too.
 */
export function release(
  replaced: Response,
  by: Response | undefined,
): void {
  // Read as `streamOf` reads them: a response-like's getter that throws
  // must not keep the original open.
  const body = streamOf(replaced);
  if (body === null || (by !== undefined && body === streamOf(by))) return;
  void cancelBody(replaced);
}

/**
 * The body stream of a response, `null` for one a custom `fetch` made up
 * with a getter that throws: it is then told from a clone by nothing.
 */
function streamOf(response: Response): ReadableStream | null {
  try {
    return response.body;
  } catch {
    return null;
  }
}

/**
 * True for a body a hook read, or holds a reader of: reading it would fail
 * as if the network had, and be retried.
 */
function unreadable(response: Response): boolean {
  return response.bodyUsed || streamOf(response)?.locked === true;
}

function usedBody(): TypeError {
  // The hook's bug, not the network's: reading it again cannot work.
  return new TypeError(
    "Cannot read the response: the Response an afterResponse hook left has its body used or locked (the hook read it, or returned it for an earlier attempt too); read a clone(), and return a new Response for each attempt",
  );
}
