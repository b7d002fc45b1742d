/**
 * The JSON:API media type and its `ext` and `profile` parameters.
 *
 * @module
 */

/** The JSON:API media type. */
export const JSONAPI_MEDIA_TYPE = "application/vnd.api+json";

/**
 * JSON:API options of the `jsonApi` option: media type parameters and
 * whether the library sets the `Accept` and `Content-Type` headers.
 * @internal
 *
 * @example Asking for the Atomic Operations extension and a profile
 * ```ts
 * const jsonApi: JsonApiOptions = {
 *   ext: ["https://jsonapi.org/ext/atomic"],
 *   profile: ["https://example.com/profiles/timestamps"],
 * };
 * // Accept: application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"; profile="https://example.com/profiles/timestamps"
 * ```
 */
export interface JsonApiOptions {
  /**
   * Extension URIs, sent as the media type's `ext` parameter (JSON:API 1.1).
   *
   * @default {[]}
   *
   * @example Using the Atomic Operations extension
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com/v1", {
   *   format: "json-api",
   *   jsonApi: { ext: ["https://jsonapi.org/ext/atomic"] },
   * });
   * ```
   */
  ext?: readonly string[] | undefined;
  /**
   * Profile URIs, sent as the media type's `profile` parameter (JSON:API 1.1).
   *
   * @default {[]}
   *
   * @example Applying a timestamps profile
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com/v1", {
   *   format: "json-api",
   *   jsonApi: { profile: ["https://example.com/profiles/timestamps"] },
   * });
   * ```
   */
  profile?: readonly string[] | undefined;
  /**
   * Whether to set `Accept` (every request) and `Content-Type` (requests
   * with a body) to the JSON:API media type. `false` leaves both headers to
   * the caller. Headers the caller sets always win.
   *
   * @default {true}
   *
   * @example Setting the media type headers yourself
   * ```ts
   * import createGrab from "@grab/grab";
   * const grab = createGrab("https://api.example.com/v1", {
   *   format: "json-api",
   *   jsonApi: { headers: false },
   *   headers: { accept: "application/vnd.api+json, application/json" },
   * });
   * ```
   */
  headers?: boolean | undefined;
}

/** Options of {@linkcode mediaType}. */
export interface MediaTypeOptions {
  /** Extension URIs for the `ext` parameter. */
  ext?: readonly string[] | undefined;
  /** Profile URIs for the `profile` parameter. */
  profile?: readonly string[] | undefined;
}

/**
 * The JSON:API media type with its `ext` and `profile` parameters, each a
 * quoted, space-separated list of URIs (JSON:API 1.1); an empty list is left
 * out.
 *
 * @example
 * ```ts ignore
 * mediaType(); // "application/vnd.api+json"
 * mediaType({ ext: ["https://a.test/x", "https://b.test/y"], profile: ["https://c.test/p"] });
 * // 'application/vnd.api+json; ext="https://a.test/x https://b.test/y"; profile="https://c.test/p"'
 * ```
 */
export function mediaType(options: MediaTypeOptions = {}): string {
  let out = JSONAPI_MEDIA_TYPE;
  for (const key of ["ext", "profile"] as const) {
    const uris = options[key];
    if (uris !== undefined && uris.length > 0) {
      out += `; ${key}="${uris.join(" ").replace(/["\\]/g, "\\$&")}"`;
    }
  }
  return out;
}
