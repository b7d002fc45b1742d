/**
 * `createGrab`: binds factory defaults and returns the grab callable, which
 * turns options into one {@linkcode Call.send} and its outcome into a tuple.
 *
 * @module
 */

import { isPassThrough } from "./body.ts";
import { failure } from "./attempts.ts";
import { Call, sendWithin, startDeadline } from "./call.ts";
import { type Deadline, PASSED } from "./deadline.ts";
import { type Casing, convertKeys } from "./casing.ts";
import type { Endpoint, PathParamNames, PathParamValue } from "./endpoint.ts";
import {
  asValidationError,
  GrabError,
  GrabTransportError,
  GrabValidationError,
  httpErrorMessage,
  requestError,
  safeUrl,
  transportErrorMessage,
  type ValidationIssue,
} from "./errors.ts";
import { type HeaderRecord, mergeHeaders } from "./headers.ts";
import { combineHooks } from "./hooks.ts";
import { describeValue, findNonJsonValues } from "./json_value.ts";
import { denormalise } from "./jsonapi/denormalise.ts";
import {
  errorDocumentMessage,
  parseErrorDocument,
} from "./jsonapi/error_document.ts";
import { serialise } from "./jsonapi/serialise.ts";
import { validateWrite } from "./jsonapi/validate.ts";
import {
  checkOptions,
  type GrabCallOptions,
  type GrabOptions,
  isSet,
  type SendOptions,
} from "./options.ts";
import { serialiseQuery } from "./query.ts";
import {
  type GrabResult,
  HTTP_ERROR_META,
  type SendOutcome,
  type SuccessMeta,
  type TransportMeta,
} from "./result.ts";
import {
  type SchemaOutput,
  type StandardSchema,
  validateSchema,
} from "./schema.ts";

/**
 * The `params` a grab of endpoint `E` needs: required and named when the
 * literal has `:name` segments, free-form when the endpoint is not a literal.
 * @internal
 */
export type ParamsFor<E extends string> = Endpoint extends E
  ? { params?: Record<string, PathParamValue> }
  : [PathParamNames<E>] extends [never]
    ? { params?: Record<string, PathParamValue> }
  : { params: Record<PathParamNames<E>, PathParamValue> };

/**
 * The options argument of a grab of endpoint `E`: required when the endpoint
 * has path parameters.
 * @internal
 */
export type GrabArgs<E extends string, Options> = Endpoint extends E
  ? [options?: Options & ParamsFor<E>]
  : [PathParamNames<E>] extends [never] ? [options?: Options & ParamsFor<E>]
  : [options: Options & ParamsFor<E>];

/**
 * A grab callable: `grab(endpoint, options?)` resolves to
 * `[data, error, meta]` and rejects only with a `GrabValidationError`.
 * @internal
 */
export interface Grab {
  /** Grab with a Standard Schema: `Data` is the schema's output. */
  <S extends StandardSchema, const E extends Endpoint = Endpoint>(
    endpoint: E,
    ...options: GrabArgs<
      E,
      Omit<GrabCallOptions, "params" | "schema"> & { schema: S }
    >
  ): Promise<GrabResult<SchemaOutput<S>>>;
  /** Grab; `Data` is the type you expect the body to have. */
  <Data = unknown, Body = unknown, const E extends Endpoint = Endpoint>(
    endpoint: E,
    ...options: GrabArgs<E, Omit<GrabCallOptions<Body>, "params">>
  ): Promise<GrabResult<Data>>;
}

/**
 * Marks call options as bound for an origin nobody named (a next link that
 * `paginate` follows elsewhere): the factory's headers and hooks stay home.
 * @internal
 */
export const FOREIGN: unique symbol = Symbol("grab.foreign");

const TRANSPORT_META: TransportMeta = Object.freeze({ statusCode: 0 });
const CALL_CACHE_LIMIT = 1_000;
const CALL_CACHE_BYTES = 1024 * 1024;

/**
 * Creates a grab callable with a base address and default options.
 *
 * @param baseURL The base address for relative targets; its path is kept.
 * @param options Defaults for every grab; each call may override them.
 * @returns The grab callable.
 * @throws {GrabValidationError} when the base address is not an http(s) URL,
 * holds credentials, or a static header has CR, LF or NUL.
 *
 * @example A first grab
 * ```ts
 * import createGrab from "@grab/grab";
 * const grab = createGrab("https://api.example.com");
 * const [user, error, meta] = await grab("GET /users/:id", { params: { id: 1 } });
 * if (error) console.error(error.message);
 * else console.log(meta.statusCode, user);
 * ```
 */
export function createGrab(
  baseURL?: string | URL,
  options: GrabOptions = {},
): Grab {
  const factory = options ?? {};
  const optionIssues = checkOptions(factory);
  if (optionIssues.length > 0) {
    throw new GrabValidationError(
      `Cannot create the grab: ${
        optionIssues.map((i) => i.message).join("; ")
      }`,
      optionIssues,
    );
  }
  let baseOrigin: string | undefined;
  if (baseURL !== undefined) {
    // Resolving a dummy target validates the base address once, up front.
    baseOrigin = new Call("GET /", baseURL).url.origin;
  }
  const trusted = trustedOriginSet(factory.trustedOrigins);
  const headerSource = factory.headers ?? undefined;
  let staticHeaders: HeaderRecord | undefined;
  if (headerSource !== undefined && typeof headerSource !== "function") {
    staticHeaders = {};
    const issues = mergeHeaders(staticHeaders, headerSource);
    if (issues.length > 0) throw headerError(issues);
  }
  const headerFunction = typeof headerSource === "function"
    ? headerSource
    : undefined;

  interface Entry {
    call: Call;
    trusted: boolean;
  }
  // Endpoints are parsed once; the cache is bounded in bytes as well as in
  // entries, so a program that grabs ever-new long URLs holds little.
  const calls = new Map<string, Entry>();
  let cachedBytes = 0;
  const entryFor = (endpoint: string): Entry => {
    let entry = calls.get(endpoint);
    if (entry === undefined) {
      const call = new Call(endpoint, baseURL);
      const origin = call.url.origin;
      entry = {
        call,
        trusted: baseOrigin === undefined || origin === baseOrigin ||
          trusted.has(origin),
      };
      const bytes = 2 * (endpoint.length + call.url.href.length) + 256;
      if (bytes <= CALL_CACHE_BYTES / 64) {
        if (
          calls.size >= CALL_CACHE_LIMIT ||
          cachedBytes + bytes > CALL_CACHE_BYTES
        ) {
          calls.clear();
          cachedBytes = 0;
        }
        calls.set(endpoint, entry);
        cachedBytes += bytes;
      }
    }
    return entry;
  };

  async function grab(
    endpoint: string,
    given?: GrabCallOptions | null,
  ): Promise<GrabResult<unknown>> {
    const options = given ?? {};
    const entry = entryFor(endpoint);
    const call = entry.call;
    const trusted = entry.trusted &&
      (options as { [FOREIGN]?: boolean })[FOREIGN] !== true;
    const method = call.method;
    const optionIssues = checkOptions(options);
    if (optionIssues.length > 0) {
      throw requestError(method, call.url, optionIssues, "the options");
    }
    const format = options.format ?? factory.format ?? "json";
    const casing = options.casing ?? factory.casing ?? "none";
    let send: SendOptions;
    try {
      send = sendOptions(factory, options, trusted, staticHeaders);
      encodeFormat(send, options, call, casing, factory.wireCasing);
    } catch (error) {
      throw asValidationError(error, method, call.url);
    }

    // The deadline starts before the header function, which it bounds too.
    const deadline = startDeadline(send);
    if (trusted && headerFunction !== undefined) {
      let fresh: HeadersInit;
      try {
        fresh = await deadline.race(headerFunction());
      } catch (error) {
        deadline.dispose();
        if (error !== PASSED) throw error;
        return [null, passedError(call, deadline), TRANSPORT_META];
      }
      const merged: HeaderRecord = {};
      const issues = [
        ...mergeHeaders(merged, fresh),
        ...mergeHeaders(merged, send.headers),
      ];
      if (issues.length > 0) {
        deadline.dispose();
        throw headerError(issues);
      }
      send.headers = merged;
    }

    const outcome = await sendWithin(call, send, deadline);
    const result = toResult(outcome, call, format === "json-api", casing);
    if (!isSet(options.schema) || result[1] !== null) return result;
    return checkSchema(result, options.schema, call, outcome);
  }

  return grab as Grab;
}

function toResult(
  outcome: SendOutcome,
  call: Call,
  jsonApi: boolean,
  casing: Casing,
): GrabResult<unknown> {
  if (!outcome.ok) return [null, outcome.error, TRANSPORT_META];
  const { status, headers } = outcome;
  if (status < 200 || status > 299) {
    const errors = parseErrorDocument(outcome.body, { casing });
    const url = safeUrl(outcome.url);
    const message = (errors && errorDocumentMessage(errors)) ??
      httpErrorMessage(status, outcome.statusText, call.method, url);
    return [
      null,
      new GrabError(message, {
        statusCode: status,
        body: outcome.body,
        headers,
        method: call.method,
        url,
        errors,
      }),
      HTTP_ERROR_META,
    ];
  }
  const meta: SuccessMeta = { statusCode: status, headers };
  let data = outcome.body;
  if (!outcome.empty) {
    if (jsonApi) {
      const document = denormalise(data, { casing });
      if (!document.ok) {
        return transportFailure(call, outcome.url, "parse", document.reason);
      }
      data = document.data;
      if (document.meta !== undefined) meta.meta = document.meta;
      if (document.links !== undefined) meta.links = document.links;
    } else if (casing !== "none") {
      data = convertKeys(data, casing);
    }
  }
  return [data, null, meta];
}

/** Runs the `schema` on a success: its output, or a `"schema"` failure. */
async function checkSchema(
  [data, , meta]: [unknown, null, SuccessMeta],
  schema: StandardSchema,
  call: Call,
  outcome: SendOutcome,
): Promise<GrabResult<unknown>> {
  const checked = await validateSchema(schema, data);
  if (!("issues" in checked)) return [checked.value, null, meta];
  const href = outcome.ok ? outcome.url : call.url.href;
  return transportFailure(call, href, "schema", undefined, checked.issues);
}

function transportFailure(
  call: Call,
  href: string,
  kind: "parse" | "schema",
  detail?: string,
  issues?: readonly unknown[],
): GrabResult<unknown> {
  const url = safeUrl(href);
  const error = new GrabTransportError(
    transportErrorMessage(kind, call.method, url, detail),
    { kind, method: call.method, url, issues },
  );
  return [null, error, TRANSPORT_META];
}

/**
 * The {@linkcode SendOptions} of one grab: each call option over the
 * factory's, the factory's headers and hooks only where they are trusted.
 */
function sendOptions(
  factory: GrabOptions,
  options: GrabCallOptions,
  trusted: boolean,
  staticHeaders: HeaderRecord | undefined,
): SendOptions {
  const send: SendOptions = {
    format: options.format ?? factory.format ?? "json",
  };
  let headers: HeadersInit | undefined = options.headers ?? undefined;
  if (trusted && staticHeaders !== undefined) {
    const merged: HeaderRecord = { ...staticHeaders };
    const issues = mergeHeaders(merged, headers);
    if (issues.length > 0) throw headerError(issues);
    headers = merged;
  }
  if (headers !== undefined) send.headers = headers;
  if (options.body !== undefined) send.body = options.body;
  if (isSet(options.query)) send.query = options.query;
  if (isSet(options.params)) send.params = options.params;
  if (isSet(options.signal)) send.signal = options.signal;
  const timeout = options.timeout ?? factory.timeout;
  if (isSet(timeout)) send.timeout = timeout;
  const retry = options.retry ?? factory.retry;
  if (isSet(retry)) send.retry = retry;
  // Factory hooks belong to the factory, like its headers: they run only
  // for the origins its headers go to.
  const hooks = combineHooks(
    trusted ? factory.hooks ?? undefined : undefined,
    options.hooks ?? undefined,
  );
  if (hooks !== undefined) send.hooks = hooks;
  if (isSet(factory.fetch)) send.fetch = factory.fetch;
  const maxBodyBytes = options.maxBodyBytes ?? factory.maxBodyBytes;
  if (isSet(maxBodyBytes)) send.maxBodyBytes = maxBodyBytes;
  const jsonApi = options.jsonApi ?? factory.jsonApi;
  if (isSet(jsonApi)) send.jsonApi = jsonApi;
  const redirect = options.redirect ?? factory.redirect;
  if (isSet(redirect)) send.redirect = redirect;
  const credentials = options.credentials ?? factory.credentials;
  if (isSet(credentials)) send.credentials = credentials;
  return send;
}

/**
 * The format's share of the request: a JSON:API body validated and
 * serialised, a JSON body's and the query's keys in the wire casing.
 */
function encodeFormat(
  send: SendOptions,
  options: GrabCallOptions,
  call: Call,
  casing: Casing,
  factoryWireCasing: Casing | undefined,
): void {
  const { method, url } = call;
  const bodyError = (issues: ValidationIssue[]) =>
    requestError(method, url, issues, "the request body");
  const format = send.format;
  const wireCasing = options.wireCasing ?? factoryWireCasing ?? "snake_case";
  const body = send.body;
  if (body !== undefined && body !== null && !isPassThrough(body)) {
    if (format === "json-api") {
      const issues = validateWrite(body, { method, casing, wireCasing });
      if (issues.length > 0) throw bodyError(issues);
      send.body = serialise(body, { casing, wireCasing });
    } else if (casing !== "none") {
      const issues = findNonJsonValues(body);
      if (issues.length > 0) throw bodyError(issues);
      send.body = convertKeys(body, wireCasing);
    }
  }
  const query = send.query;
  if (
    query !== undefined && casing !== "none" &&
    !(query instanceof URLSearchParams)
  ) {
    send.query = serialiseQuery(query, new URLSearchParams(), {
      format: format ?? "json",
      casing: wireCasing,
    });
  }
}

/** The transport error of a grab whose deadline passed before sending. */
function passedError(call: Call, deadline: Deadline): GrabTransportError {
  const outcome = failure(
    { href: call.url.href, method: call.method },
    deadline.reason ?? "abort",
    deadline.signal?.reason,
  );
  return (outcome as { error: GrabTransportError }).error;
}

/**
 * The origins of `trustedOrigins`, each of which must be exactly an origin
 * (`scheme://host[:port]`, a trailing `/` allowed): a path would suggest a
 * narrower trust than the origin-wide trust headers and hooks get.
 */
function trustedOriginSet(
  entries: readonly string[] | undefined | null,
): Set<string> {
  const origins = new Set<string>();
  const issues: ValidationIssue[] = [];
  for (const [index, entry] of (entries ?? []).entries()) {
    const url = typeof entry === "string" && ORIGIN.test(entry)
      ? parseUrl(entry)
      : undefined;
    if (url === undefined) {
      issues.push({
        path: `/trustedOrigins/${index}`,
        message: `Cannot trust ${
          describeValue(entry)
        }: give an origin such as "https://cdn.example.com", with no path, query or credentials`,
      });
    } else origins.add(url.origin);
  }
  if (issues.length > 0) {
    throw new GrabValidationError(
      `Cannot create the grab: ${issues.map((i) => i.message).join("; ")}`,
      issues,
    );
  }
  return origins;
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

const ORIGIN = /^https?:\/\/[^\s/?#@\\]+\/?$/i;

function headerError(issues: ValidationIssue[]): GrabValidationError {
  return new GrabValidationError(
    `Cannot send the headers: ${issues.map((i) => i.message).join("; ")}`,
    issues,
  );
}
