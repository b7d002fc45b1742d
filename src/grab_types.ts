/**
 * The types of the grab callable: its overloads, the `params` and options an
 * endpoint literal needs, and the response type a factory fixes.
 *
 * @module
 */

import type { GrabCallOptions, SendOptions } from "./call_options.ts";
import type { Endpoint, PathParamNames, PathParamValue } from "./endpoint.ts";
import type { GrabStream } from "./grab_stream.ts";
import type {
  DataOf,
  ReadAs,
  ResponseType,
  SchemaDataOf,
  ServerSentEvent,
  StreamType,
} from "./response_type.ts";
import type { GrabResult } from "./result.ts";
import type { SchemaOutput, StandardSchema } from "./schema.ts";

/**
 * The `params` of an endpoint literal without `:name` segments: none. An
 * object literal naming one does not compile, as the run time refuses a
 * parameter that no segment takes; options typed `GrabCallOptions` fit.
 * @internal
 */
export interface NoPathParams {
  /** A lone `:` segment is no parameter, so this name is never one. */
  ""?: undefined;
}

/** The `params` of an endpoint that is not a literal. */
type AnyParams = { params?: Record<string, PathParamValue> | undefined };

/**
 * True when `E` stands for many strings (`GET /users/${string}`): such an
 * endpoint, built from a `string`, may hold any segment.
 */
type IsPattern<E extends string> = Record<never, never> extends Record<E, 1>
  ? true
  : false;

/**
 * A member of the union `E` whose `:name` segments are not those of all:
 * no one `params` object fits each endpoint, as one needs a name that
 * another refuses, so such a union is checked as a non-literal is.
 */
type Uneven<E extends string, All extends string = E> = E extends string
  ? [PathParamNames<All>] extends [PathParamNames<E>] ? never : E
  : never;

/**
 * True when the `params` of endpoint `E` are free-form: `E` is no literal,
 * or a union of literals with different `:name` segments.
 */
type Loose<E extends string> = Endpoint extends E ? true
  : [Uneven<E>] extends [never] ? false
  : true;

/**
 * The `params` a grab of endpoint `E` needs: required and named when the
 * literal has `:name` segments, none when a literal has none, free-form
 * when the endpoint is not a literal or is literals with different names.
 * @internal
 */
export type ParamsFor<E extends string> = Loose<E> extends true ? AnyParams
  : [PathParamNames<E>] extends [never] ? IsPattern<E> extends true ? AnyParams
    : { params?: NoPathParams | undefined }
  : { params: Record<PathParamNames<E>, PathParamValue> };

/**
 * The options argument of a grab of endpoint `E`: required when the endpoint
 * has path parameters, else optional and may be `null`.
 * @internal
 */
export type GrabArgs<E extends string, Options> = Loose<E> extends true
  ? [options?: (Options & ParamsFor<E>) | null]
  : [PathParamNames<E>] extends [never]
    ? [options?: (Options & ParamsFor<E>) | null]
  : [options: Options & ParamsFor<E>];

/**
 * A schema where the response type checks one: bytes, blobs and raw streams
 * are never checked, so a schema there is refused rather than ignored. A
 * union (`"json" | "bytes"`) is refused when any of its types is one, as the
 * run time refuses the call whenever it is.
 */
type Checks<R extends ResponseType, S> = [
  Extract<R, "bytes" | "blob" | "stream">,
] extends [never] ? S
  : never;

/**
 * The `idleTimeout` of a grab read as `R`: a live body's reads take one,
 * while a whole body, which `timeout` bounds, takes only `false`, as the run
 * time refuses the call otherwise. A union (`"sse" | "json"`) takes one only
 * when all its types are live.
 * @internal
 */
export type IdleFor<R extends ResponseType> = {
  idleTimeout?:
    | ([Exclude<R, StreamType>] extends [never] ? number : never)
    | false
    | undefined;
};

/**
 * The options of a `Call.send` read as `R`, its `idleTimeout` as a grab's.
 * @internal
 */
export type SendFor<R extends ResponseType | undefined> =
  & Omit<SendOptions, "idleTimeout">
  & { responseType?: R }
  & IdleFor<ReadAs<R, "json">>;

/**
 * The `schema` and `responseType` of a grab or paginate with a schema;
 * `Default` is read where `responseType` is `undefined`.
 * @internal
 */
export type SchemaFor<
  R extends ResponseType | undefined,
  S,
  Default extends ResponseType,
> = {
  schema: Checks<ReadAs<R, Default>, S>;
  responseType?: R;
};

/**
 * The options argument of a `paginate` of endpoint `E`, as a grab's.
 * @internal
 */
export type PageArgs<E extends string, Options> = GrabArgs<E, Options>;

/**
 * The options of `paginate`: those of every request, plus `limit`.
 * @internal
 */
export type PageOptions =
  & Omit<
    GrabCallOptions,
    "params" | "schema" | "responseType" | "idleTimeout"
  >
  & {
    /** The most pages to fetch; `null` or `undefined` is no limit. */
    limit?: number | null | undefined;
  };

/**
 * The call options of a grab, but for those its overloads type. A literal
 * whose `idleTimeout` no overload takes is refused by the last one too.
 */
type Rest<Body = unknown> = Omit<
  GrabCallOptions<Body>,
  "params" | "schema" | "responseType" | "idleTimeout"
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
    R extends ResponseType | undefined = Default,
  >(
    endpoint: E,
    options:
      & Rest
      & ParamsFor<E>
      & SchemaFor<R, S, Default>
      & IdleFor<ReadAs<R, Default>>,
  ): Promise<GrabResult<SchemaDataOf<ReadAs<R, Default>, SchemaOutput<S>>>>;
  /** Grab a stream of NDJSON values, each of the type you expect. */
  <Data = unknown, Body = unknown, const E extends Endpoint = Endpoint>(
    endpoint: E,
    options:
      & Rest<Body>
      & ParamsFor<E>
      & { responseType: "ndjson" }
      & IdleFor<"ndjson">,
  ): Promise<GrabResult<GrabStream<Data> | null>>;
  /** Grab JSON; `Data` is the type you expect the body to have. */
  <Data = unknown, Body = unknown, const E extends Endpoint = Endpoint>(
    endpoint: E,
    options:
      & Rest<Body>
      & ParamsFor<E>
      & { responseType: "json" }
      & IdleFor<"json">,
  ): Promise<GrabResult<Data>>;
  /** Grab text, also with explicit type arguments. */
  <Data = unknown, Body = unknown, const E extends Endpoint = Endpoint>(
    endpoint: E,
    options:
      & Rest<Body>
      & ParamsFor<E>
      & { responseType: "text" }
      & IdleFor<"text">,
  ): Promise<GrabResult<string | null>>;
  /** Grab bytes, also with explicit type arguments. */
  <Data = unknown, Body = unknown, const E extends Endpoint = Endpoint>(
    endpoint: E,
    options:
      & Rest<Body>
      & ParamsFor<E>
      & { responseType: "bytes" }
      & IdleFor<"bytes">,
  ): Promise<GrabResult<Uint8Array | null>>;
  /** Grab a blob, also with explicit type arguments. */
  <Data = unknown, Body = unknown, const E extends Endpoint = Endpoint>(
    endpoint: E,
    options:
      & Rest<Body>
      & ParamsFor<E>
      & { responseType: "blob" }
      & IdleFor<"blob">,
  ): Promise<GrabResult<Blob | null>>;
  /** Grab the body as a stream, also with explicit type arguments. */
  <Data = unknown, Body = unknown, const E extends Endpoint = Endpoint>(
    endpoint: E,
    options:
      & Rest<Body>
      & ParamsFor<E>
      & { responseType: "stream" }
      & IdleFor<"stream">,
  ): Promise<GrabResult<ReadableStream<Uint8Array> | null>>;
  /** Grab Server-Sent Events, also with explicit type arguments. */
  <Data = unknown, Body = unknown, const E extends Endpoint = Endpoint>(
    endpoint: E,
    options:
      & Rest<Body>
      & ParamsFor<E>
      & { responseType: "sse" }
      & IdleFor<"sse">,
  ): Promise<GrabResult<GrabStream<ServerSentEvent> | null>>;
  /** Grab; `Data` is the type you expect a JSON body to have. */
  <
    Data = unknown,
    Body = unknown,
    const E extends Endpoint = Endpoint,
    R extends ResponseType | undefined = Default,
  >(
    endpoint: E,
    ...options: GrabArgs<
      E,
      Rest<Body> & { responseType?: R } & IdleFor<ReadAs<R, Default>>
    >
  ): Promise<GrabResult<DataOf<ReadAs<R, Default>, Data>>>;
  /**
   * Grab with options whose `responseType` is not a literal (a variable typed
   * `GrabCallOptions`) and an explicit `Data`: `data` is the type you give.
   */
  <Data = unknown, Body = unknown, const E extends Endpoint = Endpoint>(
    endpoint: E,
    ...options: GrabArgs<
      E,
      Rest<Body> & { responseType?: ResponseType | undefined }
    >
  ): Promise<GrabResult<Data>>;
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
