/**
 * The checks of the parts of a JSON:API write body that `validateWrite`
 * walks: resource identity, linkage, member names and attribute values.
 *
 * @module
 */

import {
  convertKey,
  describeValue,
  findNonJsonValues,
  isIdentityKey,
  isPlainObject,
  joinPointer,
  ownValue,
} from "./kit.ts";
import type { Casing } from "../casing.ts";
import type { HttpMethod } from "../endpoint.ts";
import type { ValidationIssue } from "../errors.ts";
import { isFlatRelationship } from "./serialise.ts";
import { isExtraMember } from "./members.ts";

type Item = Record<string, unknown>;

// JSON:API 1.1 member names: globally allowed characters (a-z, A-Z, 0-9,
// U+0080 and above) at both ends, "-", "_" and " " inside; an optional "@"
// (@-members) and "namespace:" (extension members) prefix.
const MEMBER_NAME =
  /^@?(?:[A-Za-z0-9]+:)?[A-Za-z0-9\u0080-\uFFFF](?:[\w \u0080-\uFFFF-]*[A-Za-z0-9\u0080-\uFFFF])?$/;
const RESERVED = new Set(["type", "id", "lid", "relationships", "links"]);

/** What the checks of one body share: where the issues go, and how. */
export interface Check {
  readonly issues: ValidationIssue[];
  readonly method: HttpMethod;
  /** The casing names are sent in. */
  readonly to: Casing;
  /** True to look for two names of one object that `to` makes one. */
  readonly clashes?: boolean;
}

/** Adds an issue. */
export function add(check: Check, path: string, message: string): void {
  check.issues.push({ path, message });
}

/** Adds (one by one, never spread) an issue per value JSON cannot carry. */
export function checkJson(
  check: Check,
  value: unknown,
  at: string,
  within: object[],
): void {
  findNonJsonValues(value, at, { within }).forEach((x) => check.issues.push(x));
}

/**
 * Checks a `meta`, `links` or `jsonapi` member, which JSON:API 1.1 says
 * must be an object, and its values, which JSON must carry. One left
 * `undefined` is no member: JSON leaves it out.
 */
export function checkObjectMember(
  check: Check,
  key: string,
  value: unknown,
  at: string,
  within: object[],
): void {
  if (value === undefined) return;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    checkJson(check, value, at, within);
  } else {
    const why = `value is ${describeValue(value)}`;
    add(check, at, `Cannot send "${key}" as it must be an object: ${why}`);
  }
}

/** Checks `type`, `id` and `lid` of a resource or of linkage (`what`). */
export function checkTypeAndId(
  check: Check,
  item: Item,
  at: string,
  what: string,
): void {
  for (const key of ["type", "id", "lid"]) {
    const value = item[key];
    if (
      key === "type"
        ? typeof value !== "string" || value === ""
        : value !== undefined && typeof value !== "string" &&
          !(key === "id" && Number.isFinite(value))
    ) {
      add(
        check,
        `${at}/${key}`,
        `Cannot send the ${what} as "${key}" must be a ${
          key === "type" ? "non-empty " : ""
        }string: value is ${describeValue(value)}`,
      );
    }
  }
}

/** Checks linkage: `null`, an identifier or an array of identifiers. */
export function checkLinkage(
  check: Check,
  value: unknown,
  at: string,
  within: object[],
): void {
  if (Array.isArray(value)) {
    // By index: a hole is not an identifier (forEach would skip it).
    for (let i = 0; i < value.length; i++) {
      checkIdentifier(check, value[i], joinPointer(at, i), [...within, value]);
    }
  } else if (value !== null && value !== undefined) {
    checkIdentifier(check, value, at, within);
  }
}

/**
 * Checks a resource identifier `{ type, id | lid, meta? }`, which may also
 * hold @-members and extension members.
 */
export function checkIdentifier(
  check: Check,
  value: unknown,
  at: string,
  within: object[],
): void {
  if (!isPlainObject(value)) {
    add(
      check,
      at,
      `Cannot send the linkage as it must be { type, id }, { type, lid }, an array of those or null: value is ${
        describeValue(value)
      }`,
    );
    return;
  }
  checkTypeAndId(check, value, at, "linkage");
  if (
    ownValue(value, "id") === undefined && ownValue(value, "lid") === undefined
  ) {
    add(check, at, `Cannot send the linkage: "id" and "lid" are missing`);
  }
  for (const key of Object.keys(value)) {
    const p = joinPointer(at, key);
    if (key === "meta") {
      checkObjectMember(check, key, value[key], p, [...within, value]);
    } else if (isExtraMember(key)) {
      checkJson(check, value[key], p, [...within, value]);
    } else if (!isIdentityKey(key) && value[key] !== undefined) {
      add(
        check,
        p,
        `Cannot send linkage member "${key}": only type, id, lid, meta, @-members and extension members are allowed`,
      );
    }
  }
}

/** The members JSON:API defines for a relationship object. */
export const RELATIONSHIP_MEMBERS: readonly string[] = [
  "data",
  "links",
  "meta",
];

const MEMBERS = {
  document: ["data", "meta", "jsonapi", "links", "included"],
  relationship: RELATIONSHIP_MEMBERS,
} as const;

/**
 * Checks a member of a request document or of a relationship object (`what`):
 * one JSON:API does not define for it, and neither an @-member nor an
 * extension's, is an issue, as JSON:API 1.1 allows no other ("Document
 * Structure"). Returns true for an allowed member.
 */
export function checkMemberName(
  check: Check,
  key: string,
  at: string,
  what: keyof typeof MEMBERS,
): boolean {
  const allowed: readonly string[] = MEMBERS[what];
  if (allowed.includes(key) || isExtraMember(key)) return true;
  add(
    check,
    at,
    `Cannot send ${what} member "${key}": only ${
      allowed.join(", ")
    }, @-members and extension members are allowed`,
  );
  return false;
}

/**
 * Checks the name of a field of a flat resource (`flat`), or of an attribute
 * or relationship of a wire one: it must not be reserved and must be a valid
 * member name once cased.
 */
export function checkField(
  check: Check,
  raw: string,
  at: string,
  flat: boolean,
): void {
  const problem = nameProblem(
    check.to,
    raw,
    (wire) =>
      RESERVED.has(wire) ||
      (flat && (RESERVED.has(raw) || raw === "attributes")),
  );
  if (problem !== undefined) add(check, at, problem);
}

/** Checks a field of a flat resource: its name, its value as attribute or linkage. */
export function checkFlatField(
  check: Check,
  key: string,
  value: unknown,
  at: string,
  within: object[],
): void {
  checkField(check, key, at, true);
  if (!isFlatRelationship(value)) checkAttribute(check, value, at, within);
  else if (Array.isArray(value)) {
    value.forEach((item: Item, i) =>
      checkTypeAndId(check, item, joinPointer(at, i), "linkage")
    );
  } else checkTypeAndId(check, value as Item, at, "linkage");
}

/**
 * Checks an @-member or an extension's member of a flat resource, kept on
 * the resource as written: a valid member name and a value JSON can carry.
 */
export function checkExtraMember(
  check: Check,
  key: string,
  value: unknown,
  at: string,
  within: object[],
): void {
  if (!MEMBER_NAME.test(key)) {
    add(
      check,
      at,
      `Cannot send member "${key}": the name is not a valid JSON:API member name`,
    );
  }
  checkJson(check, value, at, within);
}

/**
 * Checks an attribute value: JSON, with no `relationships` or `links` member
 * in any object inside and only valid member names once cased.
 */
export function checkAttribute(
  check: Check,
  value: unknown,
  at: string,
  within: object[],
): void {
  findNonJsonValues(value, at, {
    within,
    check: (key) => nameProblem(check.to, key, isNestedReserved),
    casing: check.clashes ? check.to : "none",
  }).forEach((issue) => check.issues.push(issue));
}

function isNestedReserved(wire: string): boolean {
  return wire === "relationships" || wire === "links";
}

// The problem with a field or nested key name, once cased.
function nameProblem(
  to: Casing,
  raw: string,
  reserved: (wire: string) => boolean,
): string | undefined {
  const wire = convertKey(raw, to);
  const shown = wire === raw ? `"${raw}"` : `"${raw}" (sent as "${wire}")`;
  return reserved(wire)
    ? `Cannot send field ${shown}: the name is reserved by JSON:API`
    : MEMBER_NAME.test(wire)
    ? undefined
    : `Cannot send field ${shown}: the name is not a valid JSON:API member name`;
}
