/**
 * The options of a factory, of a call and of {@linkcode Call.send}, with
 * their defaults. This is the only place that knows the defaults.
 *
 * @module
 */

import type { Casing } from "./casing.ts";
import type { Hooks } from "./hooks.ts";
import type { JsonApiOptions } from "./jsonapi/media_type.ts";
import type { Format } from "./query.ts";
import type { RetryOptions } from "./retry.ts";
import type { StandardSchema } from "./schema.ts";

/** Default `timeout`: 30 s. */
export const DEFAULT_TIMEOUT = 30_000;
/** Default `maxBodyBytes`: 64 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024 * 1024;

/**
 * A query: an object of primitives, arrays and nested objects, or
 * `URLSearchParams`.
 * @internal
 */
export type QueryInit = URLSearchParams | Record<string, unknown>;

/**
 * Defaults for every grab of a factory.
 *
 * @example An authenticated JSON:API client
 * ```ts
 * import createGrab, { type GrabOptions } from "@grab/grab";
 * const options: GrabOptions = {
 *   format: "json-api",
 *   casing: "camelCase",
 *   headers: async () => ({ authorization: `Bearer ${await Promise.resolve("t")}` }),
 *   timeout: 10_000,
 * };
 * const grab = createGrab("https://api.example.com/v1", options);
 * ```
 */
export interface GrabOptions {
  /**
   * Headers for every request: a `HeadersInit`, or a function (sync or async)
   * called per request, for tokens. With a base address they are sent only
   * to its origin and to `trustedOrigins`.
   */
  headers?: HeadersInit | (() => HeadersInit | Promise<HeadersInit>);
  /**
   * Further origins (`"https://cdn.example.com"`) that receive the factory's
   * headers.
   * @default {[]}
   */
  trustedOrigins?: string[];
  /**
   * The `fetch` to use.
   * @default {globalThis.fetch}
   */
  fetch?: (input: Request | string, init?: RequestInit) => Promise<Response>;

  /**
   * `"json"`, or `"json-api"` for JSON:API documents: validated and
   * serialised writes, denormalised reads, parsed error documents.
   * @default {"json"}
   */
  format?: Format;
  /**
   * The caller-side key casing. Response keys are converted to it and request
   * keys from it to `wireCasing`. Keys only, never values.
   * @default {"none"}
   */
  casing?: Casing;
  /**
   * The server's key casing, used for request bodies and query keys when
   * `casing` is not `"none"`.
   * @default {"snake_case"}
   */
  wireCasing?: Casing;
  /**
   * Milliseconds for the whole grab, retries' waits included; `false` for
   * none. A timeout gives a transport error of kind `"timeout"`.
   * @default {30000}
   */
  timeout?: number | false;
  /**
   * Retries of idempotent requests after a network failure or a 408, 429,
   * 500, 502, 503 or 504: a count, or a {@linkcode RetryOptions}.
   * @default {2}
   */
  retry?: number | RetryOptions;
  /** Functions called around each attempt; see {@linkcode Hooks}. */
  hooks?: Hooks;
  /**
   * Response bodies over this many bytes are cancelled while streaming and
   * give a transport error of kind `"too-large"`. `Infinity` disables.
   * @default {67108864}
   */
  maxBodyBytes?: number;
  /**
   * JSON:API media type parameters (`ext`, `profile`), and `headers: false`
   * to stop the library setting `Accept` and `Content-Type`.
   * @default {{ headers: true }}
   */
  jsonApi?: JsonApiOptions;
  /**
   * What `fetch` does on a redirect. Use `"manual"` to handle redirects
   * yourself, for example when other headers than `Authorization` are secret.
   * @default {"follow"}
   */
  redirect?: RequestRedirect;
  /**
   * Whether browsers send cookies and HTTP authentication.
   * @default {"same-origin"}
   */
  credentials?: RequestCredentials;
}

/**
 * Options of one grab; each field overrides the factory's. Besides its own
 * fields it takes every {@linkcode GrabOptions} field but `headers` (here a
 * plain `HeadersInit`), `trustedOrigins` and `fetch`.
 *
 * @typeParam Body The type of `body`.
 *
 * @example A filtered, paginated read
 * ```ts
 * import createGrab, { type GrabCallOptions } from "@grab/grab";
 * const grab = createGrab("https://api.example.com");
 * const options: GrabCallOptions = {
 *   query: { filter: { status: "open" }, page: { size: 10 } },
 *   timeout: 5_000,
 * };
 * const [issues, error] = await grab("GET /issues", options);
 * ```
 */
export interface GrabCallOptions<Body = unknown>
  extends Omit<GrabOptions, "headers" | "trustedOrigins" | "fetch"> {
  /**
   * A plain object or array is sent as JSON (in JSON:API mode, as a resource
   * document); `string`, `FormData`, `URLSearchParams`, `Blob`,
   * `ArrayBuffer`, typed arrays and `ReadableStream` are sent as they are.
   */
  body?: Body;
  /** Headers of this call, merged over the factory's (call wins). */
  headers?: HeadersInit;
  /**
   * Query parameters, merged with any in the target. Nested objects use
   * brackets (`page[size]=10`); arrays are comma-joined in JSON:API mode and
   * repeated keys in JSON mode; `undefined` and `null` are skipped.
   */
  query?: QueryInit;
  /** Values for the endpoint's `:name` segments. */
  params?: Record<string, string | number>;
  /** Aborting it gives a transport error of kind `"abort"`. */
  signal?: AbortSignal;
  /**
   * A Standard Schema v1 validator (zod, valibot, arktype) for the response
   * data; a failure gives a transport error of kind `"schema"`.
   */
  schema?: StandardSchema;
}

/**
 * Options of {@linkcode Call.send}: one exchange, every option resolved.
 *
 * @example
 * ```ts
 * import { Call, type SendOptions } from "@grab/grab";
 * const options: SendOptions = { params: { id: 1 }, timeout: 5_000, retry: 0 };
 * const outcome = await new Call("GET https://api.example.com/users/:id").send(options);
 * ```
 */
export interface SendOptions {
  /** A plain value (sent as JSON) or a body type sent as is. */
  body?: unknown;
  /** Request headers. */
  headers?: HeadersInit;
  /** Query parameters, merged with any in the target. */
  query?: QueryInit;
  /** Values for the endpoint's `:name` segments. */
  params?: Record<string, string | number>;
  /** Aborting it gives a transport error of kind `"abort"`. */
  signal?: AbortSignal;
  /**
   * Milliseconds for the exchange, retries included; `false` for none.
   * @default {30000}
   */
  timeout?: number | false;
  /**
   * Retry count or policy.
   * @default {2}
   */
  retry?: number | RetryOptions;
  /** Hooks around each attempt. */
  hooks?: Hooks;
  /**
   * The `fetch` to use.
   * @default {globalThis.fetch}
   */
  fetch?: (input: Request | string, init?: RequestInit) => Promise<Response>;
  /**
   * Sets the JSON:API media types, and comma-joins query arrays.
   * @default {"json"}
   */
  format?: Format;
  /**
   * Byte cap on the response body.
   * @default {67108864}
   */
  maxBodyBytes?: number;
  /** JSON:API media type parameters. */
  jsonApi?: JsonApiOptions;
  /**
   * Redirect mode for `fetch`.
   * @default {"follow"}
   */
  redirect?: RequestRedirect;
  /** Credentials mode for `fetch` in browsers. */
  credentials?: RequestCredentials;
}
