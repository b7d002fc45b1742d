/**
 * Joining a target to the base address, and filling `:name` parameters.
 *
 * @module
 */

import type { ValidationIssue } from "./errors.ts";
import { describeValue } from "./json_value.ts";
import { climbsOut, segmentProblem } from "./path_segment.ts";
import { baseThenTarget, endpointThenCall } from "./query_names.ts";

/**
 * A resolved URL whose path may still hold the target's `:name` segments; a
 * base address's path is kept as written, `:` and all.
 */
export interface UrlTemplate {
  /** The URL with `:name` segments unfilled. */
  url: URL;
  /** The path split at `/`. */
  segments: string[];
  /** Parameter names with their index in `segments`. */
  params: [name: string, index: number][];
  /** The origin, read once: URL getters are not free. */
  origin: string;
  /** `origin + pathname`. */
  base: string;
  /** The base's query and the target's own, `""` or starting with `?`. */
  search: string;
}

/**
 * Resolves `target` against `baseURL`, keeping the base's path and its
 * query (before the target's own; an absolute target has neither).
 * Returns the issues instead when the result is not a usable http(s) URL.
 *
 * @example
 * ```ts ignore
 * joinUrl("https://api.test/v1/?key=k", "/users/:id?active=1").url.href;
 * // "https://api.test/v1/users/:id?key=k&active=1"
 * ```
 */
export function joinUrl(
  baseURL: string | URL | undefined,
  target: string,
  absolute: boolean,
): UrlTemplate | ValidationIssue[] {
  let text = target;
  let baseQuery = "";
  // The segments the base address's path fills: kept as written, a `:name`
  // among them included (the endpoint's own are the parameters).
  let fixed = 0;
  if (!absolute) {
    if (baseURL === undefined) {
      return [issue(
        "Cannot resolve the relative target: no base address was given",
      )];
    }
    // An unset variable (`createGrab(env.API ?? "")`), not no base at all.
    if (baseURL === "") {
      return [issue(
        `Cannot use the base address: it is empty; write it in full, such as "${EXAMPLE_BASE}"`,
      )];
    }
    const base = parse(baseURL) ?? onPage(baseURL);
    if (base === undefined) return [issue(unparsedBase(baseURL))];
    const problem = checkUrl(base, "base address");
    if (problem !== undefined) return [problem];
    if (climbsOut(target)) {
      return [issue(
        'Cannot use the target: it has a ".." segment, which could leave the base address\'s path',
      )];
    }
    const basePath = withoutTrailingSlashes(base.pathname);
    fixed = basePath.split("/").length;
    text = base.origin + basePath + target;
    baseQuery = base.search;
  }
  const url = parse(text);
  if (url === undefined) {
    return [issue("Cannot use the target: it is not a valid URL")];
  }
  const problem = checkUrl(url, "target");
  if (problem !== undefined) return [problem];
  url.hash = "";
  const search = baseThenTarget(baseQuery, url.search);
  if (typeof search !== "string") return [search];
  if (search !== url.search) url.search = search;
  const segments = url.pathname.split("/");
  const params: [string, number][] = [];
  for (let i = fixed; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.length > 1 && segment.charCodeAt(0) === 58 /* : */) {
      // The URL parser percent-encodes a name (`:név`); the endpoint's own
      // spelling is the one the types and the caller use, `%20` included.
      const name = segment.slice(1);
      const spelt = text.includes(`:${name}`) ? name : decodeName(name);
      params.push([spelt, i]);
    }
  }
  return {
    url,
    segments,
    params,
    origin: url.origin,
    base: url.origin + url.pathname,
    search: url.search,
  };
}

// Counted back, not `/\/+$/`: that tries each run of slashes, time in the
// square of the path's length (a base address of "//…//a").
function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 47 /* / */) end--;
  return path.slice(0, end);
}

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
  let target = template.base;
  let issues = values === undefined
    ? undefined
    : unusedParams(template, values);
  if (template.params.length > 0) {
    const segments = template.segments.slice();
    for (const [name, index] of template.params) {
      const value = paramValue(values, name);
      const problem = segmentProblem(value);
      if (problem !== undefined) {
        (issues ??= []).push(
          issue(`Cannot fill path parameter "${name}": value is ${problem}`),
        );
        continue;
      }
      segments[index] = encodeURIComponent(String(value));
    }
    target = template.origin + segments.join("/");
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
 */
function unusedParams(
  template: UrlTemplate,
  values: Readonly<Record<string, unknown>>,
): ValidationIssue[] | undefined {
  let issues: ValidationIssue[] | undefined;
  for (const key of Object.keys(values)) {
    if (values[key] === undefined) continue;
    if (template.params.some(([name]) => name === key)) continue;
    const why = template.url.pathname.split("/").includes(`:${key}`)
      ? `the base address's ":${key}" is kept as written; write the value into the base address, or the segment into the endpoint`
      : `the target has no ":${key}" segment (query values go in "query")`;
    (issues ??= []).push(issue(`Cannot use path parameter "${key}": ${why}`));
  }
  return issues;
}

function parse(value: string | URL): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/**
 * A base address that is a path (`"/api"`), resolved against the page (or
 * worker, or Deno's `--location`) grab runs in, as `fetch` there resolves
 * one; `undefined` where there is no such location or the base is no path.
 */
function onPage(baseURL: unknown): URL | undefined {
  if (typeof baseURL !== "string" || !baseURL.startsWith("/")) return undefined;
  try {
    const page = (globalThis as { location?: { href?: unknown } }).location
      ?.href;
    return typeof page === "string" ? new URL(baseURL, page) : undefined;
  } catch {
    // Deno without `--location` throws on the read.
    return undefined;
  }
}

/** Why a base address that is not a URL cannot be used, and what to give. */
function unparsedBase(baseURL: unknown): string {
  if (typeof baseURL === "string") {
    const why = baseURL.startsWith("/")
      ? "it is a path, which only a page's (or worker's) location resolves, and there is none here"
      : "it is not a valid URL";
    return `Cannot use the base address: ${why}; write it in full, such as "${EXAMPLE_BASE}"`;
  }
  // Options given first (`createGrab({ baseURL })`); not looked into, as a
  // revoked Proxy cannot be.
  if (typeof baseURL === "object" && baseURL !== null) {
    return "Cannot use the base address: it must be a string or a URL, not an object (createGrab takes the options as its second argument)";
  }
  return `Cannot use the base address: it must be a string or a URL, not ${
    describeValue(baseURL)
  }`;
}

const EXAMPLE_BASE = "https://api.example.com";

function checkUrl(url: URL, what: string): ValidationIssue | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    // Only a scheme and no host: a host written without one
    // (`localhost:8000` parses as the scheme `localhost:`).
    const hint = what === "base address" && url.host === ""
      ? `; write it in full, such as "${EXAMPLE_BASE}"`
      : "";
    return issue(
      `Cannot use the ${what}: only http and https are supported${hint}`,
    );
  }
  if (url.username !== "" || url.password !== "") {
    return issue(
      `Cannot use the ${what}: it holds credentials; send them in a header`,
    );
  }
  return undefined;
}

function issue(message: string): ValidationIssue {
  return { path: "", message };
}

function decodeName(name: string): string {
  if (!name.includes("%")) return name;
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/**
 * The text of a `URL` base address, read once; anything else as it is, for
 * {@linkcode joinUrl} to refuse (a revoked Proxy throws when asked whether
 * it is a `URL`).
 */
export function baseText(
  baseURL: string | URL | undefined,
): string | URL | undefined {
  try {
    return baseURL instanceof URL ? baseURL.href : baseURL;
  } catch {
    return baseURL;
  }
}
