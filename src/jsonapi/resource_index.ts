/**
 * The per-type index of one document's flat resources, by `id` and by `lid`,
 * and the resolution of relationship linkage against it.
 *
 * @module
 */

import type { Casing } from "../casing.ts";
import { isPlainObject } from "../object.ts";
import { Source } from "./source.ts";

/** A resource or resource identifier object as the document holds it. */
export type Wire = Record<string, unknown>;
/** A denormalised resource: `{ type, id?, lid?, ...fields }`. */
export type Flat = Record<string, unknown>;
type ByKey = Map<string, Map<string, Flat>>;

/** The flat objects of one document by type, then by `id` or by `lid`. */
export interface ResourceIndex {
  readonly byId: ByKey;
  readonly byLid: ByKey;
  /** The caller's casing, for the info of identifier-only objects. */
  readonly casing: Casing;
}

/** An empty index. */
export function createIndex(casing: Casing): ResourceIndex {
  return { byId: new Map(), byLid: new Map(), casing };
}

/** The flat object indexed for `type` + `id`, else for `type` + `lid`. */
export function findResource(
  index: ResourceIndex,
  type: string,
  id: string | undefined,
  lid: string | undefined,
): Flat | undefined {
  let flat = id === undefined ? undefined : index.byId.get(type)?.get(id);
  if (flat === undefined && lid !== undefined) {
    flat = index.byLid.get(type)?.get(lid);
  }
  return flat;
}

/**
 * Creates and indexes the flat object `{ type, id?, lid? }` of a resource
 * that the document holds, ready for its fields.
 */
export function addResource(
  index: ResourceIndex,
  type: string,
  id: string | undefined,
  lid: string | undefined,
): Flat {
  let flat: Flat;
  if (id !== undefined) {
    // Starting from {} leaves room for a few fields inside the object.
    flat = {};
    flat.type = type;
    flat.id = id;
    if (lid !== undefined) flat.lid = lid;
  } else {
    flat = lid !== undefined ? { type, lid } : { type };
  }
  addKeys(index, type, id, lid, flat);
  return flat;
}

/**
 * Indexes `flat` by `type` + `lid` as well, unless another object already
 * has that lid: a repeat of a resource can name the lid its first
 * occurrence left out.
 */
export function addLid(
  index: ResourceIndex,
  type: string,
  lid: string,
  flat: Flat,
): void {
  if (index.byLid.get(type)?.get(lid) === undefined) {
    addTo(index.byLid, type, lid, flat);
  }
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
  const found = findResource(index, type, id, lid);
  if (found !== undefined) return found;
  const flat = id !== undefined
    ? lid !== undefined ? { type, id, lid } : { type, id }
    : { type, lid };
  addKeys(index, type, id, lid, flat);
  if (isPlainObject(linkage.meta)) new Source(flat, linkage, index.casing);
  return flat;
}

function isOptionalString(value: unknown): value is string | undefined {
  return value === undefined || typeof value === "string";
}

function addKeys(
  index: ResourceIndex,
  type: string,
  id: string | undefined,
  lid: string | undefined,
  flat: Flat,
): void {
  if (id !== undefined) addTo(index.byId, type, id, flat);
  if (lid !== undefined) addTo(index.byLid, type, lid, flat);
}

function addTo(index: ByKey, type: string, key: string, flat: Flat): void {
  let byKey = index.get(type);
  if (byKey === undefined) {
    byKey = new Map();
    index.set(type, byKey);
  }
  byKey.set(key, flat);
}
