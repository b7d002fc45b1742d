/**
 * The `next` link of a page, as `paginate` reads it: from a JSON:API
 * document's `links` or an RFC 8288 `Link` header.
 *
 * @module
 */

import { parseLinkHeader } from "./link_header.ts";
import { MAX_URL } from "./path_segment.ts";
import { isPlainObject } from "./object.ts";

/** Why a next link cannot be sent as an endpoint, if it cannot. */
export function unfollowable(next: URL): string | undefined {
  if (next.username !== "" || next.password !== "") {
    return "it holds credentials";
  }
  if (next.pathname.split("/").some((segment) => segment.startsWith(":"))) {
    return "it has a path segment that starts with a colon";
  }
  if (next.href.length > MAX_URL) {
    const length = next.href.length.toLocaleString("en-US");
    return `it is ${length} characters long, more than fetch sends in Deno`;
  }
  return undefined;
}

/**
 * The next page's URL, without its fragment; `undefined` at the end; or,
 * for a next link that is there but cannot be followed, why not. A JSON:API
 * document that has a `next` link decides, even when it is `null` (the last
 * page); only without one does the `Link` header. A link that is not a URL,
 * or not an http(s) one (`javascript:`, `data:`, `file:`), is refused rather
 * than taken for the end: the pages after it would be lost unseen.
 */
export function nextLink(
  links: Record<string, unknown> | undefined,
  headers: Headers,
  base: string,
): URL | string | undefined {
  let href: unknown;
  if (links === undefined || !Object.hasOwn(links, "next")) {
    href = parseLinkHeader(headers.get("link"), base, "next")
      .get("next");
  } else {
    const link = links["next"];
    if (link === null) return undefined;
    href = typeof link === "object" && !Array.isArray(link)
      ? (link as { href?: unknown }).href
      : link;
    if (typeof href !== "string") {
      return "the document's links.next is neither a URL nor a link object with an href";
    }
  }
  if (href === undefined || href === "") return undefined;
  let url: URL;
  try {
    url = new URL(href as string, base);
  } catch {
    return "it is not a valid URL";
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return "it is not an http or https URL";
  }
  url.hash = "";
  return url;
}

/**
 * The `links` of a JSON:API document that a page holds unparsed (read as
 * text, bytes or a blob), for its next link; `undefined` when the page holds
 * no such document (a stream, a body that is not JSON), whose `Link` header
 * then decides.
 */
export async function documentLinks(
  data: unknown,
): Promise<Record<string, unknown> | undefined> {
  let text: string;
  if (typeof data === "string") text = data;
  else if (data instanceof Uint8Array) text = new TextDecoder().decode(data);
  else if (data instanceof Blob) text = await data.text();
  else return undefined;
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return undefined;
  }
  const links = isPlainObject(document) ? document["links"] : undefined;
  return isPlainObject(links) ? links : undefined;
}
