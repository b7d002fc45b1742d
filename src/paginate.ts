/**
 * `paginate`: an async iterator over pages that follows `next` links.
 *
 * @module
 */

import { FOREIGN } from "./create_grab.ts";
import type {
  Grab,
  PageArgs,
  PageOptions,
  ParamsFor,
  SchemaFor,
} from "./grab_types.ts";
import { type Endpoint, parseEndpoint } from "./endpoint.ts";
import { validationError } from "./errors.ts";
import { transportError } from "./transport_error.ts";
import { unreadable } from "./redact.ts";
import { combineHooks, HOOK_NAMES, type Hooks } from "./hooks.ts";
import { parseLinkHeader } from "./link_header.ts";
import { urlOf } from "./platform_response.ts";
import { readMembers } from "./resolve.ts";
import type { GrabCallOptions } from "./call_options.ts";
import type { OrThrowResult } from "./or_throw.ts";
import type { DataOf, ResponseType, SchemaDataOf } from "./response_type.ts";
import type { SchemaOutput, StandardSchema } from "./schema.ts";

/**
 * Iterates over pages, each `[data, meta]`. The first request uses `options`
 * (query included); later ones follow the `next` link as given: the JSON:API
 * document's `links.next` (a string or a link object), or in JSON mode an RFC
 * 8288 `Link: <…>; rel="next"` header. A relative link is resolved against
 * the URL of the response that carried it.
 *
 * It stops at the last page, after `options.limit` pages, or at a link it has
 * already followed; it throws the first failure as {@linkcode orThrow} would.
 *
 * @typeParam Data The data of each page (each JSON value, or each NDJSON
 * value); the factory's or the options' `responseType` types it otherwise.
 * @param grab A grab callable from {@linkcode createGrab}.
 * @param endpoint The first page's endpoint; its `:name` segments need
 * `params`, as a grab's do.
 * @param options Options of every request, plus `limit`, the most pages to fetch.
 * @returns An async iterator of `[data, meta]`.
 * @throws {GrabError} when a page answers with a status outside 2xx.
 * @throws {GrabTransportError} when a page cannot be fetched or read.
 *
 * @example Every article, 20 at a time
 * ```ts
 * import createGrab, { paginate } from "@grab/grab";
 * const grab = createGrab("https://api.example.com", { format: "json-api" });
 * for await (const [articles] of paginate<unknown[]>(grab, "GET /articles", {
 *   query: { page: { size: 20 } },
 *   limit: 50,
 * })) {
 *   console.log(articles.length);
 * }
 * ```
 */
export function paginate<
  Data = unknown,
  D extends ResponseType = "json",
  const E extends Endpoint = Endpoint,
  R extends ResponseType = D,
>(
  grab: Grab<D>,
  endpoint: E,
  ...options: PageArgs<E, PageOptions & { responseType?: R | undefined }>
): AsyncGenerator<OrThrowResult<DataOf<R, Data>>, void, undefined>;
/**
 * Iterates over pages checked by a Standard Schema: each page's data is the
 * schema's output.
 *
 * @typeParam S The schema.
 * @param grab A grab callable from {@linkcode createGrab}.
 * @param endpoint The first page's endpoint.
 * @param options Options of every request, with `schema`, plus `limit`.
 * @returns An async iterator of `[data, meta]`.
 */
export function paginate<
  S extends StandardSchema,
  D extends ResponseType = "json",
  const E extends Endpoint = Endpoint,
  R extends ResponseType = D,
>(
  grab: Grab<D>,
  endpoint: E,
  options: PageOptions & ParamsFor<E> & SchemaFor<R, S>,
): AsyncGenerator<
  OrThrowResult<SchemaDataOf<R, SchemaOutput<S>>>,
  void,
  undefined
>;
/**
 * Iterates over pages with options whose `responseType` is not a literal (a
 * variable typed `GrabCallOptions`): each page's data is the type you give.
 *
 * @typeParam Data The data of each page.
 * @param grab A grab callable from {@linkcode createGrab}.
 * @param endpoint The first page's endpoint.
 * @param options Options of every request, plus `limit`.
 * @returns An async iterator of `[data, meta]`.
 */
export function paginate<Data = unknown, const E extends Endpoint = Endpoint>(
  grab: Grab<ResponseType>,
  endpoint: E,
  ...options: PageArgs<
    E,
    PageOptions & { responseType?: ResponseType | undefined }
  >
): AsyncGenerator<OrThrowResult<Data>, void, undefined>;
export async function* paginate(
  grab: Grab<ResponseType>,
  endpoint: Endpoint,
  options: object | null = {},
): AsyncGenerator<OrThrowResult<unknown>, void, undefined> {
  const { limit: given, ...first } = readOptions(options);
  const { method } = parseEndpoint(endpoint);
  const limit = parsePageLimit(given);
  const seen = new Set<string>();
  let requestUrl = "";
  let responseUrl = "";
  const track: Hooks = {
    afterResponse(request, response) {
      requestUrl = request.url;
      responseUrl = urlOf(response, false) || request.url;
    },
  };
  const withTracking = (call: GrabCallOptions): GrabCallOptions => ({
    ...call,
    hooks: tracked(call.hooks ?? undefined, track),
  });
  const { query: _query, params: _params, ...rest } = first;
  // A next link on another origin gets none of the caller's headers, hooks,
  // body or credentials, and none of the factory's headers and hooks.
  const {
    headers: _headers,
    hooks: _hooks,
    body: _body,
    credentials: _credentials,
    ...anonymous
  } = rest;
  let origin: string | undefined;
  // Once a page came from elsewhere, the links it gives (back home too) are
  // another server's choice: every later page goes bare.
  let bare = false;
  let current: Endpoint = endpoint;
  let callOptions: GrabCallOptions = withTracking(first);
  for (let page = 0; page < limit; page++) {
    responseUrl = "";
    const [data, error, meta] = await (grab as (
      endpoint: Endpoint,
      options: GrabCallOptions,
    ) => ReturnType<Grab>)(current, callOptions);
    if (error !== null) throw error;
    yield [data, meta];
    if (responseUrl === "") return;
    origin ??= new URL(requestUrl).origin;
    seen.add(samePage(responseUrl));
    const next = nextLink(meta.links, meta.headers, responseUrl);
    if (next === undefined || seen.has(samePage(next.href))) return;
    const refused = unfollowable(next);
    if (refused !== undefined) {
      // The server's data, not the caller's input: a failure of the page.
      throw transportError("parse", method, next.href, {
        message: `Cannot follow the next link: ${refused}`,
      });
    }
    seen.add(samePage(next.href));
    current = `${method} ${next.href}` as Endpoint;
    bare ||= next.origin !== origin || new URL(responseUrl).origin !== origin;
    callOptions = bare
      ? Object.assign(withTracking(anonymous), { [FOREIGN]: true })
      : withTracking(rest);
  }
}

/** The options, each read once; options that cannot be read are refused. */
function readOptions(
  options: object | null,
): GrabCallOptions & { limit?: number | null } {
  try {
    // Each grab checks the options it is given.
    return { ...options } as GrabCallOptions & { limit?: number | null };
  } catch (error) {
    throw validationError([unreadable("the options", error)]);
  }
}

/**
 * The caller's hooks, read as a grab reads them (`null` is none, a hook
 * keeps its object as `this`), then paginate's. Hooks that are not an
 * object of functions are left as given, for the grab to refuse; hooks that
 * cannot be read are refused.
 */
function tracked(hooks: Hooks | undefined, track: Hooks): Hooks {
  if (hooks === undefined) return track;
  if (typeof hooks !== "object") return hooks;
  let own: Record<string, unknown>;
  try {
    own = readMembers(hooks as Record<string, unknown>, HOOK_NAMES);
  } catch (error) {
    throw validationError([unreadable("the hooks", error)]);
  }
  const wrong = HOOK_NAMES.some((name) =>
    own[name] !== undefined && typeof own[name] !== "function"
  );
  return wrong ? own : combineHooks(own, track)!;
}

/**
 * The most pages to fetch: a non-negative integer, or `Infinity` (also for
 * `null` and `undefined`). Anything else would quietly fetch no page or one
 * page more than asked, so it is refused before any request.
 */
function parsePageLimit(limit: unknown): number {
  if (limit === undefined || limit === null || limit === Infinity) {
    return Infinity;
  }
  if (Number.isSafeInteger(limit) && (limit as number) >= 0) {
    return limit as number;
  }
  throw validationError([{
    path: "/limit",
    message:
      'Cannot use the option "limit": it must be a non-negative integer or Infinity',
  }]);
}

/** Why a next link cannot be sent as an endpoint, if it cannot. */
function unfollowable(next: URL): string | undefined {
  if (next.username !== "" || next.password !== "") {
    return "it holds credentials";
  }
  if (next.pathname.split("/").some((segment) => segment.startsWith(":"))) {
    return "it has a path segment that starts with a colon";
  }
  return undefined;
}

/**
 * A page's URL as one spelling of the page: no fragment, and each escape in
 * its query in one form, so that `page[size]=10` and `page%5Bsize%5D=10` (as
 * grab writes a `query`), `a,b` and `a%2Cb`, `+` and `%20` are one page.
 * Nothing is decoded to text: two cursors of other bytes (`%80`, `%81`) that
 * are no UTF-8 stay two pages, and `%2B`, `%26`, `%3D`, `%3B` stay escaped.
 */
function samePage(href: string): string {
  const end = href.indexOf("#");
  const bare = end === -1 ? href : href.slice(0, end);
  const at = bare.indexOf("?");
  if (at === -1) return bare;
  const query = bare.slice(at + 1).replace(ESCAPE, (escape) => {
    if (escape === "+") return "%20";
    const char = String.fromCharCode(parseInt(escape.slice(1), 16));
    return BARE.test(char) ? char : escape.toUpperCase();
  });
  return query === "" ? bare.slice(0, at) : `${bare.slice(0, at)}?${query}`;
}

const ESCAPE = /\+|%[0-9A-Fa-f]{2}/g;
// What a query may carry unescaped with the same meaning either way.
const BARE = /^[\w\-.~[\],:@!$'()*/?]$/;

/**
 * The next page's URL, without its fragment, or `undefined` at the end. A
 * JSON:API document that has a `next` link decides, even when it is `null`
 * (the last page); only without one does the `Link` header.
 */
function nextLink(
  links: Record<string, unknown> | undefined,
  headers: Headers,
  base: string,
): URL | undefined {
  const link = links?.["next"];
  let href: unknown = link;
  if (typeof link === "object" && link !== null) {
    href = (link as { href?: unknown }).href;
  }
  if (links === undefined || !Object.hasOwn(links, "next")) {
    href = parseLinkHeader(headers.get("link"), base).get("next");
  }
  if (typeof href !== "string" || href === "") return undefined;
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  url.hash = "";
  return url;
}
