/**
 * What only a browser does to a request: it refuses a stream body over
 * HTTP/1.1, and hides an answer that CORS does not allow behind the same
 * bare `TypeError` as a network failure. A failure in a page says which of
 * these it may be, as the page cannot tell them apart.
 *
 * @module
 */

import { isDenoOrBun, processVersions, userAgent } from "./runtime.ts";

/**
 * True in a browser (a page or its workers), whose user agents all start
 * `Mozilla/`; Deno, Node, Bun and workerd name themselves. A DOM they host
 * for tests (jsdom, happy-dom) passes for one, as its `fetch` may be a
 * polyfill that cannot send a stream body.
 */
export function isBrowser(): boolean {
  return userAgent()?.startsWith("Mozilla/") === true;
}

/**
 * True in a DOM that Node, Deno or Bun host (jsdom, happy-dom, as test
 * runners set them up): its user agent is a browser's, but `fetch` is the
 * runtime's (or a library's), which streams a body over HTTP/1.1 and
 * blocks nothing by CORS, and no browser console says why it failed. Told
 * by Deno's or Bun's globals, else by Node's `process`, which Electron and
 * NW.js pages, whose `fetch` is Chromium's, have too.
 */
function hostedDom(): boolean {
  if (isDenoOrBun()) return true;
  const versions = processVersions();
  return typeof versions?.node === "string" &&
    versions.electron === undefined && versions.nw === undefined;
}

/** The origin of the page (or worker) grab runs in, if it has one. */
function pageOrigin(): string | undefined {
  try {
    const origin = (globalThis as { location?: { origin?: unknown } })
      .location?.origin;
    return typeof origin === "string" ? origin : undefined;
  } catch {
    // Deno without `--location` throws on the read.
    return undefined;
  }
}

/** The origin of `href`, or `undefined` when it does not parse. */
export function originOf(href: string): string | undefined {
  try {
    return new URL(href).origin;
  } catch {
    return undefined;
  }
}

/**
 * What a `fetch` that rejected in a browser may have met besides the
 * network, to add to its message; `undefined` elsewhere (a DOM hosted for
 * tests too), and for a request to the page's own origin with a body the
 * browser can send.
 *
 * @param href where the request went
 * @param stream whether its body was a stream
 * @param credentials the request's credentials mode
 */
export function browserRefusal(
  href: string,
  stream: boolean,
  credentials: RequestCredentials | undefined,
): string | undefined {
  if (!isBrowser() || hostedDom()) return undefined;
  if (stream) {
    return "or the browser refused the stream body, which it sends only " +
      "over HTTP/2 or HTTP/3, never over HTTP/1.1: send a Blob or bytes";
  }
  const target = originOf(href);
  if (target === undefined || target === pageOrigin()) return undefined;
  const allow = credentials === "include"
    ? `Access-Control-Allow-Origin naming this page's origin (not "*") ` +
      "and Access-Control-Allow-Credentials: true"
    : "Access-Control-Allow-Origin";
  return `or the browser blocked it by CORS: ${target} must answer with ` +
    `${allow}, and allow the method and headers in its answer to the ` +
    "preflight (OPTIONS); the browser's console says which";
}
