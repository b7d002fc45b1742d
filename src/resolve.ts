/**
 * Options resolved once per grab: each call option over the factory's over
 * {@linkcode DEFAULTS}, every value checked, the factory's headers and hooks
 * kept only where they are trusted.
 *
 * @module
 */

import type { Fetch } from "./fetch.ts";
import type { Casing } from "./casing.ts";
import { checkOptions } from "./check_options.ts";
import { isEmpty, NO_OPTIONS, notOptions, readOnce } from "./read_options.ts";
import type { ValidationIssue } from "./errors.ts";
import { CREATING, validationError } from "./validation_error.ts";
import { unreadable } from "./thrown.ts";
import { type HeaderRecord, mergeHeaders } from "./headers.ts";
import { combineHooks, keptHome } from "./hook_chain.ts";
import type { Hooks } from "./hooks.ts";
import type { JsonApiOptions } from "./jsonapi/media_type.ts";
import type { GrabCallOptions } from "./call_options.ts";
import { DEFAULTS } from "./defaults.ts";
import type { GrabOptions } from "./options.ts";
import type { Format, QueryInit } from "./query.ts";
import { isLive, type Progress, type ResponseType } from "./response_type.ts";
import { resolveRetry, type RetryPolicy } from "./retry.ts";
import type { StandardSchema } from "./schema.ts";

/** A header function of a factory. */
export type HeaderFunction = () =>
  | NonNullable<RequestInit["headers"]>
  | Promise<NonNullable<RequestInit["headers"]>>;

/** A factory's options, checked once when it is created. */
export interface Factory {
  options: GrabOptions;
  /** Its static headers, checked; `undefined` without. */
  headers: HeaderRecord | undefined;
  /** Its header function, called per request. */
  headerFunction: HeaderFunction | undefined;
  /**
   * The origins its `afterResponse` and `beforeRetry` run for (see
   * `keptHome`); `undefined`: every one.
   */
  trusts: ((origin: string) => boolean) | undefined;
}

/** Every option of one grab, decided. */
export interface Resolved {
  format: Format;
  casing: Casing;
  wireCasing: Casing;
  /** The factory's static headers (when trusted) and the call's, checked. */
  headers: HeaderRecord;
  /** The factory's header function, when trusted. */
  headerFunction: HeaderFunction | undefined;
  /** The names the call set to `undefined`, which the function's lose. */
  unset: readonly string[] | undefined;
  body: unknown;
  query: QueryInit | undefined;
  params: Readonly<Record<string, unknown>> | undefined;
  signal: AbortSignal | undefined;
  timeout: number | false;
  /**
   * The `timeout` the caller gave, when `timeout` is what is left of it
   * (after the JSON:API module loaded): a timeout's message names it.
   */
  timeoutGiven?: number | false | undefined;
  /** Milliseconds for one attempt, or `false`. */
  attemptTimeout: number | false;
  /** Milliseconds each read of a live body may wait, or `false`. */
  idleTimeout: number | false;
  responseType: ResponseType;
  onDownloadProgress: ((progress: Progress) => void) | undefined;
  onUploadProgress: ((progress: Progress) => void) | undefined;
  retry: RetryPolicy;
  hooks: Hooks | undefined;
  fetch: Fetch;
  maxBodyBytes: number;
  jsonApi: JsonApiOptions;
  redirect: GrabOptions["redirect"];
  credentials: GrabOptions["credentials"];
  schema: StandardSchema | undefined;
}

/** The options a call may give: a grab's, or `Call.send`'s with `fetch`. */
export type CallOptions = GrabCallOptions & { fetch?: Fetch | undefined };

/**
 * Checks a factory's options once. Throws a {@linkcode GrabValidationError}
 * naming each option that is wrong.
 */
export function resolveFactory(given: GrabOptions): Factory {
  // Each option is read once, into a copy: a getter that throws or changes
  // its answer cannot get past the checks.
  let options: GrabOptions;
  let issues: ValidationIssue[];
  const not = notOptions(given, true);
  if (not !== undefined) throw validationError([not], CREATING);
  try {
    options = readOnce(given);
    // A value the checks look into may be a revoked Proxy too.
    issues = checkOptions(options, "factory");
  } catch (error) {
    throw validationError([unreadable(OPTIONS, error)], CREATING);
  }
  const source = options.headers ?? undefined;
  let headers: HeaderRecord | undefined;
  // Another value is the option check's: a string is no list of pairs.
  if (typeof source === "object") {
    headers = {};
    try {
      // One by one: spread as arguments, 200,000 issues overflowed the stack.
      for (const issue of mergeHeaders(headers, source)) issues.push(issue);
    } catch (error) {
      issues.push(unreadable(OPTIONS, error));
    }
  }
  if (issues.length > 0) {
    throw validationError(issues, CREATING);
  }
  return {
    options,
    headers,
    headerFunction: typeof source === "function" ? source : undefined,
    trusts: undefined,
  };
}

/** An option object with no members, none inherited either. */
const NO_MEMBERS = Object.freeze(Object.create(null));

/** A factory with no options, for `Call.send`. */
export const NO_FACTORY: Factory = Object.freeze({
  options: NO_OPTIONS,
  headers: undefined,
  headerFunction: undefined,
  trusts: undefined,
});

/**
 * Resolves a call's options over its factory's. `trusted` is false for an
 * origin the factory's headers and hooks must not reach. Returns the issues
 * instead when an option is wrong.
 */
export function resolveOptions(
  factory: Factory,
  given: CallOptions,
  trusted: boolean,
  scope: "call" | "send" = "call",
): Resolved | ValidationIssue[] {
  // Each option is read once, into a copy: a getter that throws or changes
  // its answer cannot get past the checks.
  let call: CallOptions;
  let issues: ValidationIssue[];
  try {
    const not = given === NO_OPTIONS ? undefined : notOptions(given);
    if (not !== undefined) return [not];
    // Options with nothing in them (the common grab) have nothing to check.
    if (given === NO_OPTIONS || isEmpty(given)) {
      // Not `given` itself: a Proxy may answer for keys it does not list.
      call = NO_OPTIONS;
      issues = [];
    } else {
      call = readOnce(given);
      issues = checkOptions(call, scope);
    }
  } catch (error) {
    return [unreadable(OPTIONS, error)];
  }
  const f = factory.options;
  const headers: HeaderRecord = trusted && factory.headers !== undefined
    ? { ...factory.headers }
    : {};
  // A name the call sets to `undefined` is removed from the factory's
  // headers: from its static ones here, from its function's once called.
  const unset: string[] | undefined =
    trusted && factory.headerFunction !== undefined ? [] : undefined;
  try {
    const callHeaders = call.headers;
    if (typeof callHeaders === "object" && callHeaders !== null) {
      for (const issue of mergeHeaders(headers, callHeaders, unset)) {
        issues.push(issue);
      }
    }
    if (issues.length > 0) return issues;
    const result = resolved(f, call, headers, trusted ? factory : undefined);
    if (unset !== undefined && unset.length > 0) result.unset = unset;
    return uncheckable(result) ?? unboundable(call, result) ?? result;
  } catch (error) {
    // A header, a retry option or a hook read through a getter that threw.
    return [unreadable(OPTIONS, error)];
  }
}

/**
 * The issue of a `schema` given with a response type it cannot check
 * (bytes, a blob, a raw stream), which would be ignored without a word.
 */
function uncheckable(
  { schema, responseType }: Resolved,
): ValidationIssue[] | undefined {
  const unchecked = responseType === "bytes" || responseType === "blob" ||
    responseType === "stream";
  if (schema === undefined || !unchecked) return undefined;
  return [{
    path: "",
    message: `Cannot use the option "schema" with responseType ` +
      `"${responseType}": bytes, blobs and raw streams are not checked`,
  }];
}

/**
 * The issue of an `idleTimeout` a call gives for a whole body, which
 * `timeout` bounds: it would be ignored without a word. One a factory gives
 * is for its live grabs.
 */
function unboundable(
  { idleTimeout }: CallOptions,
  { responseType }: Resolved,
): ValidationIssue[] | undefined {
  // `null`, as in every option, means none.
  if (idleTimeout === undefined || idleTimeout === null) return undefined;
  if (idleTimeout === false || isLive(responseType)) return undefined;
  return [{
    path: "",
    message: `Cannot use the option "idleTimeout" with responseType ` +
      `"${responseType}": it bounds a live body's reads ("stream", "sse", ` +
      `"ndjson"); timeout bounds the whole body`,
  }];
}

/** What options that could not be read are called in their issue. */
const OPTIONS = "the options";

function resolved(
  f: GrabOptions,
  call: CallOptions,
  headers: HeaderRecord,
  trustedFactory: Factory | undefined,
): Resolved {
  const trusted = trustedFactory !== undefined;
  return {
    format: call.format ?? f.format ?? DEFAULTS.format,
    casing: call.casing ?? f.casing ?? DEFAULTS.casing,
    wireCasing: call.wireCasing ?? f.wireCasing ?? DEFAULTS.wireCasing,
    headers,
    headerFunction: trustedFactory?.headerFunction,
    unset: undefined,
    body: call.body,
    query: call.query ?? undefined,
    params: call.params ?? undefined,
    signal: call.signal ?? undefined,
    timeout: call.timeout ?? f.timeout ?? DEFAULTS.timeout,
    attemptTimeout: call.attemptTimeout ?? f.attemptTimeout ?? false,
    idleTimeout: call.idleTimeout ?? f.idleTimeout ?? false,
    responseType: call.responseType ?? f.responseType ??
      DEFAULTS.responseType,
    onDownloadProgress: call.onDownloadProgress ?? undefined,
    onUploadProgress: call.onUploadProgress ?? undefined,
    retry: resolveRetry(call.retry ?? f.retry ?? undefined),
    // Factory hooks belong to the factory, like its headers: they run only
    // for the origins its headers go to.
    hooks: combineHooks(
      keptHome(
        trusted ? f.hooks ?? undefined : undefined,
        trustedFactory?.trusts,
      ),
      call.hooks ?? undefined,
    ),
    fetch: call.fetch ?? f.fetch ?? globalThis.fetch,
    maxBodyBytes: call.maxBodyBytes ?? f.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
    jsonApi: call.jsonApi ?? f.jsonApi ?? NO_MEMBERS,
    redirect: call.redirect ?? f.redirect ?? undefined,
    // Like its headers, the factory's cookies stay with the origins it
    // trusts.
    credentials: call.credentials ??
      (trusted ? f.credentials ?? undefined : undefined),
    schema: call.schema ?? undefined,
  };
}
