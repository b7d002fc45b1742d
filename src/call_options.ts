/**
 * The options of one grab ({@linkcode GrabCallOptions}) and of one exchange
 * ({@linkcode SendOptions}), each field documented once, on its first type.
 *
 * @module
 */

import type { GrabOptions } from "./options.ts";
import type { QueryInit } from "./query.ts";
import type { Progress } from "./response_type.ts";
import type { StandardSchema } from "./schema.ts";

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
  body?: Body | undefined;
  /**
   * Headers of this call, merged over the factory's (call wins). In a
   * record, a name set to `undefined` removes the factory's header of that
   * name from this request.
   * @default {undefined}
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
   *
   * @example A request without the factory's token
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com", {
   *   headers: { authorization: "Bearer secret" },
   * });
   * const [status] = await grab("GET /status", {
   *   headers: { authorization: undefined },
   * });
   * ```
   */
  headers?:
    // Not `HeadersInit`: only the DOM library declares it, and a Node project
    // compiles without it (`@types/node` declares `RequestInit`).
    | NonNullable<RequestInit["headers"]>
    | Record<string, string | undefined>
    | undefined;
  /**
   * Query parameters, after any in the target: an object of its own keys or
   * `URLSearchParams`. A name the target's query (or the base address's)
   * has too is a `GrabValidationError`. Nested objects use brackets
   * (`page[size]=10`); arrays are comma-joined in JSON:API mode and repeated
   * keys in JSON mode; `undefined` and `null` are skipped.
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
  query?: QueryInit | undefined;
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
  params?: Record<string, string | number> | undefined;
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
  signal?: AbortSignal | undefined;
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
  schema?: StandardSchema | undefined;
  /**
   * Called as response body bytes arrive, with the bytes read so far and
   * the total from `Content-Length` (when the body is not compressed). It
   * never changes the result; one that throws rejects the grab.
   * @default {undefined}
   *
   * @example A download with a progress bar
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://files.example.com");
   * const [file] = await grab("GET /video.mp4", {
   *   responseType: "blob",
   *   onDownloadProgress: ({ loaded, total }) => console.log(loaded, "of", total),
   * });
   * ```
   */
  onDownloadProgress?: ((progress: Progress) => void) | undefined;
  /**
   * Called as the request body is sent, where the runtime can stream a
   * request body (Deno, Node, Bun, workerd; it is then sent chunked, without
   * `Content-Length`); in browsers, and with a `beforeRequest` hook (which
   * may replace the body), once at 0 before sending and once at the end when
   * the response head arrives.
   * @default {undefined}
   *
   * @example An upload with progress
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://files.example.com");
   * const photo = new Blob([new Uint8Array(1024)], { type: "image/png" });
   * const [saved] = await grab("PUT /photos/:name", {
   *   params: { name: "cat.png" },
   *   body: photo,
   *   onUploadProgress: ({ loaded, total }) => console.log(loaded, "of", total),
   * });
   * ```
   */
  onUploadProgress?: ((progress: Progress) => void) | undefined;
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
