/**
 * The per-type index of one document's flat resources, by `id` and by `lid`,
 * and the resolution of relationship linkage against it.
 *
 * @module
 */

import { isPlainObject } from "./kit.ts";
import type { Casing } from "../casing.ts";
import { WireLink } from "./wire_link.ts";

/** A resource or resource identifier object as the document holds it. */
export type Wire = Record<string, unknown>;
/** A denormalised resource: `{ type, id?, lid?, ...fields }`. */
export type Flat = Record<string, unknown>;
/** Flat objects by type, then by `id` (or by `lid`). */
export type ByKey = Map<string, Map<string, Flat>>;

/** The flat objects of one document by type, then by `id` or by `lid`. */
export interface ResourceIndex {
  readonly byId: ByKey;
  readonly byLid: ByKey;
  /** The caller's casing, for the info of identifier-only objects. */
  readonly casing: Casing;
  /** The type {@linkcode idsOf} was last asked for, and its map. */
  lastType: string;
  lastIds: Map<string, Flat>;
}

/** An empty index. */
export function createIndex(casing: Casing): ResourceIndex {
  const lastIds = new Map<string, Flat>();
  return { byId: new Map(), byLid: new Map(), casing, lastType: "", lastIds };
}

/**
 * The flat objects of one type by id, with an empty map added if none.
 * Resources of one type mostly come together (in `included`, in to-many
 * linkage), so the last type's map is kept at hand: that saves a hash lookup
 * for most resources and identifiers. The index starts with the empty type,
 * which no resource has.
 */
export function idsOf(index: ResourceIndex, type: string): Map<string, Flat> {
  if (type === index.lastType) return index.lastIds;
  const ids = keysOf(index.byId, type);
  index.lastType = type;
  index.lastIds = ids;
  return ids;
}

/** The flat objects of one type in `byKey`, with an empty map added if none. */
export function keysOf(byKey: ByKey, type: string): Map<string, Flat> {
  let keys = byKey.get(type);
  if (keys === undefined) {
    keys = new Map();
    byKey.set(type, keys);
  }
  return keys;
}

/** A new flat object `{ type, id?, lid? }` for a resource the document holds. */
export function newResource(
  type: string,
  id: string | undefined,
  lid: string | undefined,
): Flat {
  if (id === undefined) return lid !== undefined ? { type, lid } : { type };
  // Starting from {} leaves room for a few fields inside the object.
  const flat: Flat = {};
  flat.type = type;
  flat.id = id;
  if (lid !== undefined) flat.lid = lid;
  return flat;
}

/**
 * Indexes `flat` by `type` + `lid` as well, unless another object has that
 * lid: a repeat of a resource can name a lid that its first occurrence left
 * out.
 */
export function addLid(
  index: ResourceIndex,
  type: string,
  lid: string,
  flat: Flat,
): void {
  const lids = keysOf(index.byLid, type);
  if (!lids.has(lid)) lids.set(lid, flat);
}

/**
 * The flat object of `type` + `lid`, unless it has an `id` other than `id`:
 * a lid names a resource within one document, an id names the resource
 * itself, so two resources with different ids are never one.
 */
export function findByLid(
  index: ResourceIndex,
  type: string,
  lid: string,
  id: string | undefined,
): Flat | undefined {
  const found = index.byLid.get(type)?.get(lid);
  if (found === undefined || id === undefined) return found;
  return found.id === undefined || found.id === id ? found : undefined;
}

/**
 * What a relationship's `data` becomes: `null`, the flat object of a
 * resource identifier or a list of them. A string instead is why `linkage`
 * is not linkage, to follow its `…/data` pointer (no value is a string).
 */
export function resolveLinkage(
  index: ResourceIndex,
  linkage: unknown,
): unknown {
  if (linkage === null) return null;
  if (!Array.isArray(linkage)) {
    return resolveIdentifier(index, linkage) ??
      " is not a resource identifier, an array or null";
  }
  const length = linkage.length;
  const list: unknown[] = new Array(length);
  for (let j = 0; j < length; j++) {
    const related = resolveIdentifier(index, linkage[j]);
    if (related === undefined) return `/${j} is not a resource identifier`;
    list[j] = related;
  }
  return list;
}

// Returns the flat object for a resource identifier, creating (and indexing)
// an identifier-only one when the document does not hold the resource, or
// undefined when `linkage` is not a resource identifier.
function resolveIdentifier(
  index: ResourceIndex,
  linkage: unknown,
): Flat | undefined {
  if (!isPlainObject(linkage)) return undefined;
  const type = linkage.type;
  if (typeof type !== "string" || type === "") return undefined;
  const id = linkage.id;
  const lid = linkage.lid;
  if (!isOptionalString(id) || !isOptionalString(lid)) return undefined;
  if (id === undefined && lid === undefined) return undefined;
  let found = id === undefined ? undefined : idsOf(index, type).get(id);
  if (found === undefined && lid !== undefined) {
    found = findByLid(index, type, lid, id);
  }
  return found ?? addIdentifier(index, linkage, type, id, lid);
}

function isOptionalString(value: unknown): value is string | undefined {
  return value === undefined || typeof value === "string";
}

// An identifier-only flat object, indexed, with the identifier's meta.
function addIdentifier(
  index: ResourceIndex,
  linkage: Wire,
  type: string,
  id: string | undefined,
  lid: string | undefined,
): Flat {
  let flat: Flat;
  if (id !== undefined) {
    flat = lid !== undefined ? { type, id, lid } : { type, id };
    idsOf(index, type).set(id, flat);
  } else {
    flat = { type, lid };
  }
  if (lid !== undefined) addLid(index, type, lid, flat);
  if (isPlainObject(linkage.meta)) new WireLink(flat, linkage, index.casing);
  return flat;
}
