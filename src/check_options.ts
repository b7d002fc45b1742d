/**
 * Checking option values: the numbers that a wrong value would switch off
 * or overflow, the objects that a string would be misread as, the enums.
 * Every problem is an issue naming the option; `null` and `undefined` mean
 * none and pass.
 *
 * @module
 */

import { HTTP_METHODS } from "./endpoint.ts";
import type { ValidationIssue } from "./errors.ts";
import { HOOK_NAMES } from "./hooks.ts";
import type { JsonApiOptions } from "./jsonapi/media_type.ts";
import {
  isOption,
  MEMBERS,
  noSuchMember,
  noSuchOption,
  type Scope,
} from "./option_names.ts";
import { RESPONSE_TYPES } from "./response_type.ts";
import { MAX_TIMER_DELAY } from "./retry.ts";
import {
  isCount,
  isSet,
  isStatus,
  isStrings,
  isTimeout,
} from "./option_values.ts";
import type { StandardSchema } from "./schema.ts";
import { attempt, quoting, reasonOf } from "./thrown.ts";

/**
 * Reports that the option being checked (or its `member`) must be `wanted`;
 * with `thrown`, what reading it threw, which the error keeps as its cause.
 */
type Add = (wanted: string, member?: string, thrown?: unknown[]) => void;
type Check = (value: unknown, add: Add, factory: boolean) => void;

/**
 * Checks the options that a wrong value would turn off or make misbehave:
 * the numbers (`timeout`, `attemptTimeout`, `maxBodyBytes`, `retry`), the
 * callbacks, `signal`, `hooks`, the enums and the objects of a kind. Each
 * problem is an issue naming the option, in the order of {@linkcode CHECKS};
 * `null` and `undefined` mean none and pass. An option that `scope` does not
 * take, or a member an option object does not have, is an issue too, after
 * the others. Only the options present are looked at, so a call with few
 * options costs little.
 */
export function checkOptions(
  options: object,
  scope: Scope,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const ranks: number[] = [];
  let rank = 0;
  let option = "";
  const refuse = (message: string, thrown?: unknown[]) => {
    const issue = { path: "", message };
    issues.push(thrown === undefined ? issue : quoting(issue, thrown[0]));
    ranks.push(rank);
  };
  const add: Add = (wanted, member, thrown) => {
    const name = member === undefined ? option : `${option}.${member}`;
    refuse(`Cannot use the option "${name}": it must be ${wanted}`, thrown);
  };
  // Own keys: a copy of options inherits only what no caller gave.
  for (const name of Object.keys(options)) {
    const value = (options as Record<string, unknown>)[name];
    if (value === undefined || value === null) continue;
    if (!isOption(name, scope)) {
      rank = CHECKS.size;
      refuse(noSuchOption(name, scope));
      continue;
    }
    const entry = CHECKS.get(name);
    if (entry === undefined) continue;
    rank = entry[0];
    option = name;
    entry[1](value, add, scope === "factory");
    const members = MEMBERS.get(name);
    if (members !== undefined && isRecord(value)) {
      rank = CHECKS.size;
      for (const member of unknownMembers(value, members)) {
        refuse(noSuchMember(name, member, members));
      }
    }
  }
  if (issues.length < 2) return issues;
  const order = issues.map((_, at) => at).sort((a, b) => ranks[a]! - ranks[b]!);
  return order.map((at) => issues[at]!);
}

/** The own keys of `value` that are not `members`, their values set. */
function unknownMembers(value: object, members: readonly string[]): string[] {
  return Object.keys(value).filter((key) =>
    !members.includes(key) && isSet((value as Record<string, unknown>)[key])
  );
}

function checkTimeout(value: unknown, add: Add): void {
  if (value !== false && !isTimeout(value)) {
    add(`false, Infinity or a number from 1 to ${MAX_TIMER_DELAY}`);
  }
}

function checkFunction(value: unknown, add: Add): void {
  if (typeof value !== "function") add("a function");
}

function oneOf(allowed: readonly string[]): Check {
  const wanted = allowed.map((v) => `"${v}"`).join(", ")
    .replace(/, ([^,]*)$/, " or $1");
  return (value, add) => {
    if (!allowed.includes(value as string)) add(wanted);
  };
}

const USABLE_SIGNAL =
  "an AbortSignal this request can read (in a Cloudflare Worker, one made while handling it), but reading it threw:";

const CASINGS = [
  "none",
  "camelCase",
  "snake_case",
  "kebab-case",
  "PascalCase",
] as const;

/** Each option's check, in the order issues are reported. */
const CHECKS = new Map<string, [number, Check]>(
  ([
    ["headers", (value, add, factory) => {
      if (typeof value === "object") return;
      if (typeof value !== "function") {
        add("a Headers, a record or a list of pairs");
      } else if (!factory) {
        // Called per request only for the factory, whose headers they are.
        add(
          "a Headers, a record or a list of pairs; a function of headers is an option of createGrab",
        );
      }
    }],
    ["query", (value, add) => {
      // An object's own keys are the query's: a Map, a Set, a Date, a URL, a
      // Promise not awaited or a Blob keeps its entries elsewhere and would
      // go as no query at all, an array or a String object as `0=…&1=…`.
      if (value instanceof URLSearchParams) return;
      const not = notObject(value);
      if (not !== undefined) {
        add(`an object of query values or URLSearchParams${not}`);
      }
    }],
    ["params", (value, add) => {
      if (typeof value !== "object") add("an object");
    }],
    ["schema", (value, add) => {
      const standard = (value as StandardSchema)["~standard"];
      if (typeof standard?.validate !== "function") {
        add("a Standard Schema (an object with ~standard.validate)");
      }
    }],
    ["jsonApi", checkJsonApi],
    ["timeout", checkTimeout],
    ["attemptTimeout", checkTimeout],
    ["idleTimeout", checkTimeout],
    ["maxBodyBytes", (value, add) => {
      if (value !== Infinity && !isCount(value)) {
        add("a non-negative integer or Infinity");
      }
    }],
    ["retry", (value, add) => {
      if (isCount(value)) return;
      // Members are read from an object only: `[503]`, a Set or a Promise
      // not awaited would be the default policy without a word.
      const not = notObject(value);
      if (not !== undefined) {
        add(`a non-negative integer or RetryOptions${not}`);
      } else checkRetry(value as Record<string, unknown>, add);
    }],
    ["signal", (value, add) => {
      if (!(value instanceof AbortSignal)) return add("an AbortSignal");
      // A Worker tells a signal's state only to the request that made it.
      const [read, error] = attempt(() => value.aborted);
      if (!read) {
        add(`${USABLE_SIGNAL} ${reasonOf(error)}`, undefined, [error]);
      }
    }],
    ["fetch", checkFunction],
    ["onDownloadProgress", checkFunction],
    ["onUploadProgress", checkFunction],
    ["format", oneOf(["json", "json-api"])],
    ["responseType", oneOf(RESPONSE_TYPES)],
    ["casing", oneOf(CASINGS)],
    ["wireCasing", oneOf(CASINGS)],
    ["redirect", oneOf(["follow", "error", "manual"])],
    ["credentials", oneOf(["omit", "same-origin", "include"])],
    ["hooks", checkHooks],
  ] as [string, Check][]).map(([name, check], rank) => [name, [rank, check]]),
);

function checkJsonApi(value: unknown, add: Add): void {
  const { ext, profile, headers: set } = value as JsonApiOptions;
  if (
    notObject(value) !== undefined || !isStrings(ext) || !isStrings(profile) ||
    (set !== undefined && typeof set !== "boolean")
  ) {
    add("{ ext?: string[], profile?: string[], headers?: boolean }");
    return;
  }
  // They go into the media type, inside quotes, as the header value.
  for (const [name, uris] of [["ext", ext], ["profile", profile]] as const) {
    if (uris !== undefined && !uris.every((uri) => MEDIA_URI.test(uri))) {
      add("URIs of printable ASCII, with no space, quote or backslash", name);
    }
  }
}

/**
 * A URI that can stand in a media type parameter, quoted: printable ASCII
 * but the space, the quote and the backslash, which would escape.
 */
const MEDIA_URI = /^[!#-[\]-~]+$/;

function checkHooks(hooks: unknown, add: Add): void {
  const not = notObject(hooks);
  if (not !== undefined) return add(`an object of functions${not}`);
  for (const name of HOOK_NAMES) {
    const hook = (hooks as Record<string, unknown>)[name];
    if (isSet(hook) && typeof hook !== "function") {
      add("a function", name);
    }
  }
}

/**
 * True for an object whose members are its own properties: a plain object,
 * a class instance, or a module's namespace (`import * as hooks`).
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return notObject(value) === undefined;
}

/**
 * What an option that must be an object is instead, or `undefined`: the
 * kind `Object.prototype.toString` names (an array, a `Set`, a Promise).
 */
function notObject(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return "";
  const kind = Object.prototype.toString.call(value).slice(8, -1);
  return kind === "Object" || kind === "Module"
    ? undefined
    : kind === "Array"
    ? ", not an array"
    : `, not an object of type ${kind}`;
}

function checkRetry(retry: Record<string, unknown>, add: Add): void {
  const { limit, maxDelay, backoff, methods, statusCodes } = retry;
  if (isSet(limit) && !isCount(limit)) {
    add("a non-negative integer", "limit");
  }
  if (
    isSet(maxDelay) &&
    !(typeof maxDelay === "number" && maxDelay >= 0)
  ) {
    add("a non-negative number or Infinity", "maxDelay");
  }
  if (isSet(backoff) && typeof backoff !== "function") {
    add("a function", "backoff");
  }
  // A method the endpoint could not name ("get") would never match: the
  // retries would be off without a word.
  if (
    isSet(methods) &&
    !(isStrings(methods) &&
      (methods as string[]).every((method) => HTTP_METHODS.has(method)))
  ) {
    add('an array of upper-case methods such as "GET"', "methods");
  }
  // A number no status can be (5030, -1) would never match: no retry, and
  // no word of it.
  if (
    isSet(statusCodes) &&
    !(Array.isArray(statusCodes) && statusCodes.every(isStatus))
  ) {
    add("an array of status codes from 100 to 599", "statusCodes");
  }
}
