/**
 * The two passes of `denormalise` over a document's resources: no
 * recursion, so any depth of relationships or nesting is safe.
 *
 * @module
 */

import {
  clashMark,
  convertKey,
  convertKeys,
  escapeToken,
  hasEnumerableInheritedKeys,
  isIdentityKey,
  isPlainObject,
  mayHaveClashed,
  setOwn,
} from "./kit.ts";
import type { Casing } from "../casing.ts";
import {
  addLid,
  createIndex,
  findByLid,
  type Flat,
  idsOf,
  newResource,
  resolveLinkage,
  type ResourceIndex,
  type Wire,
} from "./resource_index.ts";
import { fieldCount, FIELDS_CLASHED, fieldsClash } from "./field_clash.ts";
import { WireLink } from "./wire_link.ts";

/**
 * One denormalisation: the document's resources in document order (primary
 * data, then included, read in place rather than copied into one list) and
 * what the two passes build.
 */
export interface Pass {
  readonly primary: unknown[];
  readonly included: unknown[];
  readonly primaryCount: number;
  readonly total: number;
  readonly many: boolean;
  readonly casing: Casing;
  readonly convert: boolean;
  /** The casing's clash mark when the pass started (see `clashMark`). */
  readonly mark: number;
  /** Whether for...in needs an own-key check (see hasEnumerableInheritedKeys). */
  readonly inherited: boolean;
  readonly index: ResourceIndex;
  /**
   * targets[i]: the flat object that resource i fills, or null for a repeat
   * that leaves it the first occurrence's fields.
   */
  readonly targets: (Flat | null)[];
  /** The flat primary data, repeats included, so that it keeps its length. */
  readonly data: Flat[];
}

/**
 * A pass over the resources of a document whose top-level members are
 * checked: `data` is a resource object, an array, `null` or undefined.
 */
export function startPass(
  data: unknown,
  included: unknown[] | undefined,
  casing: Casing,
): Pass {
  const many = Array.isArray(data);
  const primary: unknown[] = many
    ? data
    : data === undefined || data === null
    ? []
    : [data];
  included ??= [];
  const total = primary.length + included.length;
  return {
    primary,
    included,
    primaryCount: primary.length,
    total,
    many,
    casing,
    convert: casing !== "none",
    mark: casing === "none" ? 0 : clashMark(casing),
    inherited: hasEnumerableInheritedKeys(),
    index: createIndex(casing),
    targets: new Array(total),
    data: new Array(primary.length),
  };
}

/**
 * Pass 1: checks each resource, creates its flat object with attributes, and
 * indexes it by type + id and by type + lid. A repeat of a resource is given
 * its first occurrence's object, whose fields win; when that one had no
 * fields (a resource identifier in primary data, the included resource
 * after it), the repeat's fill it. Returns why a resource is not valid, if
 * one is not.
 */
export function indexResources(pass: Pass): string | undefined {
  const { data, primaryCount } = pass;
  for (let i = 0; i < pass.total; i++) {
    const wire = wireAt(pass, i);
    if (!isPlainObject(wire)) return `${pointerOf(pass, i)} is not an object`;
    const type = wire.type;
    if (typeof type !== "string" || type === "") {
      return `${pointerOf(pass, i)}/type is not a non-empty string`;
    }
    const id = wire.id;
    if (id !== undefined && typeof id !== "string") {
      return `${pointerOf(pass, i)}/id is not a string`;
    }
    const lid = wire.lid;
    if (lid !== undefined && typeof lid !== "string") {
      return `${pointerOf(pass, i)}/lid is not a string`;
    }
    const attributes = wire.attributes;
    if (attributes !== undefined && !isPlainObject(attributes)) {
      return `${pointerOf(pass, i)}/attributes is not an object`;
    }
    const relationships = wire.relationships;
    if (relationships !== undefined && !isPlainObject(relationships)) {
      return `${pointerOf(pass, i)}/relationships is not an object`;
    }
    const flat = placeResource(pass, i, wire, type, id, lid, attributes);
    if (i < primaryCount) data[i] = flat;
  }
  return undefined;
}

// The flat object of resource i: a new one with its attributes, or for a
// repeat the first occurrence's, whose fields win (or, when it had none, are
// the repeat's).
function placeResource(
  pass: Pass,
  i: number,
  wire: Wire,
  type: string,
  id: string | undefined,
  lid: string | undefined,
  attributes: Wire | undefined,
): Flat {
  const index = pass.index;
  let flat: Flat | undefined;
  let ids: Map<string, Flat> | undefined;
  if (id !== undefined) {
    ids = idsOf(index, type);
    flat = ids.get(id);
  }
  if (flat === undefined && lid !== undefined) {
    flat = findByLid(index, type, lid, id);
    // The first occurrence had only the lid: this one names its id, by
    // which other resources may link to it.
    if (flat !== undefined && id !== undefined && flat.id === undefined) {
      flat.id = id;
      ids!.set(id, flat);
    }
  }
  if (flat !== undefined) {
    if (lid !== undefined) addLid(index, type, lid, flat);
    // The fields of an identifier's resource (the first occurrence had
    // none): this occurrence's, all of it. Looked at only on a repeat, so
    // that a document of identifiers alone pays nothing for it.
    if (
      (attributes === undefined && wire.relationships === undefined) ||
      !WireLink.fill(flat, wire)
    ) {
      pass.targets[i] = null;
      return flat;
    }
  } else {
    flat = newResource(type, id, lid);
    if (id !== undefined) ids!.set(id, flat);
    if (lid !== undefined) addLid(index, type, lid, flat);
    new WireLink(flat, wire, pass.casing);
  }
  if (attributes !== undefined) copyAttributes(pass, attributes, flat);
  pass.targets[i] = flat;
  return flat;
}

function copyAttributes(pass: Pass, attributes: Wire, flat: Flat): void {
  const { casing, convert, inherited } = pass;
  let copied = 0;
  for (const name in attributes) {
    if (inherited && !Object.hasOwn(attributes, name)) continue;
    // An @-member (`@context`) belongs to an extension, not to the resource
    // (JSON:API 1.1, "@-Members").
    if (name.charCodeAt(0) === 64 /* @ */) continue;
    const key = convert ? convertKey(name, casing) : name;
    // isIdentityKey and setOwn spelled out: this loop runs most, and the
    // calls measured a few per cent slower. A skipped attribute's value is
    // not converted: a clash inside it loses nothing.
    if (key === "type" || key === "id" || key === "lid") {
      // `Id` in camelCase would take the place of the resource's `id`.
      if (key !== name) throw FIELDS_CLASHED;
      continue;
    }
    if (name === "type" || name === "id" || name === "lid") continue;
    let value = attributes[name];
    if (convert && typeof value === "object" && value !== null) {
      value = convertKeys(value, casing);
    }
    copied++;
    if (key === "__proto__") setOwn(flat, key, value);
    else flat[key] = value;
  }
  // Counted only once a suspect was met (see `clashMark`): a field lost
  // leaves the resource short.
  if (
    convert && mayHaveClashed(casing, pass.mark) && fieldCount(flat) !== copied
  ) throw FIELDS_CLASHED;
}

/**
 * Pass 2: resolves every relationship's data to flat objects. A repeat's
 * relationships are checked but not set: the first occurrence's win. Returns
 * why a relationship is not valid, if one is not.
 */
export function linkResources(pass: Pass): string | undefined {
  const { index, targets, inherited, convert, casing } = pass;
  for (let i = 0; i < pass.total; i++) {
    const wire = wireAt(pass, i) as Wire;
    const relationships = wire.relationships as Wire | undefined;
    if (relationships === undefined) continue;
    const flat = targets[i]!;
    // One loop inside the other rather than a function per resource, which
    // measured slower.
    for (const name in relationships) {
      if (inherited && !Object.hasOwn(relationships, name)) continue;
      // An @-member, or an extension's (`version:id`: a field's name has no
      // colon), is no relationship, whatever its value (JSON:API 1.1).
      if (name.charCodeAt(0) === 64 /* @ */ || name.includes(":")) continue;
      const relationship = relationships[name];
      if (!isPlainObject(relationship)) {
        return relationshipProblem(pass, i, name, " is not an object");
      }
      const key = convert ? convertKey(name, casing) : name;
      if (key !== name && flat !== null && isIdentityKey(key)) {
        throw FIELDS_CLASHED;
      }
      const linkage = relationship.data;
      if (linkage === undefined) continue;
      const value = resolveLinkage(index, linkage);
      if (typeof value === "string") {
        return relationshipProblem(pass, i, name, `/data${value}`);
      }
      if (flat === null) continue;
      // isIdentityKey and setOwn spelled out, as in copyAttributes.
      if (key === "type" || key === "id" || key === "lid") continue;
      if (key === "__proto__") setOwn(flat, key, value);
      else flat[key] = value;
    }
    if (
      convert && flat !== null && mayHaveClashed(casing, pass.mark) &&
      fieldsClash(pass, [wire.attributes as Wire | undefined, relationships])
    ) throw FIELDS_CLASHED;
  }
  return undefined;
}

/** The flat primary data: an array, one object or `null`. */
export function primaryData(pass: Pass): unknown {
  return pass.many ? pass.data : pass.data[0] ?? null;
}

/** Resource i of the document: primary data, then included. */
export function wireAt(pass: Pass, i: number): unknown {
  return i < pass.primaryCount
    ? pass.primary[i]
    : pass.included[i - pass.primaryCount];
}

/** The JSON pointer of resource i in the document. */
export function pointerOf(pass: Pass, i: number): string {
  if (i >= pass.primaryCount) return `/included/${i - pass.primaryCount}`;
  return pass.many ? `/data/${i}` : "/data";
}

function relationshipProblem(
  pass: Pass,
  i: number,
  name: string,
  problem: string,
): string {
  return `${pointerOf(pass, i)}/relationships/${escapeToken(name)}${problem}`;
}
