/**
 * The names options may have: which ones `createGrab`, a grab and
 * `Call.send` take, the members of the option objects, and what a name that
 * none of them takes is told. A misspelt or misplaced option would otherwise
 * be lost without a word: `timout: 500` would leave the 30 s default, a
 * misspelt hook would never run.
 *
 * @module
 */

import { HOOK_NAMES } from "./hooks.ts";

/** Where options are given: to `createGrab`, to a grab, to `Call.send`. */
export type Scope = "factory" | "call" | "send";

/** The options both a factory and a call take. */
const SHARED = [
  "headers",
  "format",
  "casing",
  "wireCasing",
  "timeout",
  "attemptTimeout",
  "idleTimeout",
  "responseType",
  "retry",
  "hooks",
  "maxBodyBytes",
  "jsonApi",
  "redirect",
  "credentials",
];
const FACTORY_ONLY = ["trustedOrigins", "fetch"];
const CALL_ONLY = [
  "body",
  "query",
  "params",
  "signal",
  "schema",
  "onDownloadProgress",
  "onUploadProgress",
];
/** What `Call.send` leaves to a grab: it does not decode the body. */
const GRAB_ONLY = new Set(["casing", "wireCasing", "schema"]);

const NAMES: Readonly<Record<Scope, ReadonlySet<string>>> = {
  factory: new Set([...SHARED, ...FACTORY_ONLY]),
  call: new Set([...SHARED, ...CALL_ONLY]),
  send: new Set(
    [...SHARED, ...CALL_ONLY, "fetch"].filter((name) => !GRAB_ONLY.has(name)),
  ),
};

/** Every option's name, whoever takes it. */
export const ALL_OPTIONS: readonly string[] = [
  ...SHARED,
  ...FACTORY_ONLY,
  ...CALL_ONLY,
];

/** The members each option object may have. */
export const MEMBERS: ReadonlyMap<string, readonly string[]> = new Map<
  string,
  readonly string[]
>([
  ["retry", ["limit", "methods", "statusCodes", "backoff", "maxDelay"]],
  ["jsonApi", ["ext", "profile", "headers"]],
  ["hooks", HOOK_NAMES],
]);

/**
 * Members of `fetch`'s init (the standard's and those of runtimes and
 * frameworks) that grab does not pass on: a custom `fetch` can add them.
 */
const FETCH_INIT = new Set([
  "cache",
  "mode",
  "keepalive",
  "integrity",
  "priority",
  "referrer",
  "referrerPolicy",
  "duplex",
  "window",
  "client",
  "dispatcher",
  "cf",
  "next",
]);

/**
 * Those of {@linkcode FETCH_INIT} that a `Request` keeps (`new Request(request,
 * { cache })`) in browsers, Deno and Node, so that a hook can set them.
 */
const REQUEST_MEMBERS = new Set([
  "cache",
  "mode",
  "keepalive",
  "integrity",
  "referrer",
  "referrerPolicy",
]);

const BASE_ADDRESS = "the base address";

/**
 * Options of other `fetch` clients (ky, ofetch, axios) that grab spells
 * another way, and where grab takes what they mean.
 */
const ELSEWHERE: ReadonlyMap<string, string> = new Map([
  ["json", 'a plain object or array in "body" is sent as JSON'],
  ["data", 'a plain object or array in "body" is sent as JSON'],
  ["searchParams", 'query values go in "query"'],
  ["prefixUrl", BASE_ADDRESS],
  ["baseURL", BASE_ADDRESS],
  ["baseUrl", BASE_ADDRESS],
]);

/** True when options given in `scope` may have an option `name`. */
export function isOption(name: string, scope: Scope): boolean {
  return NAMES[scope].has(name);
}

/** Why options given in `scope` cannot have an option `name`. */
export function noSuchOption(name: string, scope: Scope): string {
  const head = `Cannot use the option "${name}"`;
  if (scope === "factory" && NAMES.call.has(name)) {
    return `${head} in createGrab: it is an option of each call`;
  }
  if (scope === "send" && GRAB_ONLY.has(name)) {
    const which = name === "schema"
      ? "checks no body"
      : "sends and reads keys as they are";
    return `${head} in Call.send, which ${which}: it is an option of a grab`;
  }
  if (scope !== "factory" && NAMES.factory.has(name)) {
    const where = scope === "send" ? "Call.send" : "a call";
    return `${head} in ${where}: it is an option of createGrab`;
  }
  if (name === "method") {
    return `${head}: the method is the endpoint's first word ("POST /users")`;
  }
  const elsewhere = ELSEWHERE.get(name);
  if (elsewhere === BASE_ADDRESS) {
    const where = scope === "send"
      ? "new Call's second argument"
      : "createGrab's first argument";
    return `${head}: the base address is ${where}`;
  }
  if (elsewhere !== undefined) return `${head}: ${elsewhere}`;
  if (FETCH_INIT.has(name)) return notPassed(name, scope);
  return `${head}: there is no such option${suggestion(name, NAMES[scope])}`;
}

/**
 * How to give `fetch` an init member grab does not pass on: a factory's
 * `fetch` adds it to every grab; one call's `beforeRequest` hook can set a
 * member that a `Request` carries, as the hook's request is what is sent.
 */
function notPassed(name: string, scope: Scope): string {
  const whose = scope === "send"
    ? "Call.send's own fetch"
    : "a factory's fetch";
  const factory =
    `${whose} can add it: fetch: (input, init) => fetch(input, { ...init, ${name} })`;
  if (scope === "factory") {
    return `Cannot use the option "${name}" in createGrab: grab does not pass it to fetch, but ${factory}`;
  }
  const head =
    `Cannot use the option "${name}": grab does not pass it to fetch`;
  if (!REQUEST_MEMBERS.has(name)) return `${head}, but ${factory}`;
  return `${head}. For one call, a beforeRequest hook can set it: ` +
    `hooks: { beforeRequest: (request) => new Request(request, { ${name} }) }; ` +
    `for every ${scope === "send" ? "send" : "grab"}, ${factory}`;
}

/** Why the option object `option` cannot have a member `name`. */
export function noSuchMember(
  option: string,
  name: string,
  members: readonly string[],
): string {
  return `Cannot use the option "${option}.${name}": there is no such ` +
    `member${suggestion(name, members)}`;
}

/** ` (did you mean "…"?)` for a name close to a known one, or "". */
function suggestion(name: string, known: Iterable<string>): string {
  const lower = name.toLowerCase();
  const limit = Math.min(2, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of known) {
    const distance = editDistance(lower, candidate.toLowerCase(), limit);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best === undefined ? "" : ` (did you mean "${best}"?)`;
}

/**
 * The edit distance of `a` and `b` (insertions, deletions, substitutions and
 * swaps of neighbours), or `limit + 1` once it must be more than `limit`.
 */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, at) => at);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, before[j - 2]! + 1);
      }
      current.push(value);
      least = Math.min(least, value);
    }
    if (least > limit) return limit + 1;
    [before, previous] = [previous, current];
  }
  return previous[b.length]!;
}
