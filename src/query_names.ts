/**
 * The queries of one request URL joined: the base address's, the target's
 * and the call's, each parameter named in one of them only.
 *
 * @module
 */

import type { ValidationIssue } from "./errors.ts";
import { cutName, queryProblem } from "./query_budget.ts";

const ONE_PLACE =
  "so the server would read one of them, or both as a list; give it in one place";

/**
 * The base address's query (`?…`) before the target's own (`?…`), or the
 * issue that a name is in both.
 */
export function baseThenTarget(
  base: string,
  target: string,
): string | ValidationIssue {
  if (target === "") return base;
  if (base === "") return target;
  const twice = sharedName(base, target);
  if (twice === undefined) return base + "&" + target.slice(1);
  return {
    path: "",
    message: `Cannot use the target: its query names "${
      cutName(twice)
    }", which the base address's query names too, ${ONE_PLACE}`,
  };
}

/**
 * The endpoint's query (`""` or `?…`) with the call's serialised `query`
 * after it, or the issue that a name is in both.
 */
export function endpointThenCall(
  search: string,
  query: string,
): string | ValidationIssue {
  if (query === "") return search;
  if (search === "") return "?" + query;
  const twice = sharedName(search, query);
  if (twice === undefined) return search + "&" + query;
  const problem =
    `the endpoint's query (its target's or its base address's) names it too, ${ONE_PLACE}`;
  return { path: "", message: queryProblem(problem, twice) };
}

/**
 * A parameter name of `added` that `search` has too, compared decoded, as a
 * server reads them. A name repeated within one of them is its writer's own
 * list (`?tag=a&tag=b`).
 */
function sharedName(search: string, added: string): string | undefined {
  const names = new Set(new URLSearchParams(search).keys());
  for (const name of new URLSearchParams(added).keys()) {
    if (names.has(name)) return name;
  }
  return undefined;
}
