/**
 * Reading JSON:API error documents (JSON:API 1.0 and 1.1).
 *
 * @module
 */

import { ownMembersOnly } from "../object.ts";
import { type Casing, convertKey } from "../casing.ts";
import { isPlainObject, unescapeToken } from "../object.ts";
import { redactUrls } from "../redact.ts";
import type { JsonApiError, Link } from "./types.ts";

/** Options of {@linkcode parseErrorDocument}. */
export interface ParseErrorDocumentOptions {
  /**
   * The caller's key casing, for `field`.
   *
   * @default {"none"}
   */
  casing?: Casing;
  /**
   * True when the response's media type is JSON:API's: the body is then
   * taken for an error document by its shape alone, members JSON:API does
   * not define and all (they are left out). Otherwise it must have only the
   * members JSON:API allows, so that another API's error body (GitHub's,
   * GraphQL's) is not read as one.
   *
   * @default {false}
   */
  declared?: boolean;
}

const FIELD = /^\/data\/(?:attributes|relationships)\/([^/]+)/;

/**
 * Returns the errors of a JSON:API error document: a plain object without
 * `data` whose `errors` is a non-empty array of plain objects. Unless the
 * response said it is JSON:API (`options.declared`), the document and each
 * error object must also have only the members JSON:API allows, so that
 * another API's error body is not taken for one. Anything else gives
 * `undefined`.
 *
 * Only members of the right type are copied, so no garbage flows through:
 * `id` and `status` as strings (a finite number is turned into one, as some
 * servers send them); `code`, `title`, `detail` strings; `links.about` and
 * `links.type` (1.1) as a string, a link object with a string `href`, or
 * `null`; `source.pointer`, `source.parameter` and `source.header` (1.1)
 * strings; `meta` a plain object. `field` is the attribute or relationship
 * name that `source.pointer` points at, JSON-pointer unescaped and converted
 * to `casing`.
 *
 * @example
 * ```ts ignore
 * parseErrorDocument({
 *   errors: [{
 *     status: 422,
 *     title: "Invalid Attribute",
 *     detail: "First name must contain at least two characters.",
 *     source: { pointer: "/data/attributes/first_name" },
 *     extra: "dropped",
 *   }],
 * }, { casing: "camelCase" });
 * // [{
 * //   status: "422",
 * //   title: "Invalid Attribute",
 * //   detail: "First name must contain at least two characters.",
 * //   source: { pointer: "/data/attributes/first_name" },
 * //   field: "firstName",
 * // }]
 * ```
 */
export function parseErrorDocument(
  given: unknown,
  options: ParseErrorDocumentOptions = {},
): JsonApiError[] | undefined {
  const body = ownMembersOnly(given);
  if (!isPlainObject(body) || Object.hasOwn(body, "data")) return undefined;
  const strict = options.declared !== true;
  if (strict && !Object.keys(body).every(isTopLevel)) return undefined;
  const errors = body.errors;
  if (
    !Array.isArray(errors) || errors.length === 0 ||
    !errors.every(strict ? isErrorObject : isPlainObject)
  ) return undefined;
  return errors.map((error: Record<string, unknown>) =>
    parseError(error, options.casing ?? "none")
  );
}

/**
 * The members an error document may have at its top (JSON:API 1.1,
 * "Top Level"): `data` never, an @-member or an extension's
 * (`namespace:member`) always. Another API's error body (a `message`
 * beside its `errors`, as GitHub and GraphQL send) is not one.
 */
function isTopLevel(key: string): boolean {
  return TOP_LEVEL.has(key) || key.startsWith("@") || key.includes(":");
}

const TOP_LEVEL = new Set(["errors", "meta", "jsonapi", "links"]);

/**
 * An error object: a plain object with only members JSON:API defines for
 * one (or @-members, or an extension's), as the specification allows no
 * other. Another API's error (a `message`, a `resource`) is not one.
 */
function isErrorObject(error: unknown): error is Record<string, unknown> {
  return isPlainObject(error) && Object.keys(error).every(isErrorMember);
}

function isErrorMember(key: string): boolean {
  return ERROR_MEMBERS.has(key) || key.startsWith("@") || key.includes(":");
}

const ERROR_MEMBERS = new Set([
  "id",
  "links",
  "status",
  "code",
  "title",
  "detail",
  "source",
  "meta",
]);

function parseError(
  error: Record<string, unknown>,
  casing: Casing,
): JsonApiError {
  const out: JsonApiError = {};
  for (const key of ["id", "status"] as const) {
    const value = error[key];
    if (typeof value === "string") out[key] = value;
    else if (typeof value === "number" && Number.isFinite(value)) {
      out[key] = String(value);
    }
  }
  for (const key of ["code", "title", "detail"] as const) {
    const value = error[key];
    if (typeof value === "string") out[key] = value;
  }
  const links = error.links;
  if (isPlainObject(links)) {
    const kept: { about?: Link; type?: Link } = {};
    for (const key of ["about", "type"] as const) {
      const link = links[key];
      if (
        link === null || typeof link === "string" ||
        (isPlainObject(link) && typeof link.href === "string")
      ) kept[key] = link as Link;
    }
    if (Object.keys(kept).length > 0) out.links = kept;
  }
  const source = error.source;
  if (isPlainObject(source)) {
    const kept: NonNullable<JsonApiError["source"]> = {};
    for (const key of ["pointer", "parameter", "header"] as const) {
      const value = source[key];
      if (typeof value === "string") kept[key] = value;
    }
    if (Object.keys(kept).length > 0) out.source = kept;
    const name = kept.pointer?.match(FIELD)?.[1];
    if (name !== undefined) {
      out.field = convertKey(unescapeToken(name), casing);
    }
  }
  if (isPlainObject(error.meta)) out.meta = error.meta;
  return out;
}

/**
 * The message of a JSON:API error response: each error's `detail`, or its
 * `title` when `detail` is missing or empty, with every URL's query and
 * userinfo taken out, joined with `"; "`. Errors with neither are skipped;
 * `undefined` when no error has text. Once the message is longer than `max`
 * characters the later errors are left out, as a message quotes no more
 * (a server may send a hundred thousand of them).
 *
 * @example
 * ```ts ignore
 * errorDocumentMessage([{ title: "Forbidden" }, { detail: "Name is taken" }, {}]);
 * // "Forbidden; Name is taken"
 * ```
 */
export function errorDocumentMessage(
  errors: JsonApiError[],
  max = Infinity,
): string | undefined {
  const texts: string[] = [];
  let length = -2;
  for (const error of errors) {
    const text = error.detail || error.title;
    if (!text) continue;
    const shown = redactUrls(text);
    texts.push(shown);
    length += shown.length + 2;
    if (length > max) break;
  }
  return texts.length > 0 ? texts.join("; ") : undefined;
}
