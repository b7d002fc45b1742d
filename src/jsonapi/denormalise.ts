/**
 * Denormalisation of JSON:API success documents into flat, linked objects,
 * and {@linkcode jsonApiOf}, which gives back the `links` and `meta` that the
 * flat objects leave out.
 *
 * @module
 */

import { type Casing, convertKey, convertKeys, setOwn } from "../casing.ts";

/** Options for {@linkcode denormalise}. */
export interface DenormaliseOptions {
  /** The caller-side key casing of the flat objects. Defaults to `"none"`. */
  casing?: Casing;
}

/**
 * The outcome of {@linkcode denormalise}: the flat data and the document's
 * own `meta` and `links` (each only when present), or why the input is not a
 * JSON:API success document.
 */
export type DenormaliseResult =
  | {
    ok: true;
    data: unknown;
    meta?: Record<string, unknown>;
    links?: Record<string, unknown>;
  }
  | { ok: false; reason: string };

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
type Flat = Record<string, unknown>;
type Index = Map<string, Map<string, Flat>>;

// Returns the object it is given as `this`, so that a subclass can add its
// private fields to any object.
class Base {
  constructor(target: object) {
    return target;
  }
}

// A flat object's link to its wire source, from which jsonApiOf builds the
// info on first use. Private fields work like a WeakMap keyed by the object
// (nothing outside this class can see them: no own property, no symbol, not
// in Object.keys, Reflect.ownKeys, JSON.stringify or structuredClone), but
// cost a fraction of a WeakMap entry to add and to collect.
class Source extends Base {
  #wire: Wire;
  #casing: Casing;

  constructor(flat: Flat, wire: Wire, casing: Casing) {
    super(flat);
    this.#wire = wire;
    this.#casing = casing;
  }

  static info(target: object): JsonApiInfo | undefined {
    if (!(#wire in target)) return undefined;
    const source = target as Source;
    return infoOf(source.#wire, source.#casing);
  }
}

// The info built for each flat object so far, so that jsonApiOf gives the same
// object every time.
const infos = new WeakMap<object, JsonApiInfo>();
const EMPTY = {};

/**
 * Turns a JSON:API success document into flat data.
 *
 * A resource becomes `{ type, id, lid?, ...attributes, ...relationships }`.
 * A relationship with `data` becomes the related flat resource (found in
 * `included` or in primary data), or an identifier-only `{ type, id }` object
 * when the document does not hold it; `null` and `[]` stay as they are; a
 * relationship without `data` is left out. The same `type` + `id` (or `lid`)
 * is one object everywhere, so cycles share identity; when a resource appears
 * twice, the first occurrence wins and `data` keeps its length. Attributes
 * named `type`, `id` or `lid` are skipped. `__proto__` stays an own data
 * property.
 *
 * With a casing other than `"none"`, attribute and relationship names and the
 * keys nested in attribute values are converted; `type` values, ids, `meta`
 * and `links` never are. With `"none"`, attribute values are the document's
 * own (not copied).
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
    return denormaliseDocument(document, options?.casing ?? "none");
  } catch {
    // Only a hostile object (a throwing getter or proxy) gets here: a parsed
    // JSON text never does.
    return fail("the document could not be read");
  }
}

function denormaliseDocument(
  document: unknown,
  casing: Casing,
): DenormaliseResult {
  if (!isRecord(document)) {
    return fail("the document is not an object");
  }
  const doc = document as Wire;
  if (doc.errors !== undefined) {
    return fail("the document has an errors member");
  }
  const primary = doc.data;
  const meta = doc.meta;
  const links = doc.links;
  if (primary === undefined && meta === undefined) {
    return fail("the document has no data or meta member");
  }
  if (meta !== undefined && !isRecord(meta)) {
    return fail("/meta is not an object");
  }
  if (links !== undefined && !isRecord(links)) {
    return fail("/links is not an object");
  }
  const included = doc.included;
  if (included !== undefined && !Array.isArray(included)) {
    return fail("/included is not an array");
  }
  const many = Array.isArray(primary);
  if (
    primary !== undefined && primary !== null && !many && !isRecord(primary)
  ) {
    return fail("/data is not a resource object, an array or null");
  }

  // The wire resources in document order: primary data, then included.
  const wires: unknown[] = many
    ? primary as unknown[]
    : primary === undefined || primary === null
    ? []
    : [primary];
  const primaryCount = wires.length;
  const rest: unknown[] = included ?? [];
  const total = primaryCount + rest.length;

  const convert = casing !== "none";
  // for...in allocates nothing, unlike Object.keys; it needs an own-key
  // check only when something made Object.prototype keys enumerable.
  const inherited = hasEnumerableInheritedKeys();
  const byId: Index = new Map();
  const byLid: Index = new Map();
  // targets[i]: the flat object that wire i fills, or null for a repeat.
  const targets: (Flat | null)[] = new Array(total);
  const data: unknown = many ? new Array(primaryCount) : null;
  let single: Flat | null = null;

  // Pass 1: check each resource, create its flat object with attributes,
  // and index it by type + id and by type + lid.
  for (let i = 0; i < total; i++) {
    const wire = i < primaryCount ? wires[i] : rest[i - primaryCount];
    if (!isRecord(wire)) {
      return fail(`${pointerOf(i, primaryCount, many)} is not an object`);
    }
    const type = wire.type;
    if (typeof type !== "string" || type === "") {
      return fail(
        `${pointerOf(i, primaryCount, many)}/type is not a non-empty string`,
      );
    }
    const id = wire.id;
    if (id !== undefined && typeof id !== "string") {
      return fail(`${pointerOf(i, primaryCount, many)}/id is not a string`);
    }
    const lid = wire.lid;
    if (lid !== undefined && typeof lid !== "string") {
      return fail(`${pointerOf(i, primaryCount, many)}/lid is not a string`);
    }
    const attributes = wire.attributes;
    if (attributes !== undefined && !isRecord(attributes)) {
      return fail(
        `${pointerOf(i, primaryCount, many)}/attributes is not an object`,
      );
    }
    const relationships = wire.relationships;
    if (relationships !== undefined && !isRecord(relationships)) {
      return fail(
        `${pointerOf(i, primaryCount, many)}/relationships is not an object`,
      );
    }

    let flat: Flat | undefined;
    let ids: Map<string, Flat> | undefined;
    if (id !== undefined) {
      ids = byId.get(type);
      if (ids === undefined) {
        ids = new Map();
        byId.set(type, ids);
      }
      flat = ids.get(id);
    }
    if (flat === undefined && lid !== undefined) {
      flat = byLid.get(type)?.get(lid);
    }
    if (flat !== undefined) {
      // A repeat: the first occurrence's fields win.
      targets[i] = null;
      if (lid !== undefined && byLid.get(type)?.get(lid) === undefined) {
        addTo(byLid, type, lid, flat);
      }
    } else {
      if (id !== undefined) {
        // Starting from {} leaves room for a few fields inside the object.
        flat = {};
        flat.type = type;
        flat.id = id;
        if (lid !== undefined) flat.lid = lid;
        ids!.set(id, flat);
      } else {
        flat = lid !== undefined ? { type, lid } : { type };
      }
      if (lid !== undefined) addTo(byLid, type, lid, flat);
      if (attributes !== undefined) {
        copyAttributes(attributes, flat, casing, inherited);
      }
      targets[i] = flat;
      new Source(flat, wire, casing);
    }
    if (i < primaryCount) {
      if (many) (data as unknown[])[i] = flat;
      else single = flat;
    }
  }

  // Pass 2: resolve every relationship's data to flat objects.
  for (let i = 0; i < total; i++) {
    const wire = (i < primaryCount ? wires[i] : rest[i - primaryCount]) as Wire;
    const relationships = wire.relationships;
    if (relationships === undefined) continue;
    const rels = relationships as Wire;
    const flat = targets[i]!;
    for (const name in rels) {
      if (inherited && !Object.hasOwn(rels, name)) continue;
      if (name.charCodeAt(0) === 64 /* @ */) continue;
      const rel = rels[name];
      if (!isRecord(rel)) {
        return fail(
          `${pointerOf(i, primaryCount, many)}/relationships/${
            escapeToken(name)
          } is not an object`,
        );
      }
      const linkage = rel.data;
      if (linkage === undefined) continue;
      let value: unknown;
      if (linkage === null) {
        value = null;
      } else if (Array.isArray(linkage)) {
        const length = linkage.length;
        const list: unknown[] = new Array(length);
        for (let j = 0; j < length; j++) {
          const related = resolve(linkage[j], byId, byLid, casing);
          if (related === undefined) {
            return fail(
              `${pointerOf(i, primaryCount, many)}/relationships/${
                escapeToken(name)
              }/data/${j} is not a resource identifier`,
            );
          }
          list[j] = related;
        }
        value = list;
      } else {
        value = resolve(linkage, byId, byLid, casing);
        if (value === undefined) {
          return fail(
            `${pointerOf(i, primaryCount, many)}/relationships/${
              escapeToken(name)
            }/data is not a resource identifier, an array or null`,
          );
        }
      }
      if (flat === null) continue;
      const key = convert ? convertKey(name, casing) : name;
      if (key === "type" || key === "id" || key === "lid") continue;
      if (key === "__proto__") setOwn(flat, key, value);
      else flat[key] = value;
    }
  }

  const result: DenormaliseResult = {
    ok: true,
    data: many ? data : single,
  };
  if (meta !== undefined) result.meta = meta as Record<string, unknown>;
  if (links !== undefined) result.links = links as Record<string, unknown>;
  return result;
}

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
  if (isRecord(wire.links)) info.links = wire.links;
  if (isRecord(wire.meta)) info.meta = wire.meta;
  const rels = wire.relationships;
  if (!isRecord(rels)) return info;
  for (const name of Object.keys(rels)) {
    const key = convertKey(name, casing);
    if (key === "type" || key === "id" || key === "lid") continue;
    const rel = rels[name] as Wire;
    const entry: JsonApiInfo["relationships"][string] = {};
    if (isRecord(rel.links)) entry.links = rel.links;
    if (isRecord(rel.meta)) entry.meta = rel.meta;
    setOwn(info.relationships as Record<string, unknown>, key, entry);
  }
  return info;
}

// Returns the flat object for a resource identifier, creating (and indexing)
// an identifier-only one when the document does not hold the resource, or
// undefined when `linkage` is not a resource identifier.
function resolve(
  linkage: unknown,
  byId: Index,
  byLid: Index,
  casing: Casing,
): Flat | undefined {
  if (!isRecord(linkage)) return undefined;
  const type = linkage.type;
  if (typeof type !== "string" || type === "") return undefined;
  const id = linkage.id;
  const lid = linkage.lid;
  if (lid !== undefined && typeof lid !== "string") return undefined;
  let found: Flat | undefined;
  if (typeof id === "string") {
    found = byId.get(type)?.get(id);
    if (found !== undefined) return found;
    if (lid !== undefined) {
      found = byLid.get(type)?.get(lid);
      if (found !== undefined) return found;
    }
  } else if (id !== undefined || lid === undefined) {
    return undefined;
  } else {
    found = byLid.get(type)?.get(lid);
    if (found !== undefined) return found;
  }
  let flat: Flat;
  if (typeof id === "string") {
    flat = typeof lid === "string" ? { type, id, lid } : { type, id };
    addTo(byId, type, id, flat);
  } else {
    flat = { type, lid };
  }
  if (typeof lid === "string") {
    addTo(byLid, type, lid, flat);
  }
  if (isRecord(linkage.meta)) new Source(flat, linkage, casing);
  return flat;
}

function copyAttributes(
  attributes: Wire,
  flat: Flat,
  casing: Casing,
  inherited: boolean,
): void {
  const convert = casing !== "none";
  for (const name in attributes) {
    if (inherited && !Object.hasOwn(attributes, name)) continue;
    // An @-member (`@context`) belongs to an extension, not to the resource
    // (JSON:API 1.1, "@-Members").
    if (name.charCodeAt(0) === 64 /* @ */) continue;
    let key = name;
    let value = attributes[name];
    if (convert) {
      key = convertKey(name, casing);
      if (typeof value === "object" && value !== null) {
        value = convertKeys(value, casing);
      }
    }
    if (key === "type" || key === "id" || key === "lid") continue;
    if (name === "type" || name === "id" || name === "lid") continue;
    if (key === "__proto__") setOwn(flat, key, value);
    else flat[key] = value;
  }
}

function hasEnumerableInheritedKeys(): boolean {
  for (const _ in EMPTY) return true;
  return false;
}

function addTo(index: Index, type: string, key: string, flat: Flat): void {
  let byKey = index.get(type);
  if (byKey === undefined) {
    byKey = new Map();
    index.set(type, byKey);
  }
  byKey.set(key, flat);
}

// A plain object that is not an array: isPlainObject without the array case,
// in one call on the hot path.
function isRecord(value: unknown): value is Wire {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function pointerOf(index: number, primaryCount: number, many: boolean): string {
  if (index >= primaryCount) return `/included/${index - primaryCount}`;
  return many ? `/data/${index}` : "/data";
}

function escapeToken(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1");
}

function fail(reason: string): DenormaliseResult {
  return { ok: false, reason };
}
