/**
 * Filling a URL template's `:name` parameters, and serialising the query
 * that goes after its own.
 *
 * @module
 */

import type { ValidationIssue } from "./errors.ts";
import { segmentProblem } from "./path_segment.ts";
import { serialiseQuery } from "./query.ts";
import { endpointThenCall } from "./query_names.ts";
import type { Resolved } from "./resolve.ts";
import type { UrlTemplate } from "./url.ts";

/**
 * The request URL: parameters filled with `encodeURIComponent`, `extraQuery`
 * appended to the query (the base's and the target's own).
 *
 * @example
 * ```ts ignore
 * fillUrl(joinUrl("https://api.test", "/users/:id", false), { id: "a b" }, "x=1");
 * // "https://api.test/users/a%20b?x=1"
 * ```
 */
export function fillUrl(
  template: UrlTemplate,
  values: Readonly<Record<string, unknown>> | undefined,
  extraQuery: string,
): string | ValidationIssue[] {
  const { params, pieces } = template;
  let target = pieces[0]!;
  let issues = values === undefined
    ? undefined
    : unusedParams(template, values);
  for (let at = 0; at < params.length; at++) {
    const name = params[at]![0];
    const value = paramValue(values, name);
    const problem = segmentProblem(value);
    if (problem !== undefined) {
      const message =
        `Cannot fill path parameter "${name}": value is ${problem}`;
      (issues ??= []).push({ path: "", message });
      continue;
    }
    target += encodeURIComponent(String(value)) + pieces[at + 1];
  }
  if (issues !== undefined) return issues;
  const search = endpointThenCall(template.search, extraQuery);
  return typeof search === "string" ? target + search : [search];
}

/**
 * The values of the template's parameters in `values`, read now into an
 * object of their own, for a URL filled later.
 */
export function paramsNow(
  template: UrlTemplate,
  values: Readonly<Record<string, unknown>> | undefined,
): Readonly<Record<string, unknown>> | undefined {
  if (values === undefined) return undefined;
  return Object.fromEntries(
    template.params.map(([name]) => [name, paramValue(values, name)]),
  );
}

/**
 * The value given for `name`. A name that every object has (`:constructor`,
 * `:toString`) is taken only from the caller's own keys: not given, it is
 * missing, not the function `Object.prototype` holds.
 */
function paramValue(
  values: Readonly<Record<string, unknown>> | undefined,
  name: string,
): unknown {
  if (values === undefined) return undefined;
  return name in Object.prototype && !Object.hasOwn(values, name)
    ? undefined
    : values[name];
}

/**
 * A parameter that no `:name` segment takes would be dropped without a word
 * (a query value, a misspelt name); one whose value is `undefined` is none.
 * The names and the path are looked at once, not once a key: a long path
 * and many keys took time in their product.
 */
function unusedParams(
  template: UrlTemplate,
  values: Readonly<Record<string, unknown>>,
): ValidationIssue[] | undefined {
  let issues: ValidationIssue[] | undefined;
  const keys = Object.keys(values);
  // A set only where it pays: the few names of most paths are read faster.
  const names = keys.length * template.params.length > 64
    ? new Set(template.params.map(([name]) => name))
    : undefined;
  let segments: Set<string> | undefined;
  for (const key of keys) {
    if (values[key] === undefined) continue;
    if (names === undefined ? isParam(template, key) : names.has(key)) continue;
    segments ??= new Set(template.url.pathname.split("/"));
    const why = segments.has(`:${key}`)
      ? `the base address's ":${key}" is kept as written; write the value into the base address, or the segment into the endpoint`
      : `the target has no ":${key}" segment (query values go in "query")`;
    const message = `Cannot use path parameter "${key}": ${why}`;
    (issues ??= []).push({ path: "", message });
  }
  return issues;
}

function isParam(template: UrlTemplate, key: string): boolean {
  for (const [name] of template.params) if (name === key) return true;
  return false;
}

/**
 * The query serialised, keys in the wire casing (a `URLSearchParams` is
 * taken as it is); `""` without one. Throws a `GrabValidationError` for a
 * query that refers to itself or nests too deep.
 */
export function searchOf(resolved: Resolved): string {
  const { query, casing } = resolved;
  if (query === undefined) return "";
  return serialiseQuery(query, new URLSearchParams(), {
    format: resolved.format,
    casing: casing === "none" || query instanceof URLSearchParams
      ? "none"
      : resolved.wireCasing,
  }).toString();
}
