/**
 * `paginate`: an async iterator over pages that follows `next` links.
 *
 * @module
 */

import type { Grab } from "./create_grab.ts";
import type { Endpoint } from "./endpoint.ts";
import { combineHooks, type Hooks } from "./hooks.ts";
import { parseLinkHeader } from "./link_header.ts";
import type { GrabCallOptions } from "./options.ts";
import type { OrThrowResult } from "./or_throw.ts";

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
 * @typeParam Data The data of each page.
 * @param grab A grab callable from {@linkcode createGrab}.
 * @param endpoint The first page's endpoint.
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
export async function* paginate<Data = unknown>(
  grab: Grab,
  endpoint: Endpoint,
  options: GrabCallOptions & { limit?: number } = {},
): AsyncGenerator<OrThrowResult<Data>, void, undefined> {
  const { limit = Infinity, ...first } = options;
  const method = endpoint.trim().split(/\s+/)[0];
  const seen = new Set<string>();
  let responseUrl = "";
  const track: Hooks = {
    afterResponse(request, response) {
      responseUrl = response.url || request.url;
    },
  };
  const withTracking = (call: GrabCallOptions): GrabCallOptions => ({
    ...call,
    hooks: combineHooks(call.hooks, track)!,
  });
  const { query: _query, params: _params, ...rest } = first;
  let current: Endpoint = endpoint;
  let callOptions: GrabCallOptions = withTracking(first);
  for (let page = 0; page < limit; page++) {
    responseUrl = "";
    const [data, error, meta] = await (grab as (
      endpoint: Endpoint,
      options: GrabCallOptions,
    ) => ReturnType<Grab>)(current, callOptions);
    if (error !== null) throw error;
    yield [data as Data, meta];
    if (responseUrl === "") return;
    seen.add(responseUrl);
    const next = nextLink(meta.links?.["next"], meta.headers, responseUrl);
    if (next === undefined || seen.has(next)) return;
    seen.add(next);
    current = `${method} ${next}` as Endpoint;
    callOptions = withTracking(rest);
  }
}

function nextLink(
  link: unknown,
  headers: Headers,
  base: string,
): string | undefined {
  let href: unknown = link;
  if (typeof link === "object" && link !== null) {
    href = (link as { href?: unknown }).href;
  }
  if (typeof href === "string" && href !== "") {
    try {
      const url = new URL(href, base);
      if (url.protocol === "http:" || url.protocol === "https:") {
        return url.href;
      }
    } catch {
      return undefined;
    }
    return undefined;
  }
  const fromHeader = parseLinkHeader(headers.get("link"), base).get("next");
  if (fromHeader === undefined) return undefined;
  return fromHeader.startsWith("http://") || fromHeader.startsWith("https://")
    ? fromHeader
    : undefined;
}
