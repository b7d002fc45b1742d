/**
 * `createGrab`: binds factory defaults and returns the grab callable, which
 * resolves its options, runs one exchange of the endpoint's {@linkcode Call}
 * and decodes the outcome into a tuple.
 *
 * @module
 */

import { Call, exchange, withCodec } from "./call.ts";
import type { Endpoint, PathParamNames, PathParamValue } from "./endpoint.ts";
import { validationError } from "./errors.ts";
import { type Codec, codecFor, decodeOutcome } from "./format.ts";
import type { GrabCallOptions } from "./call_options.ts";
import type { GrabOptions } from "./options.ts";
import { type Resolved, resolveFactory, resolveOptions } from "./resolve.ts";
import { trustedOriginSet } from "./trusted_origins.ts";
import { baseText } from "./url.ts";
import type { GrabStream } from "./grab_stream.ts";
import type {
  DataOf,
  ResponseType,
  SchemaDataOf,
  ServerSentEvent,
} from "./response_type.ts";
import { type GrabResult, TRANSPORT_META } from "./result.ts";
import type { SchemaOutput, StandardSchema } from "./schema.ts";

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
 * A schema where the response type checks one: bytes, blobs and raw streams
 * are never checked, so a schema there is refused rather than ignored.
 */
type Checks<R extends ResponseType, S> = R extends "bytes" | "blob" | "stream"
  ? never
  : S;

/** The call options of a grab, but for those its overloads type. */
type Rest<Body = unknown> = Omit<
  GrabCallOptions<Body>,
  "params" | "schema" | "responseType"
>;

/**
 * A grab callable: `grab(endpoint, options?)` resolves to
 * `[data, error, meta]` and rejects only with a `GrabValidationError`. The
 * type of `data` follows `responseType`, the call's or else `Default`, the
 * factory's.
 * @internal
 */
export interface Grab<Default extends ResponseType = "json"> {
  /** Grab with a Standard Schema: `data` follows the schema's output. */
  <
    S extends StandardSchema,
    const E extends Endpoint = Endpoint,
    R extends ResponseType = Default,
  >(
    endpoint: E,
    options: Rest & ParamsFor<E> & { schema: Checks<R, S>; responseType?: R },
  ): Promise<GrabResult<SchemaDataOf<R, SchemaOutput<S>>>>;
  /** Grab a stream of NDJSON values, each of the type you expect. */
  <Data = unknown, Body = unknown, const E extends Endpoint = Endpoint>(
    endpoint: E,
    options: Rest<Body> & ParamsFor<E> & { responseType: "ndjson" },
  ): Promise<GrabResult<GrabStream<Data>>>;
  /** Grab JSON; `Data` is the type you expect the body to have. */
  <Data = unknown, Body = unknown, const E extends Endpoint = Endpoint>(
    endpoint: E,
    options: Rest<Body> & ParamsFor<E> & { responseType: "json" },
  ): Promise<GrabResult<Data>>;
  /** Grab text, also with explicit type arguments. */
  <Data = unknown, Body = unknown, const E extends Endpoint = Endpoint>(
    endpoint: E,
    options: Rest<Body> & ParamsFor<E> & { responseType: "text" },
  ): Promise<GrabResult<string>>;
  /** Grab bytes, also with explicit type arguments. */
  <Data = unknown, Body = unknown, const E extends Endpoint = Endpoint>(
    endpoint: E,
    options: Rest<Body> & ParamsFor<E> & { responseType: "bytes" },
  ): Promise<GrabResult<Uint8Array>>;
  /** Grab a blob, also with explicit type arguments. */
  <Data = unknown, Body = unknown, const E extends Endpoint = Endpoint>(
    endpoint: E,
    options: Rest<Body> & ParamsFor<E> & { responseType: "blob" },
  ): Promise<GrabResult<Blob>>;
  /** Grab the body as a stream, also with explicit type arguments. */
  <Data = unknown, Body = unknown, const E extends Endpoint = Endpoint>(
    endpoint: E,
    options: Rest<Body> & ParamsFor<E> & { responseType: "stream" },
  ): Promise<GrabResult<ReadableStream<Uint8Array>>>;
  /** Grab Server-Sent Events, also with explicit type arguments. */
  <Data = unknown, Body = unknown, const E extends Endpoint = Endpoint>(
    endpoint: E,
    options: Rest<Body> & ParamsFor<E> & { responseType: "sse" },
  ): Promise<GrabResult<GrabStream<ServerSentEvent>>>;
  /** Grab; `Data` is the type you expect a JSON body to have. */
  <
    Data = unknown,
    Body = unknown,
    const E extends Endpoint = Endpoint,
    R extends ResponseType = Default,
  >(
    endpoint: E,
    ...options: GrabArgs<E, Rest<Body> & { responseType?: R }>
  ): Promise<GrabResult<DataOf<R, Data>>>;
}

/**
 * The response type a factory's options fix: the literal `responseType`,
 * or `"json"` when they give none or are typed as any `GrabOptions`.
 * @internal
 */
export type FactoryType<O> = O extends { responseType?: infer R }
  ? [Exclude<R, undefined>] extends [never] ? "json"
  : ResponseType extends Exclude<R, undefined> ? "json"
  : Exclude<R, undefined> & ResponseType
  : "json";

/**
 * Marks call options as bound for an origin nobody named (a next link that
 * `paginate` follows elsewhere): the factory's headers and hooks stay home.
 * @internal
 */
export const FOREIGN: unique symbol = Symbol("grab.foreign");

const CALL_CACHE_LIMIT = 1_000;
const CALL_CACHE_BYTES = 1024 * 1024;

/**
 * Creates a grab callable with a base address and default options.
 *
 * @typeParam O The factory's options; a literal `responseType` among them
 * types `data` when a call does not give its own.
 * @param baseURL The base address for relative targets; its path and query
 * are kept.
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
export function createGrab<const O extends GrabOptions = GrabOptions>(
  baseURL?: string | URL,
  options?: O | null,
): Grab<FactoryType<O>> {
  const factory = resolveFactory(options ?? {});
  // A URL object is read once, here: the caller may change it afterwards,
  // and the endpoints parsed before and after would disagree.
  const base = baseText(baseURL);
  // Resolving a dummy target validates the base address once, up front.
  const baseOrigin = base === undefined
    ? undefined
    : new Call("GET /", base).url.origin;
  const trusted = trustedOriginSet(factory.options.trustedOrigins);
  const calls = endpointCache(
    base,
    (origin) =>
      baseOrigin === undefined || origin === baseOrigin || trusted.has(origin),
  );

  function grab(
    endpoint: string,
    given?: GrabCallOptions | null,
  ): Promise<GrabResult<unknown>> {
    // Not an async function: the work before the request is done here, at
    // once, and only the exchange is waited for.
    try {
      const options = given ?? {};
      const { call, trusted } = calls(endpoint);
      const foreign = isForeign(options);
      const resolved = resolveOptions(factory, options, trusted && !foreign);
      if (Array.isArray(resolved)) {
        throw validationError(resolved, {
          method: call.method,
          url: call.url,
          where: "the options",
        });
      }
      // The JSON codec is at hand; only the JSON:API one may be loading.
      const loading = codecFor(resolved.format);
      if (loading instanceof Promise) {
        return withCodec(call, resolved, loading).then((loaded) =>
          "failed" in loaded
            ? [null, loaded.failed.error, TRANSPORT_META]
            : grabWith(call, loaded.resolved, loaded.codec)
        );
      }
      return grabWith(call, resolved, loading);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  return grab as Grab<FactoryType<O>>;
}

/**
 * One exchange decoded into the tuple, its deadline disposed at the end.
 * Throws what `exchange` throws (a `GrabValidationError`) at once.
 */
function grabWith(
  call: Call,
  resolved: Resolved,
  codec: Codec,
): Promise<GrabResult<unknown>> {
  const { outcome, deadline } = exchange(call, resolved, codec);
  return outcome.then((settled) => {
    let decoded;
    try {
      decoded = decodeOutcome(settled, call.method, resolved, codec, deadline);
    } catch (error) {
      deadline.dispose();
      throw error;
    }
    // Only a schema's check is waited for, within the deadline.
    if (decoded instanceof Promise) {
      return decoded.finally(() => deadline.dispose());
    }
    deadline.dispose();
    return decoded;
  }, (error: unknown) => {
    deadline.dispose();
    throw error;
  });
}

/**
 * True for the options of a next link `paginate` follows to another origin.
 * Options that cannot be read at all (a revoked `Proxy`) are refused when
 * they are resolved.
 */
function isForeign(options: object): boolean {
  try {
    return (options as { [FOREIGN]?: boolean })[FOREIGN] === true;
  } catch {
    return false;
  }
}

/** A parsed endpoint and whether the factory trusts its origin. */
interface Entry {
  call: Call;
  trusted: boolean;
}

/**
 * Parses each endpoint once. The cache is bounded in bytes as well as in
 * entries, so a program that grabs ever-new long URLs holds little; an
 * endpoint too long to be worth keeping is parsed each time.
 */
function endpointCache(
  baseURL: string | URL | undefined,
  trusts: (origin: string) => boolean,
): (endpoint: string) => Entry {
  const calls = new Map<string, Entry>();
  let bytes = 0;
  return (endpoint) => {
    let entry = calls.get(endpoint);
    if (entry !== undefined) return entry;
    const call = new Call(endpoint, baseURL);
    entry = { call, trusted: trusts(call.url.origin) };
    const size = 2 * (endpoint.length + call.url.href.length) + 256;
    if (size > CALL_CACHE_BYTES / 64) return entry;
    if (calls.size >= CALL_CACHE_LIMIT || bytes + size > CALL_CACHE_BYTES) {
      calls.clear();
      bytes = 0;
    }
    calls.set(endpoint, entry);
    bytes += size;
    return entry;
  };
}
