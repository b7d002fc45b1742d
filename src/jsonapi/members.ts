/**
 * Which members of a JSON:API object are the format's own: @-members and an
 * extension's members, which are no fields, and relationship objects.
 *
 * @module
 */

import { isPlainObject, owns, ownValue } from "./kit.ts";

/**
 * True for a member that JSON:API lets an object hold beside its own: an
 * @-member (`@context`) or an extension's (`version:id`), as JSON:API 1.1
 * allows.
 */
export function isExtraMember(key: string): boolean {
  return isAtMember(key) || key.includes(":");
}

/** True for an @-member (`@context`), which is no field (JSON:API 1.1). */
export function isAtMember(key: string): boolean {
  return key.charCodeAt(0) === 64 /* @ */;
}

/**
 * A wire relationship object `{ data?, links?, meta? }` (or one with only
 * an extension's members) rather than bare linkage.
 */
export function isRelationshipObject(
  value: unknown,
): value is Record<string, unknown> {
  return isPlainObject(value) && ownValue(value, "type") === undefined &&
    (owns(value, "data") || owns(value, "links") || owns(value, "meta") ||
      Object.keys(value).some(isExtensionMember));
}

/** True for an extension's member (`version:id`), not an @-member. */
export function isExtensionMember(key: string): boolean {
  return !isAtMember(key) && key.includes(":");
}
