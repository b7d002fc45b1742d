/**
 * The shapes a grab resolves to.
 *
 * @module
 */

import type { GrabError, GrabTransportError } from "./errors.ts";

/**
 * Meta of a 2xx response. `meta` and `links` are the JSON:API document's
 * top-level members, present only when the document has them.
 *
 * @example
 * ```ts
 * import type { SuccessMeta } from "@grab/grab";
 * const total = (meta: SuccessMeta) => meta.meta?.["total"];
 * ```
 */
export interface SuccessMeta {
  /** The HTTP status, 200 to 299. */
  statusCode: number;
  /** The response headers. */
  headers: Headers;
  /** JSON:API document `meta`. */
  meta?: Record<string, unknown>;
  /** JSON:API document `links`. */
  links?: Record<string, unknown>;
  /**
   * JSON:API document `jsonapi`: the server's implementation, as sent (its
   * `version`, the `ext` and `profile` it applied, its `meta`).
   */
  jsonapi?: Record<string, unknown>;
}

/**
 * Meta of an HTTP error: always the frozen empty object. The status and
 * headers are on the {@linkcode GrabError}.
 *
 * @example
 * ```ts
 * import type { HttpErrorMeta } from "@grab/grab";
 * const meta: HttpErrorMeta = {};
 * ```
 */
export type HttpErrorMeta = Record<string, never>;

/**
 * Meta of a transport error: no status was received.
 *
 * @example
 * ```ts
 * import type { TransportMeta } from "@grab/grab";
 * const meta: TransportMeta = { statusCode: 0 };
 * ```
 */
export interface TransportMeta {
  /** Always 0. */
  statusCode: 0;
}

/**
 * `[data, error, meta]`: success, HTTP error, or transport error. Narrow it
 * by checking `error`.
 *
 * @typeParam Data The parsed body of a success.
 *
 * @example Narrowing
 * ```ts
 * import createGrab from "@grab/grab";
 * const grab = createGrab("https://api.example.com");
 * const [user, error] = await grab<{ name: string }>("GET /users/1");
 * if (error) throw error;
 * console.log(user.name);
 * ```
 */
export type GrabResult<Data> =
  | [data: Data, error: null, meta: SuccessMeta]
  | [data: null, error: GrabError, meta: HttpErrorMeta]
  | [data: null, error: GrabTransportError, meta: TransportMeta];

/**
 * What {@linkcode Call.send} resolves to: a response (any status), with its
 * body read, or a transport failure.
 *
 * For a 2xx response, `body` is what `responseType` reads (`Body`): the
 * parsed JSON by default, text, bytes, a blob, or an opened stream. For any
 * other status it is the error body as JSON, or its text when it is not
 * JSON, whatever the response type. `body` is `null` when `empty` (204, 205,
 * HEAD, or no bytes in JSON). Besides the fields every outcome has, a
 * response carries `statusText`, its `url` and the `method` of the request
 * that was sent.
 *
 * @typeParam Body The body of a 2xx response.
 *
 * @example
 * ```ts
 * import { Call, type SendOutcome } from "@grab/grab";
 * const outcome: SendOutcome = await new Call("GET https://api.example.com/health").send({});
 * if (outcome.ok) console.log(outcome.status, outcome.body);
 * ```
 */
export type SendOutcome<Body = unknown> =
  | {
    ok: true;
    /**
     * The method of the request sent: the endpoint's, or the one a
     * `beforeRequest` hook sent instead.
     */
    method: string;
    status: number;
    statusText: string;
    /** The response's URL (after redirects), or the request's. */
    url: string;
    headers: Headers;
    body: Body;
    /**
     * True when `body` holds nothing of the response's: a 204 or 205, a
     * HEAD request, an empty JSON body, or a non-2xx body that could not be
     * read (then `bodyError` says why).
     */
    empty: boolean;
    /**
     * Why the body of a non-2xx response is `null` when it could not be
     * read (over `maxBodyBytes`, broken off, out of time): the `cause` of
     * its `GrabError`.
     */
    bodyError?: GrabTransportError;
  }
  | { ok: false; error: GrabTransportError };

/**
 * The body of a response outside 2xx in a {@linkcode SendOutcome}, whatever
 * the response type: its JSON value, its text when it is not JSON, or
 * `null`.
 * @internal
 */
export type ErrorBody = string | number | boolean | object | null;

/** The frozen `{}` of every HTTP error. */
export const HTTP_ERROR_META: HttpErrorMeta = Object.freeze({});

/** The meta of every transport failure: `{ statusCode: 0 }`, frozen. */
export const TRANSPORT_META: TransportMeta = Object.freeze({ statusCode: 0 });
