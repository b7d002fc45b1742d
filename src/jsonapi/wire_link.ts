/**
 * {@linkcode WireLink}: the private link from a denormalised resource to the
 * wire resource it came from, from which `jsonApiOf` reads its `links` and
 * `meta`.
 *
 * @module
 */

import {
  convertKey,
  isIdentityKey,
  isPlainObject,
  setInfoReader,
  setOwn,
} from "./kit.ts";
import type { Casing } from "../casing.ts";
import type { JsonApiInfo } from "./source.ts";
import { isExtraMember } from "./members.ts";

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
 * info on first use: `new WireLink(flat, wire, casing)` adds the link to
 * `flat`. Private fields work like a WeakMap keyed by the object (nothing
 * outside this class can see them: no own property, no symbol, not in
 * Object.keys, Reflect.ownKeys, JSON.stringify or structuredClone), but cost
 * a fraction of a WeakMap entry to add and to collect.
 */
export class WireLink extends Base {
  #wire: Wire;
  #casing: Casing;

  constructor(flat: object, wire: Wire, casing: Casing) {
    super(flat);
    this.#wire = wire;
    this.#casing = casing;
  }

  /**
   * Points the link of `flat` at `wire`, another occurrence of its
   * resource, when the occurrence it links to has no `attributes` and no
   * `relationships` (a resource identifier): true when it did.
   */
  static fill(flat: object, wire: Wire): boolean {
    if (!(#wire in flat)) return false;
    const link = flat as WireLink;
    const bare = link.#wire.attributes === undefined &&
      link.#wire.relationships === undefined;
    if (bare) link.#wire = wire;
    return bare;
  }

  /** True for a flat object with a link. */
  static has(value: unknown): value is object {
    return typeof value === "object" && value !== null && #wire in value;
  }

  /**
   * Gives `to`, which has no link, the link of `from`, which has one: a
   * copy of the resource (a schema's output) reads the same info. An object
   * that cannot take a field (frozen, or a Proxy that says so) keeps none.
   */
  static copy(from: WireLink, to: object): void {
    if (#wire in to || !Object.isExtensible(to)) return;
    new WireLink(to, from.#wire, from.#casing);
  }

  /** The info of a flat object with a link, or undefined for any other. */
  static info(target: object): JsonApiInfo | undefined {
    // A caller may hand over anything, `null` from a 204 among them.
    if (typeof target !== "object" || target === null) return undefined;
    if (!(#wire in target)) return undefined;
    const source = target as WireLink;
    return infoOf(source.#wire, source.#casing);
  }
}

/**
 * Lets `jsonApiOf` read the links that `WireLink` adds; called once, as the
 * codec is loaded.
 */
export function readLinks(): void {
  setInfoReader((target) => WireLink.info(target));
}

function infoOf(wire: Wire, casing: Casing): JsonApiInfo {
  const info: JsonApiInfo = { relationships: {} };
  if (isPlainObject(wire.links)) info.links = wire.links;
  if (isPlainObject(wire.meta)) info.meta = wire.meta;
  const rels = wire.relationships;
  if (!isPlainObject(rels)) return info;
  for (const name of Object.keys(rels)) {
    // @-members and an extension's members are no relationships (JSON:API
    // 1.1): skipped as `linkResources` skips them.
    if (isExtraMember(name)) continue;
    const key = convertKey(name, casing);
    if (isIdentityKey(key)) continue;
    const rel = rels[name] as Wire;
    const entry: JsonApiInfo["relationships"][string] = {};
    if (isPlainObject(rel.links)) entry.links = rel.links;
    if (isPlainObject(rel.meta)) entry.meta = rel.meta;
    // The linkage as sent: the related resource's identifier keeps its own
    // `meta` (an image's alt text on Drupal's), which the resource it
    // stands for, one object wherever it is related, cannot carry.
    if (rel.data !== undefined) {
      entry.data = rel.data as NonNullable<typeof entry.data>;
    }
    setOwn(info.relationships as Record<string, unknown>, key, entry);
  }
  return info;
}
