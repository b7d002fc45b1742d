/**
 * Denormalisation of JSON:API success documents into flat, linked objects,
 * and {@linkcode jsonApiOf}, which gives back the `links` and `meta` that the
 * flat objects leave out.
 *
 * @module
 */

import {
  type Casing,
  convertKey,
  convertKeys,
  isPlainObject,
  setOwn,
} from "../casing.ts";

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

// Where jsonApiOf finds a flat object's wire source, one registry per casing
// so that nothing but the source has to be stored per resource. The info is
// built on first use and then kept in `infos`.
const sources: Record<Casing, WeakMap<object, Wire>> = {
  "none": new WeakMap(),
  "camelCase": new WeakMap(),
  "snake_case": new WeakMap(),
  "kebab-case": new WeakMap(),
  "PascalCase": new WeakMap(),
};
const CASINGS: readonly Casing[] = [
  "none",
  "camelCase",
  "snake_case",
  "kebab-case",
  "PascalCase",
];
const infos = new WeakMap<object, JsonApiInfo>();

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
  if (!isPlainObject(document) || Array.isArray(document)) {
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
  const all: unknown[] = included === undefined || included.length === 0
    ? wires
    : wires.concat(included);
  const total = all.length;

  const casing = options?.casing ?? "none";
  const convert = casing !== "none";
  const registry = sources[casing];
  const byId: Index = new Map();
  const byLid: Index = new Map();
  // targets[i]: the flat object that wire i fills, or null for a repeat.
  const targets: (Flat | null)[] = new Array(total);
  const data: unknown = many ? new Array(primaryCount) : null;
  let single: Flat | null = null;

  // Pass 1: check each resource, create its flat object with attributes,
  // and index it by type + id and by type + lid.
  for (let i = 0; i < total; i++) {
    const wire = all[i];
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
    if (id !== undefined) flat = byId.get(type)?.get(id);
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
        flat = lid !== undefined ? { type, id, lid } : { type, id };
        addTo(byId, type, id, flat);
      } else {
        flat = lid !== undefined ? { type, lid } : { type };
      }
      if (lid !== undefined) addTo(byLid, type, lid, flat);
      if (attributes !== undefined) {
        copyAttributes(attributes, flat, convert, casing);
      }
      targets[i] = flat;
      registry.set(flat, wire);
    }
    if (i < primaryCount) {
      if (many) (data as unknown[])[i] = flat;
      else single = flat;
    }
  }

  // Pass 2: resolve every relationship's data to flat objects.
  for (let i = 0; i < total; i++) {
    const relationships = (all[i] as Wire).relationships;
    if (relationships === undefined) continue;
    const rels = relationships as Wire;
    const flat = targets[i]!;
    for (const name of Object.keys(rels)) {
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
          const related = resolve(linkage[j], byId, byLid, registry);
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
        value = resolve(linkage, byId, byLid, registry);
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
  const known = infos.get(resource);
  if (known !== undefined) return known;
  for (const casing of CASINGS) {
    const registry = sources[casing];
    const wire = registry.get(resource);
    if (wire === undefined) continue;
    const info = infoOf(wire, casing);
    infos.set(resource, info);
    registry.delete(resource);
    return info;
  }
  return undefined;
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
  registry: WeakMap<object, Wire>,
): Flat | undefined {
  if (!isRecord(linkage)) return undefined;
  const type = linkage.type;
  if (typeof type !== "string" || type === "") return undefined;
  const id = linkage.id;
  const lid = linkage.lid;
  let found: Flat | undefined;
  if (typeof id === "string") {
    found = byId.get(type)?.get(id);
    if (found !== undefined) return found;
    if (lid !== undefined) {
      if (typeof lid !== "string") return undefined;
      found = byLid.get(type)?.get(lid);
      if (found !== undefined) return found;
    }
  } else if (id !== undefined || typeof lid !== "string") {
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
  if (isRecord(linkage.meta)) registry.set(flat, linkage);
  return flat;
}

function copyAttributes(
  attributes: Wire,
  flat: Flat,
  convert: boolean,
  casing: Casing,
): void {
  for (const name of Object.keys(attributes)) {
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

function addTo(index: Index, type: string, key: string, flat: Flat): void {
  let byKey = index.get(type);
  if (byKey === undefined) {
    byKey = new Map();
    index.set(type, byKey);
  }
  byKey.set(key, flat);
}

function isRecord(value: unknown): value is Wire {
  return isPlainObject(value) && !Array.isArray(value);
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
