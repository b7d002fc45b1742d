/**
 * Checking a JSON:API resource in wire shape, `{ type, id?, lid?,
 * attributes?, relationships?, meta?, links? }`, as a write body or inside
 * a request document.
 *
 * @module
 */

import {
  describeValue,
  isIdentityKey,
  isPlainObject,
  joinPointer,
  ownValue,
} from "./kit.ts";
import { isExtraMember, isRelationshipObject } from "./members.ts";
import {
  add,
  type Check,
  checkAttribute,
  checkExtraMember,
  checkField,
  checkJson,
  checkLinkage,
  checkMemberName,
  checkObjectMember,
  checkTypeAndId,
} from "./write_checks.ts";
import { checkFieldClash } from "./field_clash.ts";

type Item = Record<string, unknown>;

/**
 * Checks a resource in wire shape at `at`: its `type`, `id` and `lid`, its
 * attributes and relationships, and that it holds only the members JSON:API
 * defines for one (and @-members and extension members).
 */
export function checkWireResource(
  check: Check,
  item: Item,
  at: string,
  within: object[],
): void {
  checkResourceHead(check, item, at);
  const inside = [...within, item];
  let attributes: [string, string][] = [];
  let relationships: [string, string][] = [];
  for (const key of Object.keys(item)) {
    const value = item[key];
    const p = joinPointer(at, key);
    if (value === undefined || isIdentityKey(key)) continue;
    if (key === "attributes") {
      attributes = checkMembers(
        check,
        key,
        value,
        p,
        inside,
        checkAttributeMember,
      );
    } else if (key === "relationships") {
      relationships = checkMembers(
        check,
        key,
        value,
        p,
        inside,
        checkRelationshipMember,
      );
    } else if (key === "meta" || key === "links") {
      checkObjectMember(check, key, value, p, inside);
    } else if (isExtraMember(key)) {
      checkExtraMember(check, key, value, p, inside);
    } else {
      add(
        check,
        p,
        `Cannot send resource member "${key}": put fields under "attributes" or "relationships"`,
      );
    }
  }
  checkSharedName(check, attributes, relationships);
  checkFieldClash(check, at, [...attributes, ...relationships]);
}

type MemberCheck = (
  check: Check,
  key: string,
  value: unknown,
  at: string,
  within: object[],
) => void;

// Checks each member of a wire resource's `attributes` or `relationships`;
// returns the names of those with values, each with its path.
function checkMembers(
  check: Check,
  name: string,
  value: unknown,
  at: string,
  within: object[],
  each: MemberCheck,
): [string, string][] {
  if (!isPlainObject(value)) {
    add(
      check,
      at,
      `Cannot send the resource as "${name}" must be an object: value is ${
        describeValue(value)
      }`,
    );
    return [];
  }
  const fields: [string, string][] = [];
  for (const key of Object.keys(value)) {
    const member = value[key];
    const p = joinPointer(at, key);
    // An @-member or an extension's (`version:id`: a field's name has no
    // colon) is no attribute or relationship (JSON:API 1.1): its name and
    // value are checked as the resource's own.
    if (isExtraMember(key)) {
      checkExtraMember(check, key, member, p, [...within, value]);
      continue;
    }
    if (member !== undefined) fields.push([key, p]);
    each(check, key, member, p, [...within, value]);
  }
  return fields;
}

const checkAttributeMember: MemberCheck = (check, key, value, at, within) => {
  checkField(check, key, at, false);
  checkAttribute(check, value, at, within);
};

const checkRelationshipMember: MemberCheck = (
  check,
  key,
  value,
  at,
  within,
) => {
  checkField(check, key, at, false);
  if (!isRelationshipObject(value)) {
    checkLinkage(check, value, at, within);
    return;
  }
  // A relationship in a resource sent to a server must say the linkage it
  // sets (JSON:API 1.1, creating and updating resources).
  let linkage = false;
  for (const member of Object.keys(value)) {
    const p = joinPointer(at, member);
    const item = value[member];
    if (item === undefined) continue; // JSON leaves it out: it is no member.
    if (member === "data") {
      linkage = true;
      checkLinkage(check, item, p, [...within, value]);
    } else if (!checkMemberName(check, member, p, "relationship")) continue;
    else if (isExtraMember(member)) {
      checkJson(check, item, p, [...within, value]);
    } else checkObjectMember(check, member, item, p, [...within, value]);
  }
  if (!linkage) {
    add(
      check,
      at,
      `Cannot send relationship "${key}": it needs "data", the linkage it sets ("links" or "meta" alone set nothing)`,
    );
  }
};

/** Checks `type`, `id` and `lid`, and that a `PATCH` names the resource. */
export function checkResourceHead(check: Check, item: Item, at: string): void {
  checkTypeAndId(check, item, at, "resource");
  if (
    check.method === "PATCH" && ownValue(item, "id") === undefined &&
    ownValue(item, "lid") === undefined
  ) {
    add(
      check,
      at,
      `Cannot send the resource with PATCH: "id" and "lid" are missing`,
    );
  }
}

/**
 * Adds an issue for each relationship that has the name of an attribute of
 * the same resource: a resource's fields share one namespace (JSON:API 1.1,
 * "Fields"). Two different names that the casing makes one are
 * {@linkcode checkFieldClash}'s.
 */
export function checkSharedName(
  check: Check,
  attributes: readonly (readonly [name: string, path: string])[],
  relationships: readonly (readonly [name: string, path: string])[],
): void {
  if (attributes.length === 0 || relationships.length === 0) return;
  const names = new Set(attributes.map(([name]) => name));
  for (const [name, path] of relationships) {
    if (!names.has(name)) continue;
    add(
      check,
      path,
      `Cannot send field "${name}" as both an attribute and a relationship: a resource's fields share one namespace`,
    );
  }
}
