/**
 * JSON:API 1.1 types the public API shows (https://jsonapi.org/format/1.1/).
 *
 * @module
 */

/**
 * A JSON:API `meta` object: free-form.
 * @internal
 */
export type Meta = Record<string, unknown>;

/**
 * A link: a URL string, a link object, or `null`.
 * @internal
 */
export type Link = string | LinkObject | null;

/**
 * A JSON:API link object.
 * @internal
 */
export interface LinkObject {
  href: string;
  rel?: string;
  describedby?: Link;
  title?: string;
  type?: string;
  hreflang?: string | string[];
  meta?: Meta;
}

/**
 * A JSON:API error object (JSON:API 1.1 §error objects), plus `field`.
 *
 * @example Showing server messages next to form inputs
 * ```ts
 * import type { JsonApiError } from "@grab/grab";
 * function messagesByField(errors: JsonApiError[]): Map<string, string> {
 *   const out = new Map<string, string>();
 *   for (const e of errors) {
 *     if (e.field) out.set(e.field, e.detail ?? e.title ?? "");
 *   }
 *   return out;
 * }
 * ```
 */
export interface JsonApiError {
  /** A unique identifier for this occurrence of the problem. */
  id?: string;
  /** `about`: more about this occurrence; `type`: the type of problem. */
  links?: { about?: Link; type?: Link };
  /** The HTTP status code, as a string. */
  status?: string;
  /** An application-specific error code. */
  code?: string;
  /** A short summary of the problem type. */
  title?: string;
  /** An explanation specific to this occurrence. */
  detail?: string;
  /** What caused the error: a JSON pointer into the request document, a query parameter, or a header. */
  source?: { pointer?: string; parameter?: string; header?: string };
  /** Non-standard meta information. */
  meta?: Meta;
  /**
   * The caller-side name of the attribute or relationship that
   * `source.pointer` points at: `/data/attributes/first_name` with
   * `casing: "camelCase"` gives `"firstName"`.
   */
  field?: string;
}
