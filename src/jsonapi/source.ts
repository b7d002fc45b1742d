/**
 * {@linkcode jsonApiOf}: the `links` and `meta` of a denormalised resource,
 * read from the wire resource that each flat object keeps a private link to.
 *
 * @module
 */

import { type Casing, convertKey } from "../casing.ts";
import { isIdentityKey, isPlainObject, setOwn } from "../object.ts";

/**
 * The JSON:API `links` and `meta` of a denormalised resource and of each of
 * its relationships, as returned by {@linkcode jsonApiOf}.
 * @internal
 */
export interface JsonApiInfo {
  /** The resource's `links`, as sent. */
  links?: Record<string, unknown>;
  /** The resource's `meta` (or a resource identifier's `meta`), as sent. */
  meta?: Record<string, unknown>;
  /**
   * One entry per relationship, data-less ones included, named in the
   * caller's casing; each holds the relationship's `links` and `meta`, as
   * sent.
   */
  relationships: Record<
    string,
    { links?: Record<string, unknown>; meta?: Record<string, unknown> }
  >;
}

type Wire = Record<string, unknown>;

// Returns the object it is given as `this`, so that a subclass can add its
// private fields to any object.
class Base {
  constructor(target: object) {
    return target;
  }
}

/**
 * A flat object's link to its wire source, from which jsonApiOf builds the
 * info on first use: `new Source(flat, wire, casing)` adds the link to
 * `flat`. Private fields work like a WeakMap keyed by the object (nothing
 * outside this class can see them: no own property, no symbol, not in
 * Object.keys, Reflect.ownKeys, JSON.stringify or structuredClone), but cost
 * a fraction of a WeakMap entry to add and to collect.
 */
export class Source extends Base {
  #wire: Wire;
  #casing: Casing;

  constructor(flat: object, wire: Wire, casing: Casing) {
    super(flat);
    this.#wire = wire;
    this.#casing = casing;
  }

  /** The info of a flat object with a link, or undefined for any other. */
  static info(target: object): JsonApiInfo | undefined {
    // A caller may hand over anything, `null` from a 204 among them.
    if (typeof target !== "object" || target === null) return undefined;
    if (!(#wire in target)) return undefined;
    const source = target as Source;
    return infoOf(source.#wire, source.#casing);
  }
}

// The info built for each flat object so far, so that jsonApiOf gives the same
// object every time.
const infos = new WeakMap<object, JsonApiInfo>();

/**
 * Returns the JSON:API `links` and `meta` of a resource that grab
 * denormalised, and those of each of its relationships, data-less ones
 * included.
 *
 * A denormalised resource is a plain data object: `{ type, id, ...fields }`.
 * The resource's own `links` and `meta`, and each relationship's, are kept
 * off it and are reachable here, as sent by the server (never re-cased);
 * relationship names are in the caller's casing, like the resource's fields.
 * A related resource that the document did not include is an
 * identifier-only object; it has an entry only when its resource identifier
 * carried `meta`. The document's own `links` and `meta` are on the success
 * meta of the grab instead.
 *
 * @param resource A resource object from the data of a JSON:API grab.
 * @returns The resource's `{ links?, meta?, relationships }`, or `undefined`
 * for an object that grab did not denormalise from a JSON:API document.
 *
 * @example Following a resource's and a relationship's links
 * ```ts
 * import createGrab, { jsonApiOf } from "@grab/grab";
 *
 * interface Article {
 *   type: "articles";
 *   id: string;
 *   title: string;
 * }
 *
 * const grab = createGrab("https://api.example.com", { format: "json-api" });
 * const [article] = await grab<Article>("GET /articles/:id", {
 *   params: { id: "1" },
 * });
 * if (article !== null) {
 *   const info = jsonApiOf(article);
 *   const self = info?.links?.self; // "https://api.example.com/articles/1"
 *   const comments = info?.relationships.comments?.links?.related;
 *   const count = info?.relationships.comments?.meta?.count; // 12
 *   console.log(self, comments, count);
 * }
 * ```
 */
export function jsonApiOf(resource: object): JsonApiInfo | undefined {
  let info = infos.get(resource);
  if (info === undefined) {
    info = Source.info(resource);
    if (info !== undefined) infos.set(resource, info);
  }
  return info;
}

function infoOf(wire: Wire, casing: Casing): JsonApiInfo {
  const info: JsonApiInfo = { relationships: {} };
  if (isPlainObject(wire.links)) info.links = wire.links;
  if (isPlainObject(wire.meta)) info.meta = wire.meta;
  const rels = wire.relationships;
  if (!isPlainObject(rels)) return info;
  for (const name of Object.keys(rels)) {
    // @-members are not relationships (JSON:API 1.1, "@-Members").
    if (name.startsWith("@")) continue;
    const key = convertKey(name, casing);
    if (isIdentityKey(key)) continue;
    const rel = rels[name] as Wire;
    const entry: JsonApiInfo["relationships"][string] = {};
    if (isPlainObject(rel.links)) entry.links = rel.links;
    if (isPlainObject(rel.meta)) entry.meta = rel.meta;
    setOwn(info.relationships as Record<string, unknown>, key, entry);
  }
  return info;
}
