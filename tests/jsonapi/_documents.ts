/**
 * The JSON:API documents of tests/_fixtures/jsonapi, and helpers to read
 * what `denormalise` makes of a document.
 *
 * @module
 */

import { assert, fail } from "@std/assert";
import { denormalise } from "../../src/jsonapi/denormalise.ts";
import { codecFor } from "../../src/format.ts";

// The JSON:API modules take the core's helpers as the codec loads.
await codecFor("json-api");

/** A denormalised resource. */
export type Flat = Record<string, unknown>;

/** The fixtures whose `<name>.wire.json` denormalises to `<name>.flat.json`. */
export const PAIRS = [
  "compound",
  "sparse_fieldsets",
  "relationship_to_one",
  "relationship_to_many",
  "empty_to_one",
  "empty_to_many",
  "empty_relationships",
  "relationships_without_data",
  "meta_only",
  "lid",
  "single_resource",
  "duplicates",
];

/** The fixture `tests/_fixtures/jsonapi/<name>.json`, parsed. */
export async function readFixture(name: string): Promise<unknown> {
  return JSON.parse(
    await Deno.readTextFile(
      new URL(`../_fixtures/jsonapi/${name}.json`, import.meta.url),
    ),
  );
}

/** The data of a document that must denormalise; fails the test otherwise. */
export function dataOf(
  document: unknown,
  casing?: "camelCase" | "PascalCase",
): unknown {
  const result = denormalise(
    document,
    casing === undefined ? undefined : { casing },
  );
  if (!result.ok) fail(`expected ok, got: ${result.reason}`);
  return result.data;
}

/** `value`, asserted to be an object. */
export function flat(value: unknown): Flat {
  assert(typeof value === "object" && value !== null);
  return value as Flat;
}
