/**
 * Query serialisation: brackets for nested objects, arrays comma-joined
 * (JSON:API) or as repeated keys (JSON), `undefined` and `null` skipped.
 *
 * @module
 */

import { type Casing, convertKey, isPlainObject } from "./casing.ts";

/**
 * `"json"` or `"json-api"`: how bodies and queries are written and read.
 *
 * @example Choosing a format
 * ```ts
 * import createGrab, { type Format } from "@grab/grab";
 * const format: Format = "json-api";
 * const grab = createGrab("https://api.example.com/v1", { format });
 * ```
 */
export type Format = "json" | "json-api";

/** Options of {@linkcode serialiseQuery}. */
export interface SerialiseQueryOptions {
  /** Arrays are comma-joined in `"json-api"`, repeated keys in `"json"`. */
  format: Format;
  /** Casing for keys at every level, except type names inside `fields[…]`. */
  casing?: Casing;
}

/**
 * Appends `query` to `params`.
 *
 * @example
 * ```ts ignore
 * serialiseQuery({ include: ["author", "comments"], page: { size: 10 } },
 *   new URLSearchParams(), { format: "json-api" }).toString();
 * // "include=author%2Ccomments&page%5Bsize%5D=10"
 * serialiseQuery({ tag: ["a", "b"], q: null }, new URLSearchParams(),
 *   { format: "json" }).toString();
 * // "tag=a&tag=b"
 * ```
 */
export function serialiseQuery(
  query: URLSearchParams | Record<string, unknown>,
  params: URLSearchParams,
  options: SerialiseQueryOptions,
): URLSearchParams {
  if (query instanceof URLSearchParams) {
    for (const [key, value] of query) params.append(key, value);
    return params;
  }
  const casing = options.casing ?? "none";
  const joinArrays = options.format === "json-api";
  // Each entry: value, the key written so far, and whether keys below are type names.
  const stack: [unknown, string, boolean][] = [];
  const keys = Object.keys(query);
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i]!;
    stack.push([query[key], convertKey(key, casing), key === "fields"]);
  }
  while (stack.length > 0) {
    const [value, name, typeNamesBelow] = stack.pop()!;
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) {
      if (joinArrays && value.every(isScalar)) {
        const kept = value.filter((item) =>
          item !== undefined && item !== null
        );
        if (kept.length > 0) params.append(name, kept.map(scalar).join(","));
        continue;
      }
      for (let i = value.length - 1; i >= 0; i--) {
        const item = value[i];
        stack.push([item, isScalar(item) ? name : `${name}[${i}]`, false]);
      }
    } else if (isPlainObject(value)) {
      const inner = Object.keys(value);
      for (let i = inner.length - 1; i >= 0; i--) {
        const key = inner[i]!;
        const written = typeNamesBelow ? key : convertKey(key, casing);
        stack.push([value[key], `${name}[${written}]`, false]);
      }
    } else {
      params.append(name, scalar(value));
    }
  }
  return params;
}

function isScalar(value: unknown): boolean {
  return value === null || typeof value !== "object" || value instanceof Date;
}

function scalar(value: unknown): string {
  return value instanceof Date ? value.toISOString() : String(value);
}
