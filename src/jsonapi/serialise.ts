/**
 * Turning a write body into a JSON:API request document.
 *
 * @module
 */

import {
  convertKey,
  convertKeys,
  isIdentityKey,
  isPlainObject,
  ownValue,
  setOwn,
} from "./kit.ts";
import type { Casing } from "../casing.ts";
import { isExtraMember, isRelationshipObject } from "./members.ts";

type Item = Record<string, unknown>;

/** The three write body shapes of the contract. */
export type BodyShape = "flat" | "wire" | "document";

const WIRE_MEMBERS = new Set(["type", "id", "lid", "meta", "links"]);

/**
 * The shape of a plain-object write body: `"document"` when it has no
 * `type` but `data`, or is a document of an extension (`atomic:operations`);
 * `"wire"` when `attributes` or `relationships` is an object and every other
 * member is `type`, `id`, `lid`, `meta`, `links`, an @-member or an
 * extension's (`version:id`), as a resource object may hold (JSON:API 1.1);
 * otherwise `"flat"`.
 */
export function shapeOf(body: Item): BodyShape {
  // The body's own members are what is sent: a key on Object.prototype
  // (`type`, `id`, `data`) is none of them.
  if (
    ownValue(body, "type") === undefined &&
    (Object.hasOwn(body, "data") || isExtensionDocument(Object.keys(body)))
  ) return "document";
  let wire = false;
  for (const key of Object.keys(body)) {
    if (key === "attributes" || key === "relationships") {
      wire ||= isPlainObject(body[key]);
    } else if (!WIRE_MEMBERS.has(key) && !isExtraMember(key)) return "flat";
  }
  return wire ? "wire" : "flat";
}

const DOCUMENT_MEMBERS = new Set(["meta", "links", "jsonapi", "included"]);

/**
 * The members of a document of an extension: at least one it defines
 * (`namespace:name`, JSON:API 1.1), and only those and document members. A
 * flat resource that lacks its `type` stays one, to be refused for it.
 */
function isExtensionDocument(names: string[]): boolean {
  return names.some((name) => name.includes(":")) &&
    names.every((name) => name.includes(":") || DOCUMENT_MEMBERS.has(name));
}

/** A plain object with `type` and `id` or `lid`: a flat relationship target. */
function isIdentifierLike(value: unknown): value is Item {
  return isPlainObject(value) && ownValue(value, "type") !== undefined &&
    (ownValue(value, "id") !== undefined ||
      ownValue(value, "lid") !== undefined);
}

/**
 * A flat field value taken for a relationship: `{ type, id }` or a non-empty
 * array of them. A hole in the array is not one (`every` would skip it, and
 * JSON write it as a `null` in the linkage).
 */
export function isFlatRelationship(value: unknown): boolean {
  if (!Array.isArray(value)) return isIdentifierLike(value);
  if (value.length === 0) return false;
  for (let i = 0; i < value.length; i++) {
    if (!isIdentifierLike(value[i])) return false;
  }
  return true;
}

/** Options of {@linkcode serialise}. */
export interface SerialiseOptions {
  /** The caller's key casing. */
  casing: Casing;
  /** The server's key casing, used when `casing` is not `"none"`. */
  wireCasing: Casing;
}

/**
 * Returns the JSON:API request document for a write body that passed
 * `validateWrite`. Never mutates the input.
 *
 * - A flat resource: plain values become attributes; a `{ type, id }` (or
 *   `lid`) object, or a non-empty array of them, becomes a relationship,
 *   reduced to `{ type, id }`. Empty `attributes`/`relationships` are left
 *   out, `undefined` fields are skipped, and a number `id` becomes a string.
 * - A wire-shape resource is wrapped in `{ data }`; a relationship written as
 *   bare linkage (`null`, an identifier, an array) becomes `{ data: linkage }`
 *   and a `{ data, links, meta }` object is sent as is.
 * - A whole document is sent as is, but for its resources (in `data` and
 *   `included`), which are wire-shape ones.
 *
 * When `casing` is not `"none"`, attribute and relationship names and the
 * keys inside attribute values are converted to `wireCasing`. `type` values,
 * `meta` and `links` are never converted.
 *
 * @example Flat resource, camelCase caller, snake_case server
 * ```ts ignore
 * serialise({
 *   type: "blog-posts",
 *   id: 7,
 *   title: "Hi",
 *   coverImage: { altText: "A cat" },
 *   author: { type: "people", id: "9", name: "Ada" },
 *   tags: [{ type: "tags", id: "1" }],
 * }, { casing: "camelCase", wireCasing: "snake_case" });
 * // { data: {
 * //   type: "blog-posts",
 * //   id: "7",
 * //   attributes: { title: "Hi", cover_image: { alt_text: "A cat" } },
 * //   relationships: {
 * //     author: { data: { type: "people", id: "9" } },
 * //     tags: { data: [{ type: "tags", id: "1" }] },
 * //   },
 * // } }
 * ```
 *
 * @example Wire shape, clearing relationships
 * ```ts ignore
 * serialise({
 *   type: "articles",
 *   id: "1",
 *   relationships: { author: null, tags: [], editor: { data: null, meta: { by: "x" } } },
 * }, { casing: "none", wireCasing: "snake_case" });
 * // { data: {
 * //   type: "articles",
 * //   id: "1",
 * //   relationships: {
 * //     author: { data: null },
 * //     tags: { data: [] },
 * //     editor: { data: null, meta: { by: "x" } },
 * //   },
 * // } }
 * ```
 *
 * @example Whole document (relationship endpoint)
 * ```ts ignore
 * serialise({ data: [{ type: "tags", id: 2 }] }, { casing: "none", wireCasing: "snake_case" });
 * // { data: [{ type: "tags", id: "2" }] }
 * ```
 */
export function serialise(
  body: unknown,
  options: SerialiseOptions,
): Record<string, unknown> {
  const to = options.casing === "none" ? "none" : options.wireCasing;
  const b = body as Item;
  const shape = shapeOf(b);
  if (shape === "wire") return { data: wireResource(b, to) };
  if (shape === "document") {
    const out = { ...b };
    const data = ownValue(b, "data");
    if (Array.isArray(data)) {
      out.data = data.map((item: Item) =>
        ownValue(item, "attributes") !== undefined ||
          ownValue(item, "relationships") !== undefined
          ? wireResource(item, to)
          : identifier(item)
      );
    } else if (isPlainObject(data)) out.data = wireResource(data, to);
    const included = ownValue(b, "included");
    if (Array.isArray(included)) {
      out.included = included.map((item: Item) => wireResource(item, to));
    }
    return out;
  }
  const data = reduce(b);
  const attributes: Item = {};
  const relationships: Item = {};
  for (const key of Object.keys(b)) {
    const value = b[key];
    if (isIdentityKey(key) || value === undefined) continue;
    // An @-member or an extension's member is the resource's own, as sent.
    if (isExtraMember(key)) setOwn(data, key, value);
    else if (isFlatRelationship(value)) {
      setOwn(relationships, convertKey(key, to), {
        data: Array.isArray(value) ? value.map(reduce) : reduce(value as Item),
      });
    } else setOwn(attributes, convertKey(key, to), convertKeys(value, to));
  }
  if (Object.keys(attributes).length > 0) data.attributes = attributes;
  if (Object.keys(relationships).length > 0) {
    data.relationships = relationships;
  }
  return { data };
}

// `{ type, id?, lid? }` with a number id as a string.
function reduce(item: Item): Item {
  const out: Item = { type: ownValue(item, "type") };
  if (ownValue(item, "id") !== undefined) out.id = String(item.id);
  if (ownValue(item, "lid") !== undefined) out.lid = ownValue(item, "lid");
  return out;
}

function identifier(item: Item): Item {
  return typeof ownValue(item, "id") === "number"
    ? { ...item, id: String(item.id) }
    : item;
}

function linkage(value: unknown): unknown {
  return Array.isArray(value)
    ? value.map(identifier)
    : isPlainObject(value)
    ? identifier(value)
    : value;
}

function wireResource(resource: Item, to: Casing): Item {
  const out: Item = { ...resource };
  if (typeof ownValue(resource, "id") === "number") {
    out.id = String(resource.id);
  }
  const attributes = ownValue(resource, "attributes");
  if (isPlainObject(attributes)) {
    out.attributes = wireAttributes(attributes, to);
  }
  const relationships = ownValue(resource, "relationships");
  if (isPlainObject(relationships)) {
    const converted: Item = {};
    for (const key of Object.keys(relationships)) {
      const value = relationships[key];
      if (value === undefined) continue;
      // An @-member or an extension's is no relationship: sent as written.
      if (isExtraMember(key)) {
        setOwn(converted, key, value);
        continue;
      }
      setOwn(
        converted,
        convertKey(key, to),
        isRelationshipObject(value)
          ? ownValue(value, "data") === undefined
            ? value
            : { ...value, data: linkage(value.data) }
          : { data: linkage(value) },
      );
    }
    out.relationships = converted;
  }
  return out;
}

/**
 * The attributes with names and the keys in values converted, but for an
 * @-member's or an extension's, which is no attribute: sent as written.
 */
function wireAttributes(attributes: Item, to: Casing): unknown {
  if (!Object.keys(attributes).some(isExtraMember)) {
    return convertKeys(attributes, to);
  }
  const out: Item = {};
  for (const key of Object.keys(attributes)) {
    const value = attributes[key];
    if (isExtraMember(key)) setOwn(out, key, value);
    else if (value !== undefined) {
      setOwn(out, convertKey(key, to), convertKeys(value, to));
    }
  }
  return out;
}
