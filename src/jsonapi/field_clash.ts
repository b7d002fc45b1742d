/**
 * Two fields of one resource, or two keys of one object in an attribute
 * value, that the casing makes one key. The passes look at a resource's
 * fields only once the casing's conversions say a clash may be there
 * (`mayHaveClashed`); when one is, {@linkcode locateClash} walks the
 * document again to say which and where.
 *
 * @module
 */

import {
  clashIn,
  convertKey,
  escapeToken,
  findClash,
  findKeyClash,
  isIdentityKey,
  isPlainObject,
  KeyClash,
} from "./kit.ts";
import type { Pass } from "./passes.ts";
import type { Check } from "./write_checks.ts";
import type { Flat, Wire } from "./resource_index.ts";

/**
 * Thrown by the passes when two fields of a resource became one key, so
 * that {@linkcode locateClash} finds them.
 */
export const FIELDS_CLASHED: Error = new Error(
  "Two fields of a resource became one key",
);

/** The number of fields of `flat`, its `type`, `id` and `lid` left out. */
export function fieldCount(flat: Flat): number {
  const identity = 1 + (flat.id === undefined ? 0 : 1) +
    (flat.lid === undefined ? 0 : 1);
  return Object.keys(flat).length - identity;
}

/** True when two of `sources`' fields became one key. */
export function fieldsClash(
  pass: Pass,
  sources: (Wire | undefined)[],
): boolean {
  return findClash(fieldNames(pass, sources), pass.casing) !== undefined;
}

/**
 * The first clash in the document, in document order: two attribute names,
 * an attribute and a relationship or two relationships that became one
 * key, or two keys of one object inside an attribute value. A repeat of a
 * resource is passed over, as the passes pass over its fields.
 */
export function locateClash(
  pass: Pass,
  wireAt: (i: number) => Wire,
  pointerOf: (i: number) => string,
): KeyClash | undefined {
  const casing = pass.casing;
  for (let i = 0; i < pass.total; i++) {
    // A repeat's fields are not used: the first occurrence's are.
    if (pass.targets[i] === null) continue;
    const wire = wireAt(i);
    const at = pointerOf(i);
    const attributes = isPlainObject(wire.attributes)
      ? wire.attributes
      : undefined;
    const relationships = isPlainObject(wire.relationships)
      ? wire.relationships
      : undefined;
    const clash =
      clashIn(`${at}/attributes`, fieldNames(pass, [attributes]), casing) ??
        clashIn(at, fieldNames(pass, [attributes, relationships]), casing) ??
        identityClash(pass, [attributes, relationships], at) ??
        valueClash(pass, attributes, `${at}/attributes`);
    if (clash !== undefined) return clash;
  }
  return undefined;
}

// A field that the casing names `type`, `id` or `lid` (`Id` in camelCase),
// which would take the place of the resource's own member.
function identityClash(
  pass: Pass,
  sources: (Wire | undefined)[],
  at: string,
): KeyClash | undefined {
  for (const source of sources) {
    for (const name in source) {
      if (pass.inherited && !Object.hasOwn(source, name)) continue;
      const key = convertKey(name, pass.casing);
      if (key !== name && isIdentityKey(key)) {
        return new KeyClash(at, [key, name], pass.casing);
      }
    }
  }
  return undefined;
}

// A clash inside one of the attribute values.
function valueClash(
  pass: Pass,
  attributes: Wire | undefined,
  at: string,
): KeyClash | undefined {
  for (const name of fieldNames(pass, [attributes])) {
    const clash = findKeyClash(attributes![name], pass.casing);
    if (clash !== undefined) return clash.under(`${at}/${escapeToken(name)}`);
  }
  return undefined;
}

/** The names of `sources`' fields that a flat resource gets, in order. */
export function fieldNames(
  pass: Pass,
  sources: (Wire | undefined)[],
): string[] {
  const names: string[] = [];
  for (const source of sources) {
    for (const name in source) {
      if (pass.inherited && !Object.hasOwn(source, name)) continue;
      if (name.charCodeAt(0) === 64 /* @ */) continue;
      const key = convertKey(name, pass.casing);
      if (!isIdentityKey(key) && !isIdentityKey(name)) names.push(name);
    }
  }
  return names;
}

/**
 * Adds an issue for two fields of the resource at `at` that the casing
 * makes one (attributes and relationships share one namespace): `fields`
 * are the names sent, those with values, each with its path.
 */
export function checkFieldClash(
  check: Check,
  at: string,
  fields: readonly (readonly [name: string, path: string])[],
): void {
  if (!check.clashes || check.to === "none" || fields.length < 2) return;
  const pair = findClash(fields.map(([name]) => name), check.to);
  if (pair === undefined) return;
  const [[first], [second, path]] = [fields[pair[0]]!, fields[pair[1]]!];
  check.issues.push(new KeyClash(at, [first, second], check.to).issue(path));
}
