/**
 * The endpoint string `"<METHOD> <target>"`: run-time parsing and the
 * compile-time `Endpoint` and path-parameter types.
 *
 * @module
 */

import { hasLoneSurrogate } from "./text.ts";
import { validationError } from "./validation_error.ts";

/**
 * The HTTP methods an endpoint may name, upper case only.
 *
 * @example
 * ```ts
 * import type { HttpMethod } from "@grab/grab";
 * const method: HttpMethod = "PATCH";
 * ```
 */
export type HttpMethod =
  | "GET"
  | "HEAD"
  | "POST"
  | "PUT"
  | "DELETE"
  | "CONNECT"
  | "OPTIONS"
  | "TRACE"
  | "PATCH";

/**
 * The white space an {@linkcode Endpoint} literal may have between its
 * method and its target: one to eight spaces (enough to line endpoints up in
 * a column) or a tab.
 * @internal
 */
export type EndpointGap =
  | " "
  | "  "
  | "   "
  | "    "
  | "     "
  | "      "
  | "       "
  | "        "
  | "\t";

/**
 * `"<METHOD> <target>"`: an upper-case method, white space (one to eight
 * spaces or a tab), and a target that is absolute (`http://`, `https://`)
 * or starts with `/`. A lower-case or unknown method, or any other target,
 * is a compile error.
 *
 * @example
 * ```ts
 * import type { Endpoint } from "@grab/grab";
 * const read: Endpoint = "GET /users/:id";
 * const absolute: Endpoint = "POST https://api.example.com/upload";
 * const aligned: Endpoint[] = ["GET    /users", "DELETE /users/:id"];
 * ```
 */
export type Endpoint =
  | `${HttpMethod}${EndpointGap}/${string}`
  | `${HttpMethod}${EndpointGap}http://${string}`
  | `${HttpMethod}${EndpointGap}https://${string}`;

type TrimStart<T extends string> = T extends `${" " | "\t"}${infer R}`
  ? TrimStart<R>
  : T;
type TargetOf<E extends string> = TrimStart<E> extends `${HttpMethod}${infer T}`
  ? TrimStart<T>
  : E;
// The path: no fragment (which may hold a "?"), then no query.
type PathOf<T extends string> = T extends `${infer P}#${string}` ? PathOf<P>
  : T extends `${infer P}?${string}` ? P
  : T;
// The target ends at white space (trailing white space is ignored).
type Word<T extends string> = T extends `${infer W} ${string}` ? Word<W>
  : T extends `${infer W}\t${string}` ? Word<W>
  : T extends `${infer W}\n${string}` ? Word<W>
  : T extends `${infer W}\r${string}` ? W
  : T;
// The URL parser reads a backslash in an http(s) path as a slash. This and
// `NamesIn` carry what they have found in `Done`, so that each recursion is
// a tail call, which TypeScript follows 1,000 deep rather than 50: a path
// with 50 parameters or backslashes stays a type, not error TS2589.
type Slashed<P extends string, Done extends string = ""> = P extends
  `${infer A}\\${infer B}` ? Slashed<B, `${Done}${A}/`>
  : `${Done}${P}`;
type NamesIn<P extends string, Done extends string = never> = P extends
  `${string}/:${infer Rest}`
  ? Rest extends `${infer Name}/${infer Tail}`
    ? NamesIn<`/${Tail}`, Done | Name>
  : Done | Rest
  : Done;

/**
 * The `:name` path parameters of an endpoint literal, as a union of names;
 * a lone `:` segment is no parameter.
 */
export type PathParamNames<E extends string> = Exclude<
  NamesIn<Slashed<PathOf<Word<TargetOf<E>>>>>,
  ""
>;

/** A path parameter value; numbers are converted with `String`. */
export type PathParamValue = string | number;

/** The methods the parser knows. */
export const HTTP_METHODS: ReadonlySet<string> = new Set<HttpMethod>([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "DELETE",
  "CONNECT",
  "OPTIONS",
  "TRACE",
  "PATCH",
]);

/** A parsed endpoint. */
export interface ParsedEndpoint {
  method: HttpMethod;
  target: string;
  absolute: boolean;
}

const SHAPE = /^(\S+)\s+(\S+)$/;
// A method, a target, and the white space inside the target.
const INSIDE = /^(\S+)\s+\S+(\s)\s*\S/;
const WORD = /^[A-Za-z_-]+$/;
// C0 controls; tab, LF and CR are white space, which ends the target.
// deno-lint-ignore no-control-regex -- control characters are what it finds
const CONTROL = /[\x00-\x1f]/;

/**
 * Parses `"<METHOD> <target>"`; white space around and between the parts is
 * ignored. Throws {@linkcode GrabValidationError} naming what is wrong; the
 * message never repeats the target, which may hold a query token.
 *
 * @example
 * ```ts ignore
 * parseEndpoint("  GET   /users/:id ");
 * // { method: "GET", target: "/users/:id", absolute: false }
 * ```
 */
export function parseEndpoint(text: unknown): ParsedEndpoint {
  const issue = endpointIssue(text);
  if (typeof issue === "string") {
    throw validationError([{ path: "", message: issue }]);
  }
  return issue;
}

function endpointIssue(text: unknown): ParsedEndpoint | string {
  if (typeof text !== "string") {
    return `Cannot parse the endpoint: expected a string such as "GET /users", got ${typeof text}`;
  }
  const trimmed = text.trim();
  const match = SHAPE.exec(trimmed);
  if (match === null) {
    // A method, then a target with white space in it (`?q=hello world`),
    // which the `Endpoint` type lets through.
    const inside = INSIDE.exec(trimmed);
    if (inside !== null && HTTP_METHODS.has(inside[1]!.toUpperCase())) {
      return spaceIssue(inside[2]!);
    }
    return 'Cannot parse the endpoint: expected "<METHOD> <target>" such as "GET /users"';
  }
  const method = match[1]!;
  const target = match[2]!;
  if (!HTTP_METHODS.has(method)) {
    const hint = HTTP_METHODS.has(method.toUpperCase())
      ? `methods are upper case, write "${method.toUpperCase()}"`
      : "use GET, HEAD, POST, PUT, DELETE, OPTIONS or PATCH";
    // Only a word is quoted: what stands first may be the target, written
    // the wrong way round, and its userinfo or query a secret.
    if (!WORD.test(method)) return `Cannot use the method: ${hint}`;
    const shown = method.length > 16 ? method.slice(0, 16) + "…" : method;
    return `Cannot use the method "${shown}": ${hint}`;
  }
  const control = controlIssue(target);
  if (control !== undefined) return control;
  // The URL parser would send U+FFFD in its place, as `params` and `query`
  // refuse to.
  if (hasLoneSurrogate(target)) {
    return "Cannot use the target: it holds a lone surrogate, which is not Unicode text and would go as U+FFFD";
  }
  const absolute = target.startsWith("https://") ||
    target.startsWith("http://");
  if (!absolute && !target.startsWith("/")) {
    return 'Cannot use the target: expected an absolute "http://" or "https://" URL or a path starting with "/"';
  }
  return { method: method as HttpMethod, target, absolute };
}

/**
 * Why a target with white space cannot be used, and how that character is
 * written percent-encoded: a tab is not a space (`%09`, not `%20`).
 */
function spaceIssue(space: string): string {
  const code = space.charCodeAt(0);
  const named = code === 32
    ? ""
    : ` (U+${code.toString(16).toUpperCase().padStart(4, "0")})`;
  return `Cannot use the target: it holds white space${named}, which ends a target; percent-encode it (${
    encodeURIComponent(space)
  }) or give the value in "params" or "query"`;
}

/**
 * Why a target with a control character cannot be used: the URL parser
 * drops one at the end (`/files/a\0` would fetch `/files/a`, `?q=a\0` send
 * `q=a`) and escapes the others.
 */
function controlIssue(target: string): string | undefined {
  const found = CONTROL.exec(target);
  if (found === null) return undefined;
  const code = found[0].charCodeAt(0);
  const hex = (code < 16 ? "0" : "") + code.toString(16).toUpperCase();
  return `Cannot use the target: it holds the control character U+00${hex}; percent-encode it (%${hex}) or give it in "params" or "query"`;
}
