/**
 * The options of a factory, and {@linkcode DEFAULTS}, the only place that
 * knows the defaults of every option.
 *
 * @module
 */

import type { Casing } from "./casing.ts";
import type { Hooks } from "./hooks.ts";
import type { JsonApiOptions } from "./jsonapi/media_type.ts";
import type { Format } from "./query.ts";
import type { ResponseType } from "./response_type.ts";
import type { RetryOptions } from "./retry.ts";

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
   * called once per grab, for tokens; its retries carry the same headers, so
   * an idempotency key stays the key of the one request it names. With a
   * base address they are sent only to its origin and to `trustedOrigins`.
   * @default {undefined}
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
  headers?:
    // Not `HeadersInit` (nor `RequestRedirect` and `RequestCredentials` for
    // the options below): only the DOM library declares them, and a Node
    // project compiles without it (`@types/node` declares `RequestInit`).
    | NonNullable<RequestInit["headers"]>
    | (() =>
      | NonNullable<RequestInit["headers"]>
      | Promise<NonNullable<RequestInit["headers"]>>)
    | undefined;
  /**
   * Further origins (`"https://cdn.example.com"`) that receive the factory's
   * headers, hooks and `credentials`, as its own origin does.
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
  trustedOrigins?: readonly string[] | undefined;
  /**
   * The `fetch` to use.
   * @default {globalThis.fetch}
   *
   * @example Logging every request
   * ```ts
   * import createGrab from "@grab/grab";
   * const logged: typeof fetch = (input, init) => {
   *   // A string and an init, or a Request (a stream body, or hooks).
   *   const request = new Request(input, init);
   *   console.debug(request.method, request.url);
   *   return fetch(request);
   * };
   * const grab = createGrab("https://api.example.com", { fetch: logged });
   * ```
   */
  fetch?:
    | ((input: Request | string, init?: RequestInit) => Promise<Response>)
    | undefined;

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
  format?: Format | undefined;
  /**
   * The caller-side key casing. Response keys are converted to it and request
   * keys from it to `wireCasing`. Keys only, never values. Two keys of one
   * object that become one are refused, never merged: a `GrabValidationError`
   * in a request body, kind `"parse"` in a response.
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
  casing?: Casing | undefined;
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
  wireCasing?: Casing | undefined;
  /**
   * Milliseconds for the whole grab, retries' waits included; `false` for
   * none. A timeout gives a transport error of kind `"timeout"`. For the
   * live response types (`"stream"`, `"sse"`, `"ndjson"`) it ends when the
   * response head arrives: the body is then bounded by `attemptTimeout` or
   * your `signal`, not by this.
   * @default {30000}
   *
   * @example A 5 s limit, lifted for one slow report
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com", { timeout: 5_000 });
   * const [report] = await grab("GET /reports/:id", { params: { id: 1 }, timeout: false });
   * ```
   */
  timeout?: number | false | undefined;
  /**
   * Milliseconds for one attempt: from sending to the end of the body, or to
   * the head for the stream types, whose body it still ends. An attempt
   * that passes it is retried as a network failure is; when no retry
   * follows, the grab fails with kind `"timeout"`. `timeout` still bounds
   * the whole grab. `false` for none.
   * @default {false}
   *
   * @example Giving up on a stuck attempt after 2 s, three times at most
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com", {
   *   attemptTimeout: 2_000,
   *   timeout: 10_000,
   *   retry: 2,
   * });
   * ```
   */
  attemptTimeout?: number | false | undefined;
  /**
   * Milliseconds a live body (`"stream"`, `"sse"`, `"ndjson"`) may keep
   * each of your reads waiting for the server: a connection that stalls
   * ends the body with a transport error of kind `"timeout"`, while a
   * stream that keeps sending (a heartbeat comment is enough) lives on. The
   * time you take between reads does not count. `timeout` stops at the
   * head of a live body, so without this, `attemptTimeout` or your
   * `signal`, a stalled stream waits as long as the connection stays up.
   * A whole body is bounded by `timeout` instead: a grab of another
   * response type does not take it. `false` for none.
   * @default {false}
   *
   * @example Notifications that end when the server's heartbeat stops
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com");
   * const [events] = await grab("GET /notifications", {
   *   responseType: "sse",
   *   idleTimeout: 45_000, // the server sends a comment every 15 s
   * });
   * ```
   */
  idleTimeout?: number | false | undefined;
  /**
   * What `data` is on success: `"json"`, `"text"`, `"bytes"`, `"blob"`,
   * `"stream"`, `"sse"` or `"ndjson"`; the type of `data` follows it. Error
   * bodies are read as before.
   * @default {"json"}
   *
   * @example Downloading a file as bytes
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://files.example.com", { responseType: "bytes" });
   * const [bytes, error] = await grab("GET /archive.zip");
   * if (!error) console.log(bytes?.byteLength); // null after a 204
   * ```
   */
  responseType?: ResponseType | undefined;
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
  retry?: number | RetryOptions | undefined;
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
  hooks?: Hooks | undefined;
  /**
   * Response bodies over this many bytes are cancelled while streaming and
   * give a transport error of kind `"too-large"`. `Infinity` disables. With
   * `"sse"` and `"ndjson"` it bounds each event or line; a `"stream"` body,
   * which grab never holds, it does not bound: count what you read.
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
  maxBodyBytes?: number | undefined;
  /**
   * JSON:API media type parameters (`ext`, `profile`), and `headers: false`
   * to stop the library setting `Accept` and `Content-Type`.
   * @default { headers: true }
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
  jsonApi?: JsonApiOptions | undefined;
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
  redirect?: "follow" | "error" | "manual" | undefined;
  /**
   * Whether browsers send cookies and HTTP authentication; a factory's goes
   * only where its headers go.
   * @default {"same-origin"}
   *
   * @example Sending cookies to an API on another origin
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com", { credentials: "include" });
   * ```
   */
  credentials?: "omit" | "same-origin" | "include" | undefined;
}
