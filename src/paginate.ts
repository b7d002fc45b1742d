/**
 * `paginate`: an async iterator over pages that follows `next` links.
 *
 * @module
 */

import { FOREIGN, TELL_FORMAT } from "./create_grab.ts";
import type {
  Grab,
  IdleFor,
  PageArgs,
  PageOptions,
  ParamsFor,
  SchemaFor,
} from "./grab_types.ts";
import { type Endpoint, parseEndpoint } from "./endpoint.ts";
import type { GrabTransportError } from "./errors.ts";
import { validationError } from "./validation_error.ts";
import { transportError } from "./transport_error.ts";
import { unreadable } from "./thrown.ts";
import { combineHooks } from "./hook_chain.ts";
import { HOOK_NAMES, type Hooks } from "./hooks.ts";
import { nextLink, unfollowable } from "./next_link.ts";
import { samePage } from "./page_spelling.ts";
import { Trail } from "./page_trail.ts";
import { member } from "./object.ts";
import { readMembers } from "./read_options.ts";
import { walkOptions } from "./page_options.ts";
import type { GrabCallOptions } from "./call_options.ts";
import type { OrThrowResult } from "./or_throw.ts";
import type {
  DataOf,
  ReadAs,
  ResponseType,
  SchemaDataOf,
} from "./response_type.ts";
import type { SchemaOutput, StandardSchema } from "./schema.ts";

/**
 * Iterates over pages, each `[data, meta]`. The first request uses `options`
 * (query included); later ones follow the `next` link as given: the JSON:API
 * document's `links.next` (a string or a link object), or in JSON mode an RFC
 * 8288 `Link: <…>; rel="next"` header. A relative link is resolved against
 * the URL of the response that carried it.
 *
 * It stops at the last page, after `options.limit` pages (the last one's next
 * link unread), at a link it has already followed, or at one redirected to a
 * page it has read (that page is not yielded again); it throws the first
 * failure as {@linkcode orThrow} would.
 *
 * @typeParam Data The data of each page (each JSON value, or each NDJSON
 * value); the factory's or the options' `responseType` types it otherwise.
 * @param grab A grab callable from {@linkcode createGrab}.
 * @param endpoint The first page's endpoint; its `:name` segments need
 * `params`, as a grab's do.
 * @param options Options of every request, plus `limit`, the most pages to fetch.
 * @returns An async iterator of `[data, meta]`.
 * @throws {GrabError} when a page answers with a status outside 2xx.
 * @throws {GrabTransportError} when a page cannot be fetched or read, or its
 * next link cannot be followed (not an http(s) URL, credentials in it).
 * @throws {GrabValidationError} before any request, for what a grab refuses,
 * a `grab` that is not a function, a `limit` that is not a non-negative
 * integer or `Infinity`, and a `ReadableStream` body, which every page would
 * need again.
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
  R extends ResponseType | undefined = D,
>(
  grab: Grab<D>,
  endpoint: E,
  ...options: PageArgs<
    E,
    PageOptions & { responseType?: R } & IdleFor<ReadAs<R, D>>
  >
): AsyncGenerator<OrThrowResult<DataOf<ReadAs<R, D>, Data>>, void, undefined>;
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
  R extends ResponseType | undefined = D,
>(
  grab: Grab<D>,
  endpoint: E,
  options:
    & PageOptions
    & ParamsFor<E>
    & SchemaFor<R, S, D>
    & IdleFor<ReadAs<R, D>>,
): AsyncGenerator<
  OrThrowResult<SchemaDataOf<ReadAs<R, D>, SchemaOutput<S>>>,
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
  const { limit, first } = walkOptions(grab, options);
  const { method } = parseEndpoint(endpoint);
  const trail = new Trail();
  const withTracking = (call: GrabCallOptions): GrabCallOptions =>
    Object.assign(
      { ...call, hooks: tracked(call, trail.hooks) },
      { [TELL_FORMAT]: trail.tellFormat },
    );
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
    trail.responseUrl = "";
    trail.again = false;
    const [data, error, meta] = await (grab as (
      endpoint: Endpoint,
      options: GrabCallOptions,
    ) => ReturnType<Grab>)(current, callOptions);
    // That page again: the loop has come back round.
    if (trail.again) return;
    if (error !== null) throw error;
    // A document read as text, bytes or a blob still holds its next link.
    const links = meta.links ?? await trail.documentLinks(data, page, limit);
    const { requestUrl, responseUrl, seen } = trail;
    // The last page's next link is never followed, so not read; the others
    // are read before the yield, as the loop may change `meta.links`.
    const last = responseUrl === "" || page + 1 === limit;
    const next = last ? undefined : nextLink(links, meta.headers, responseUrl);
    yield [data, meta];
    if (next === undefined) return;
    origin ??= new URL(requestUrl).origin;
    // A page redirected elsewhere was read at both URLs.
    seen.add(samePage(requestUrl)).add(samePage(responseUrl));
    if (typeof next === "string") throw cannotFollow(method, responseUrl, next);
    const nextPage = samePage(next.href);
    if (seen.has(nextPage)) return;
    const refused = unfollowable(next);
    if (refused !== undefined) throw cannotFollow(method, responseUrl, refused);
    seen.add(nextPage);
    current = `${method} ${next.href}` as Endpoint;
    bare ||= next.origin !== origin || new URL(responseUrl).origin !== origin;
    callOptions = bare
      ? Object.assign(withTracking(anonymous), { [FOREIGN]: true })
      : withTracking(rest);
  }
}

/**
 * A next link that cannot be followed: the server's data, not the caller's
 * input, so a failure of the page that carried it.
 */
function cannotFollow(
  method: string,
  href: string,
  reason: string,
): GrabTransportError {
  return transportError("parse", method, href, {
    message: `Cannot follow the next link: ${reason}`,
  });
}

/**
 * The hooks of `call`, read as a grab reads them (`null` is none, a hook
 * keeps its object as `this`), then paginate's. Hooks that are not an
 * object of functions, or that have a member no hook is named (a misspelt
 * one), are left as read, for the grab to refuse; hooks that cannot be read
 * are refused.
 */
function tracked(call: GrabCallOptions, track: Hooks): Hooks {
  // `call` is a rest object, with a prototype: its own hooks only.
  const hooks = (member(call, "hooks") ?? undefined) as Hooks | undefined;
  if (hooks === undefined) return track;
  if (typeof hooks !== "object") return hooks;
  let own: Record<string, unknown>;
  try {
    own = readMembers(hooks as Record<string, unknown>, HOOK_NAMES);
  } catch (error) {
    throw validationError([unreadable("the hooks", error)]);
  }
  const wrong = Object.entries(own).some(([name, hook]) =>
    hook !== undefined && hook !== null &&
    (typeof hook !== "function" ||
      !(HOOK_NAMES as readonly string[]).includes(name))
  );
  return wrong ? own : combineHooks(own, track)!;
}
