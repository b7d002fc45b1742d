/**
 * What `paginate` learns of each page's exchange through its own
 * `afterResponse` hook: the URL asked, the URL answered, and whether that is
 * a page already read.
 *
 * @module
 */

import type { Hooks } from "./hooks.ts";
import { documentLinks } from "./next_link.ts";
import { PageSet } from "./page_set.ts";
import { samePage } from "./page_spelling.ts";
import { urlOf } from "./platform_response.ts";

/**
 * What paginate learns of each page through its `afterResponse` hook, which
 * runs after the caller's: the URL asked, the URL answered (after
 * redirects), and the pages already read.
 */
export class Trail {
  readonly seen = new PageSet();
  requestUrl = "";
  responseUrl = "";
  /**
   * The request was redirected to a page already read: the same page again,
   * which a link back to it would have ended the loop at. Its body is not
   * read: the response is replaced by an empty one.
   */
  again = false;
  /** The format the last page was read in, as its grab told it. */
  format: string | undefined;
  readonly tellFormat = (format: string): void => {
    this.format = format;
  };
  readonly hooks: Hooks = {
    afterResponse: (request, response) => {
      this.requestUrl = request.url;
      this.responseUrl = urlOf(response, false) || request.url;
      this.again = response.ok && redirected(response) && this.#readBefore();
      if (this.again) return new Response(null, { status: 204 });
    },
  };

  /**
   * The `links` of a JSON:API page that holds its document unparsed (text,
   * bytes, a blob), read before the caller may change the bytes; none for
   * the page that reaches `limit`, whose next link is not read.
   */
  documentLinks(
    data: unknown,
    page: number,
    limit: number,
  ): Promise<Record<string, unknown> | undefined> | undefined {
    if (this.format !== "json-api" || page + 1 >= limit) return undefined;
    return documentLinks(data);
  }

  #readBefore(): boolean {
    const { seen, requestUrl, responseUrl } = this;
    if (responseUrl === requestUrl || seen.size === 0) return false;
    const page = samePage(responseUrl);
    return page !== samePage(requestUrl) && seen.has(page);
  }
}

/**
 * True when `fetch` followed a redirect to the response. Another URL alone
 * tells nothing: a custom `fetch` may ask every page of one proxy URL.
 */
function redirected(response: Response): boolean {
  try {
    return response.redirected === true;
  } catch {
    return false;
  }
}
