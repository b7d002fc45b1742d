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
import type { ValidationIssue } from "./errors.ts";

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
   * @default {{}}
   *
   * @example A fresh token on every request
   * ```ts
   * import createGrab from "@grab/grab";
   * const getToken = () => Promise.resolve("secret");
   * const grab = createGrab("https://api.example.com", {
   *   headers: async () => ({ authorization: `Bearer ${await getToken()}` }),
   * });
   * ```
   */
  headers?: HeadersInit | (() => HeadersInit | Promise<HeadersInit>);
  /**
   * Further origins (`"https://cdn.example.com"`) that receive the factory's
   * headers.
   * @default {[]}
   *
   * @example Sending the token to a second origin
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com", {
   *   headers: { authorization: "Bearer secret" },
   *   trustedOrigins: ["https://uploads.example.com"],
   * });
   * ```
   */
  trustedOrigins?: string[];
  /**
   * The `fetch` to use.
   * @default {globalThis.fetch}
   *
   * @example Logging every request
   * ```ts
   * import createGrab from "@grab/grab";
   * const logged: typeof fetch = (input, init) => {
   *   console.debug(init?.method ?? "GET", String(input));
   *   return fetch(input, init);
   * };
   * const grab = createGrab("https://api.example.com", { fetch: logged });
   * ```
   */
  fetch?: (input: Request | string, init?: RequestInit) => Promise<Response>;

  /**
   * `"json"`, or `"json-api"` for JSON:API documents: validated and
   * serialised writes, denormalised reads, parsed error documents.
   * @default {"json"}
   *
   * @example Reading a JSON:API collection
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com/v1", { format: "json-api" });
   * // Each article comes back flat, its included author in place.
   * const [articles] = await grab("GET /articles", { query: { include: "author" } });
   * ```
   */
  format?: Format;
  /**
   * The caller-side key casing. Response keys are converted to it and request
   * keys from it to `wireCasing`. Keys only, never values.
   * @default {"none"}
   *
   * @example camelCase keys from a snake_case API
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com", { casing: "camelCase" });
   * // `{ "created_at": "2024-05-01" }` on the wire reads as `{ createdAt: "2024-05-01" }`.
   * const [user] = await grab("GET /users/:id", { params: { id: 7 } });
   * ```
   */
  casing?: Casing;
  /**
   * The server's key casing, used for request bodies and query keys when
   * `casing` is not `"none"`.
   * @default {"snake_case"}
   *
   * @example A kebab-case server
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com", {
   *   casing: "camelCase",
   *   wireCasing: "kebab-case", // `{ firstName }` is sent as `{ "first-name" }`
   * });
   * ```
   */
  wireCasing?: Casing;
  /**
   * Milliseconds for the whole grab, retries' waits included; `false` for
   * none. A timeout gives a transport error of kind `"timeout"`.
   * @default {30000}
   *
   * @example A 5 s limit, lifted for one slow report
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com", { timeout: 5_000 });
   * const [report] = await grab("GET /reports/:id", { params: { id: 1 }, timeout: false });
   * ```
   */
  timeout?: number | false;
  /**
   * Retries of idempotent requests after a network failure or a 408, 429,
   * 500, 502, 503 or 504: a count, or a {@linkcode RetryOptions}.
   * @default {2}
   *
   * @example Four retries for a flaky upstream
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com", { retry: 4 });
   * ```
   */
  retry?: number | RetryOptions;
  /**
   * Functions called around each attempt; see {@linkcode Hooks}.
   * @default {undefined}
   *
   * @example A request ID on every attempt
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com", {
   *   hooks: { beforeRequest: (request) => request.headers.set("x-request-id", crypto.randomUUID()) },
   * });
   * ```
   */
  hooks?: Hooks;
  /**
   * Response bodies over this many bytes are cancelled while streaming and
   * give a transport error of kind `"too-large"`. `Infinity` disables.
   * @default {67108864}
   *
   * @example A 1 MiB cap
   * ```ts
   * import createGrab, { isGrabTransportError } from "@grab/grab";
   * const grab = createGrab("https://api.example.com", { maxBodyBytes: 1024 * 1024 });
   * const [, error] = await grab("GET /export");
   * if (isGrabTransportError(error) && error.kind === "too-large") console.warn("Export too large");
   * ```
   */
  maxBodyBytes?: number;
  /**
   * JSON:API media type parameters (`ext`, `profile`), and `headers: false`
   * to stop the library setting `Accept` and `Content-Type`.
   * @default {{ headers: true }}
   *
   * @example Asking for the Atomic Operations extension
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com/v1", {
   *   format: "json-api",
   *   jsonApi: { ext: ["https://jsonapi.org/ext/atomic"] },
   * });
   * ```
   */
  jsonApi?: JsonApiOptions;
  /**
   * What `fetch` does on a redirect. Use `"manual"` to handle redirects
   * yourself, for example when other headers than `Authorization` are secret.
   * @default {"follow"}
   *
   * @example Handling redirects yourself
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com", {
   *   headers: { "x-api-key": "secret" },
   *   redirect: "manual",
   * });
   * ```
   */
  redirect?: RequestRedirect;
  /**
   * Whether browsers send cookies and HTTP authentication.
   * @default {"same-origin"}
   *
   * @example Sending cookies to an API on another origin
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com", { credentials: "include" });
   * ```
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
   * @default {undefined}
   *
   * @example Creating a note
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com");
   * const [note, error] = await grab("POST /notes", { body: { text: "Buy milk" } });
   * ```
   */
  body?: Body;
  /**
   * Headers of this call, merged over the factory's (call wins).
   * @default {{}}
   *
   * @example A header for one request
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com");
   * const [page] = await grab("GET /pages/:slug", {
   *   params: { slug: "about" },
   *   headers: { "accept-language": "en-GB" },
   * });
   * ```
   */
  headers?: HeadersInit;
  /**
   * Query parameters, merged with any in the target. Nested objects use
   * brackets (`page[size]=10`); arrays are comma-joined in JSON:API mode and
   * repeated keys in JSON mode; `undefined` and `null` are skipped.
   * @default {undefined}
   *
   * @example Filtering and paginating
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com");
   * // ?state=open&labels=bug&labels=ui&page%5Bsize%5D=10
   * const [issues] = await grab("GET /issues", {
   *   query: { state: "open", labels: ["bug", "ui"], page: { size: 10 } },
   * });
   * ```
   */
  query?: QueryInit;
  /**
   * Values for the endpoint's `:name` segments.
   * @default {undefined}
   *
   * @example Filling two path parameters
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com");
   * const [post] = await grab("GET /users/:userId/posts/:postId", {
   *   params: { userId: 7, postId: "hello-world" },
   * });
   * ```
   */
  params?: Record<string, string | number>;
  /**
   * Aborting it gives a transport error of kind `"abort"`.
   * @default {undefined}
   *
   * @example Cancelling a search the user has moved on from
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com");
   * const controller = new AbortController();
   * const pending = grab("GET /search", { query: { q: "deno" }, signal: controller.signal });
   * controller.abort(); // `pending` resolves with a transport error of kind "abort"
   * ```
   */
  signal?: AbortSignal;
  /**
   * A Standard Schema v1 validator (zod, valibot, arktype) for the response
   * data; a failure gives a transport error of kind `"schema"`.
   * @default {undefined}
   *
   * @example Typing and checking the data (with zod: `schema: z.object(…)`)
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com");
   * const validate = (value: unknown) => ({ value: value as { id: number; name: string } });
   * const schema = { "~standard": { version: 1, vendor: "example", validate } } as const;
   * const [user] = await grab("GET /users/:id", { params: { id: 7 }, schema });
   * ```
   */
  schema?: StandardSchema;
}

/**
 * Options of {@linkcode Call.send}: one exchange. The fields are those of
 * {@linkcode GrabCallOptions} that concern the exchange itself (no key
 * casing, no schema) and the factory's `fetch`.
 *
 * @example A single read without retries
 * ```ts
 * import { Call, type SendOptions } from "@grab/grab";
 * const options: SendOptions = { params: { id: 1 }, timeout: 5_000, retry: 0 };
 * const outcome = await new Call("GET https://api.example.com/users/:id").send(options);
 * ```
 */
export interface SendOptions
  extends
    Omit<GrabCallOptions, "casing" | "wireCasing" | "schema">,
    Pick<GrabOptions, "fetch"> {}

/** The longest `timeout` a timer can hold: 2^31 − 1 ms. */
const MAX_TIMEOUT = 2 ** 31 - 1;

/**
 * Checks the options that a wrong value would turn off or make misbehave:
 * the numbers (`timeout`, `maxBodyBytes`, `retry`), `signal`, `fetch` and
 * `hooks`. Each problem is an issue naming the option; `null` and
 * `undefined` mean none and pass.
 */
export function checkOptions(options: object): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const add = (name: string, wanted: string) =>
    issues.push({
      path: "",
      message: `Cannot use the option "${name}": it must be ${wanted}`,
    });
  const { timeout, maxBodyBytes, retry, signal, fetch, hooks } =
    options as Record<string, unknown>;
  if (isSet(timeout) && timeout !== false && !isTimeout(timeout)) {
    add("timeout", `false, Infinity or a number from 1 to ${MAX_TIMEOUT}`);
  }
  if (
    isSet(maxBodyBytes) && maxBodyBytes !== Infinity &&
    !isCount(maxBodyBytes)
  ) {
    add("maxBodyBytes", "a non-negative integer or Infinity");
  }
  if (isSet(retry) && !isCount(retry)) {
    if (typeof retry !== "object") {
      add("retry", "a non-negative integer or RetryOptions");
    } else checkRetry(retry as Record<string, unknown>, add);
  }
  if (isSet(signal) && !(signal instanceof AbortSignal)) {
    add("signal", "an AbortSignal");
  }
  if (isSet(fetch) && typeof fetch !== "function") {
    add("fetch", "a function");
  }
  for (const [name, allowed] of ENUMS) {
    const value = (options as Record<string, unknown>)[name];
    if (isSet(value) && !allowed.includes(value as string)) {
      add(
        name,
        allowed.map((v) => `"${v}"`).join(", ").replace(/, ([^,]*)$/, " or $1"),
      );
    }
  }
  if (isSet(hooks)) {
    if (typeof hooks !== "object") add("hooks", "an object of functions");
    else {
      for (const name of HOOK_NAMES) {
        const hook = (hooks as Record<string, unknown>)[name];
        if (isSet(hook) && typeof hook !== "function") {
          add(`hooks.${name}`, "a function");
        }
      }
    }
  }
  return issues;
}

/** The options whose values are one of a few strings. */
const ENUMS: [string, readonly string[]][] = [
  ["format", ["json", "json-api"]],
  ["redirect", ["follow", "error", "manual"]],
  ["credentials", ["omit", "same-origin", "include"]],
];

const HOOK_NAMES = ["beforeRequest", "afterResponse", "beforeRetry"] as const;

function checkRetry(
  retry: Record<string, unknown>,
  add: (name: string, wanted: string) => void,
): void {
  const { limit, maxDelay, backoff, methods, statusCodes } = retry;
  if (isSet(limit) && !isCount(limit)) {
    add("retry.limit", "a non-negative integer");
  }
  if (
    isSet(maxDelay) &&
    !(typeof maxDelay === "number" && maxDelay >= 0)
  ) {
    add("retry.maxDelay", "a non-negative number or Infinity");
  }
  if (isSet(backoff) && typeof backoff !== "function") {
    add("retry.backoff", "a function");
  }
  if (isSet(methods) && !Array.isArray(methods)) {
    add("retry.methods", "an array of methods");
  }
  if (isSet(statusCodes) && !Array.isArray(statusCodes)) {
    add("retry.statusCodes", "an array of status codes");
  }
}

function isTimeout(value: unknown): boolean {
  return value === Infinity ||
    (typeof value === "number" && value >= 1 && value <= MAX_TIMEOUT);
}

function isCount(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** True unless `value` is `undefined` or `null`, which mean "none" in options. */
export function isSet<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}
