/**
 * Factory and call hooks combined into one chain each, factory first, each
 * hook held to the attempt's deadline and none called once its time has
 * come.
 *
 * @module
 */

import { cancelBody } from "./body.ts";
import { type Deadline, PASSED } from "./deadline.ts";
import { isResponse } from "./fetch.ts";
import {
  type Hooks,
  isRequest,
  markChain,
  notA,
  releaseRequest,
} from "./hooks.ts";
import { inheritUrl, release } from "./after_response.ts";
import { holdReplaced } from "./replaced.ts";
import { originOf } from "./browser.ts";

type BeforeRequest = NonNullable<Hooks["beforeRequest"]>;
type AfterResponse = NonNullable<Hooks["afterResponse"]>;
type BeforeRetry = NonNullable<Hooks["beforeRetry"]>;

/** The hooks of a factory and a call, factory first. */
export function combineHooks(
  first: Hooks | undefined,
  second: Hooks | undefined,
): Hooks | undefined {
  if (first === undefined) return second;
  if (second === undefined) return first;
  // No prototype: a hook a dependency put on `Object.prototype` never runs.
  const out: Hooks = Object.create(null);
  const beforeRequest = chain(first.beforeRequest, second.beforeRequest);
  if (beforeRequest) out.beforeRequest = chainBeforeRequest(beforeRequest);
  const afterResponse = chain(first.afterResponse, second.afterResponse);
  if (afterResponse) out.afterResponse = chainAfterResponse(afterResponse);
  const beforeRetry = chain(first.beforeRetry, second.beforeRetry);
  if (beforeRetry) out.beforeRetry = chainBeforeRetry(beforeRetry);
  return out;
}

/**
 * A factory's hooks for one grab, kept to the origins it trusts: its
 * `afterResponse` and `beforeRetry` are not called for a request that a
 * call's `beforeRequest` hook sent to another origin, where its headers do
 * not go either (a token refresh would send its fresh token there). The
 * origin its own `beforeRequest` sends an attempt to (a gateway) is its
 * choice, and trusted for that attempt. Without `trusts`, every origin is.
 */
export function keptHome(
  hooks: Hooks | undefined,
  trusts: ((origin: string) => boolean) | undefined,
): Hooks | undefined {
  if (hooks === undefined || trusts === undefined) return hooks;
  const { beforeRequest, afterResponse, beforeRetry } = hooks;
  if (!afterResponse && !beforeRetry) return hooks;
  // Where its `beforeRequest` sent this grab's current attempt, if it did.
  let chosen: string | undefined;
  const home = (request: Request) => {
    const origin = originOf(request.url);
    return origin !== undefined && (origin === chosen || trusts(origin));
  };
  const out: Hooks = Object.create(null);
  if (beforeRequest) {
    out.beforeRequest = async (request) => {
      chosen = undefined;
      const next = await beforeRequest(request);
      if (isRequest(next)) chosen = originOf(next.url);
      return next;
    };
  }
  if (afterResponse) {
    out.afterResponse = (request, response) =>
      home(request) ? afterResponse(request, response) : undefined;
  }
  if (beforeRetry) {
    out.beforeRetry = (info) =>
      home(info.request) ? beforeRetry(info) : undefined;
  }
  return out;
}

function chain<T>(a: T | undefined, b: T | undefined): T[] | undefined {
  if (a === undefined) return b === undefined ? undefined : [b];
  return b === undefined ? [a] : [a, b];
}

/**
 * `beforeRequest` hooks in turn, each given what the one before returned.
 * A replacement a later hook replaces again is held until the request left
 * is sent (see `replaced.ts`). Those left when a later hook throws or
 * outlasts the deadline are released: a body may be the caller's stream,
 * moved into one, which the grab would otherwise leave open.
 */
function chainBeforeRequest(hooks: BeforeRequest[]): BeforeRequest {
  return markChain(async (request: Request, deadline?: Deadline) => {
    let current = request;
    const replaced: Request[] = [];
    try {
      for (const hook of hooks) {
        if (passedBy(deadline)) throw PASSED;
        const next = await within(deadline, hook(current), releaseRequest);
        if (!next) continue;
        // Checked before the next hook gets it, as a lone hook's is.
        if (!isRequest(next)) throw notA("Request", "beforeRequest");
        if (next !== current && current !== request) replaced.push(current);
        current = next;
      }
    } catch (error) {
      if (current !== request) releaseRequest(current);
      replaced.forEach(releaseRequest);
      throw error;
    }
    holdReplaced(current, replaced);
    return current;
  });
}

/**
 * `afterResponse` hooks in turn. The caller cancels the response it passed
 * in; a replacement that a later hook replaces again, or that is left when
 * a hook throws or outlasts the deadline, is cancelled here.
 */
function chainAfterResponse(hooks: AfterResponse[]): AfterResponse {
  return markChain(
    async (request: Request, response: Response, deadline?: Deadline) => {
      let current = response;
      try {
        for (const hook of hooks) {
          if (passedBy(deadline)) throw PASSED;
          const running = hook(request, current);
          const next = (await within(deadline, running, releaseLate)) ||
            current;
          // Not a response: what it holds is the hook's, not grab's.
          if (!isResponse(next)) throw notA("Response", "afterResponse");
          if (next !== current) inheritUrl(next, current);
          if (next !== current && current !== response) {
            release(current, next);
          }
          current = next;
        }
      } catch (error) {
        if (current !== response) release(current, undefined);
        throw error;
      }
      return current;
    },
  );
}

/**
 * `beforeRetry` hooks in turn. None is called once the deadline has passed:
 * the grab has settled by then, or does as soon as its timer runs, and no
 * retry follows.
 */
function chainBeforeRetry(hooks: BeforeRetry[]): BeforeRetry {
  return markChain(
    async (info: Parameters<BeforeRetry>[0], deadline?: Deadline) => {
      for (const hook of hooks) {
        if (passedBy(deadline)) throw PASSED;
        await within(deadline, hook(info), ignore);
      }
    },
  );
}

function ignore(): void {}

/**
 * True once the deadline's time has come, its timer run or not: a hook
 * that held the event loop past it is not followed by another.
 */
function passedBy(deadline: Deadline | undefined): boolean {
  return deadline?.due() === true;
}

/** What a hook gives, or the deadline's rejection once it passes. */
function within<T>(
  deadline: Deadline | undefined,
  value: T | Promise<T>,
  late: (value: T) => void,
): T | Promise<T> {
  return deadline === undefined ? value : deadline.race(value, late);
}

/** Cancels a response a hook gave after the deadline passed. */
function releaseLate(response: Response | void): void {
  if (isResponse(response)) void cancelBody(response);
}
