/**
 * Denormalisation of JSON:API success documents into flat, linked objects,
 * and {@linkcode jsonApiOf}, which gives back the `links` and `meta` that the
 * flat objects leave out.
 *
 * @module
 */

import { isPlainObject, KeyClash, ownMembersOnly } from "./kit.ts";
import type { Casing } from "../casing.ts";
import { FIELDS_CLASHED, locateClash } from "./field_clash.ts";
import {
  indexResources,
  linkResources,
  pointerOf,
  primaryData,
  startPass,
  wireAt,
} from "./passes.ts";
import type { Wire } from "./resource_index.ts";

/** Options for {@linkcode denormalise}. */
export interface DenormaliseOptions {
  /** The caller-side key casing of the flat objects. Defaults to `"none"`. */
  casing?: Casing;
}

/**
 * The outcome of {@linkcode denormalise}: the flat data and the document's
 * own `meta`, `links` and `jsonapi` (each only when present), or why the
 * input is not a JSON:API success document.
 */
export type DenormaliseResult =
  | {
    ok: true;
    data: unknown;
    meta?: Record<string, unknown>;
    links?: Record<string, unknown>;
    jsonapi?: Record<string, unknown>;
  }
  | {
    ok: false;
    reason: string;
    /** True when the reason is two keys that the casing makes one. */
    clash?: boolean;
  };

/**
 * Turns a JSON:API success document into flat data.
 *
 * A resource becomes `{ type, id, lid?, ...attributes, ...relationships }`.
 * A relationship with `data` becomes the related flat resource (found in
 * `included` or in primary data), or an identifier-only `{ type, id }` object
 * when the document does not hold it; `null` and `[]` stay as they are; a
 * relationship without `data` is left out. The same `type` + `id` (or `lid`)
 * is one object everywhere, so cycles share identity; when a resource appears
 * twice, the first occurrence wins and `data` keeps its length, but a first
 * occurrence with no `attributes` and no `relationships` (a relationship
 * endpoint's linkage, asked with `include`) takes the next one's fields.
 * Attributes named `type`, `id` or `lid` are skipped; one that the casing
 * names so (`Id` in camelCase) is a clash. `__proto__` stays an own data
 * property.
 *
 * With a casing other than `"none"`, attribute and relationship names and the
 * keys nested in attribute values are converted; `type` values, ids, `meta`
 * and `links` never are. With `"none"`, attribute values are the document's
 * own (not copied).
 *
 * A document of an extension that has no `data` (Atomic Operations'
 * `{ "atomic:results": [...] }`) is given as sent: its members are the
 * extension's to define.
 *
 * Resource and relationship `links` and `meta` are reachable through
 * {@linkcode jsonApiOf}, as is the `meta` of a resource identifier that the
 * document does not include. Never throws, and never recurses, so any depth
 * of nesting is safe.
 *
 * @example To-one and to-many from `included`
 * ```ts ignore
 * denormalise({
 *   data: {
 *     type: "articles", id: "1", attributes: { title: "JSON:API" },
 *     relationships: {
 *       author: { data: { type: "people", id: "9" } },
 *       comments: { data: [{ type: "comments", id: "5" }] },
 *     },
 *   },
 *   included: [
 *     { type: "people", id: "9", attributes: { name: "Dan" } },
 *     { type: "comments", id: "5", attributes: { body: "First!" } },
 *   ],
 * });
 * // { ok: true, data: { type: "articles", id: "1", title: "JSON:API",
 * //   author: { type: "people", id: "9", name: "Dan" },
 * //   comments: [{ type: "comments", id: "5", body: "First!" }] } }
 * ```
 *
 * @example A related resource that is not included
 * ```ts ignore
 * denormalise({
 *   data: {
 *     type: "comments", id: "5",
 *     relationships: { author: { data: { type: "people", id: "2" } } },
 *   },
 * });
 * // { ok: true, data: { type: "comments", id: "5",
 * //   author: { type: "people", id: "2" } } }
 * ```
 *
 * @example Casing
 * ```ts ignore
 * denormalise(
 *   { data: { type: "blog-posts", id: "1", attributes: { first_line: "Hi" } } },
 *   { casing: "camelCase" },
 * );
 * // { ok: true, data: { type: "blog-posts", id: "1", firstLine: "Hi" } }
 * ```
 *
 * @example Not a success document
 * ```ts ignore
 * denormalise({ errors: [{ status: "404" }] });
 * // { ok: false, reason: "the document has an errors member" }
 * ```
 */
export function denormalise(
  document: unknown,
  options?: DenormaliseOptions,
): DenormaliseResult {
  try {
    return denormaliseDocument(
      ownMembersOnly(document),
      options?.casing ?? "none",
    );
  } catch {
    // Only a hostile object (a throwing getter or proxy) gets here: a parsed
    // JSON text never does.
    return fail("the document could not be read");
  }
}

// The top-level members of a success document, checked.
interface TopLevel {
  primary: unknown;
  meta: Wire | undefined;
  links: Wire | undefined;
  /** The server's implementation (version, ext, profile, meta). */
  jsonapi: Wire | undefined;
  included: unknown[] | undefined;
  /** True for a document of an extension: no `data`, a `namespace:member`. */
  extension: boolean;
}

// An extension's member name: its namespace, a colon, the rest (JSON:API
// 1.1, "Extension Members").
const EXTENSION_MEMBER = /^[A-Za-z0-9]+:/;

// A document of an extension without `data` (Atomic Operations'
// `atomic:results`): its members are the extension's to define, so the data
// is the document as sent, with its meta and links.
function extensionDocument(document: Wire, top: TopLevel): DenormaliseResult {
  return withMembers(document, top);
}

// The data with the document's own `meta`, `links` and `jsonapi`.
function withMembers(data: unknown, top: TopLevel): DenormaliseResult {
  const result: DenormaliseResult = { ok: true, data };
  if (top.meta !== undefined) result.meta = top.meta;
  if (top.links !== undefined) result.links = top.links;
  if (top.jsonapi !== undefined) result.jsonapi = top.jsonapi;
  return result;
}

function denormaliseDocument(
  document: unknown,
  casing: Casing,
): DenormaliseResult {
  const top = readTopLevel(document);
  if (typeof top === "string") return fail(top);
  if (top.extension) return extensionDocument(document as Wire, top);
  const pass = startPass(top.primary, top.included, casing);
  let reason: string | undefined;
  try {
    reason = indexResources(pass) ?? linkResources(pass);
  } catch (error) {
    // Two fields, or two keys of an attribute value's object, that became
    // one: found again to say which and where.
    if (error !== FIELDS_CLASHED && !(error instanceof KeyClash)) throw error;
    const clash = locateClash(
      pass,
      (i) => wireAt(pass, i) as Wire,
      (i) => pointerOf(pass, i),
    );
    if (clash === undefined) throw error;
    return { ok: false, reason: clash.message, clash: true };
  }
  if (reason !== undefined) return fail(reason);
  return withMembers(primaryData(pass), top);
}

// Reads each top-level member once, or says why the document is not a
// success document.
function readTopLevel(document: unknown): TopLevel | string {
  if (!isPlainObject(document)) return "the document is not an object";
  if (document.errors !== undefined) return "the document has an errors member";
  const primary = document.data;
  const meta = document.meta;
  const links = document.links;
  const extension = primary === undefined &&
    Object.keys(document).some((name) => EXTENSION_MEMBER.test(name));
  if (primary === undefined && meta === undefined && !extension) {
    return "the document has no data, meta or extension member";
  }
  if (meta !== undefined && !isPlainObject(meta)) {
    return "/meta is not an object";
  }
  if (links !== undefined && !isPlainObject(links)) {
    return "/links is not an object";
  }
  const included = document.included;
  if (included !== undefined && !Array.isArray(included)) {
    return "/included is not an array";
  }
  if (
    primary !== undefined && primary !== null && !Array.isArray(primary) &&
    !isPlainObject(primary)
  ) return "/data is not a resource object, an array or null";
  // Informational: one that is not an object is left out, not refused.
  const jsonapi = isPlainObject(document.jsonapi)
    ? document.jsonapi
    : undefined;
  return { primary, meta, links, jsonapi, included, extension };
}

function fail(reason: string): DenormaliseResult {
  return { ok: false, reason };
}
