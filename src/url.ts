/**
 * Joining a target to the base address, and filling `:name` parameters.
 *
 * @module
 */

import type { ValidationIssue } from "./errors.ts";
import { describeValue } from "./json_value.ts";
import { climbsOut } from "./path_segment.ts";
import { baseThenTarget } from "./query_names.ts";
import { hasLoneSurrogate } from "./text.ts";

/**
 * A resolved URL whose path may still hold the target's `:name` segments; a
 * base address's path is kept as written, `:` and all.
 */
export interface UrlTemplate {
  /** The URL with `:name` segments unfilled. */
  url: URL;
  /**
   * The URL's text around its parameters, one more than there are: filled,
   * each parameter's value goes between two of them. Cut once, so that a
   * grab joins no more than its values.
   */
  pieces: string[];
  /** Parameter names with the index of their segment in the path. */
  params: [name: string, index: number][];
  /** The origin, read once: URL getters are not free. */
  origin: string;
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
    const unusable = unusableText(baseURL);
    if (unusable !== undefined) return [issue(unusable)];
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
  let written: Set<string> | undefined;
  for (let i = fixed; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment.length > 1 && segment.charCodeAt(0) === 58 /* : */) {
      // The URL parser percent-encodes a name (`:név`); the endpoint's own
      // spelling is the one the types and the caller use, `%20` included.
      // Only the target is read: the base address's path is encoded already.
      const name = segment.slice(1);
      written ??= writtenSegments(target);
      const spelt = written.has(segment) ? name : decodeName(name);
      params.push([spelt, i]);
    }
  }
  return {
    url,
    pieces: piecesOf(url.origin, segments, params),
    params,
    origin: url.origin,
    search: url.search,
  };
}

/**
 * The segments of the path of `target` as written, split where the URL parser
 * splits an http(s) path: read once, not searched once for each parameter,
 * which took time in the square of a long endpoint's length.
 */
function writtenSegments(target: string): Set<string> {
  const end = target.search(/[?#]/);
  const path = end === -1 ? target : target.slice(0, end);
  return new Set(path.split(/[/\\]/));
}

/** The text of `origin` and `segments` around the `params`' segments. */
function piecesOf(
  origin: string,
  segments: readonly string[],
  params: readonly [string, number][],
): string[] {
  const pieces: string[] = [];
  // Each piece joined at once, flat: built with `+=` a segment at a time it
  // was a rope of some 70 bytes a segment, which the URLs filled from it do
  // not flatten, far past the text the endpoint cache counts.
  let piece = [origin];
  let next = 0;
  for (let i = 0; i < segments.length; i++) {
    if (i > 0) piece.push("/");
    if (params[next]?.[1] === i) {
      pieces.push(piece.join(""));
      piece = [];
      next++;
    } else piece.push(segments[i]!);
  }
  pieces.push(piece.join(""));
  return pieces;
}

// Counted back, not `/\/+$/`: that tries each run of slashes, time in the
// square of the path's length (a base address of "//…//a").
function withoutTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 47 /* / */) end--;
  return path.slice(0, end);
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

/**
 * Why a base address given as text cannot be used although the URL parser
 * may take it: empty, from an unset variable (`createGrab(env.API ?? "")`),
 * not no base at all; or holding a lone surrogate, which it would send as
 * U+FFFD.
 */
function unusableText(baseURL: string | URL): string | undefined {
  if (baseURL === "") {
    return `Cannot use the base address: it is empty; write it in full, such as "${EXAMPLE_BASE}"`;
  }
  if (typeof baseURL === "string" && hasLoneSurrogate(baseURL)) {
    return "Cannot use the base address: it holds a lone surrogate, which is not Unicode text and would go as U+FFFD";
  }
  return undefined;
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
