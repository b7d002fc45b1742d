/**
 * A redirect's next hop as `fetch` makes it, for a counted upload that
 * follows its redirects itself: where it goes, and the request sent there.
 *
 * @module
 */

/**
 * `fields` in an object with no prototype, as `bare` of `./object.ts` makes
 * a `RequestInit` (this module and `./upload.ts` load on first use, and may
 * not import the core): `fetch` reads an init's members through its
 * prototype, where a dependency may have put `headers` or `body`.
 */
export function bare<T extends object>(fields: T): T {
  return Object.assign(Object.create(null), fields);
}

/** The statuses `fetch` follows by sending the request again. */
export const REDIRECTS: ReadonlySet<number> = new Set([
  301,
  302,
  303,
  307,
  308,
]);

/**
 * What a counted upload's own redirect says when its `location` cannot be
 * followed, worded as Deno's `fetch` says it, so that `./unmendable.ts`
 * tells either the same (it is of the core, which this module may not
 * import, so the words are written out in both).
 */
const NOT_A_URL = "Invalid URL: the redirect's location";
const NOT_HTTP = "Can not redirect to a non HTTP(s) url";

/**
 * `location` resolved against `base`, when that is an http(s) URL; as from
 * `fetch`, any other (`data:`, `file:`, `blob:`, or no URL) is a
 * `TypeError`, never a response.
 */
export function hopUrl(location: string, base: string): URL {
  let url: URL;
  try {
    url = new URL(location, base);
  } catch {
    throw new TypeError(NOT_A_URL);
  }
  if (url.protocol === "http:" || url.protocol === "https:") return url;
  throw new TypeError(NOT_HTTP);
}

/** The headers `fetch` drops when a redirect turns a request into a GET. */
const BODY_HEADERS = [
  "content-type",
  "content-length",
  "content-encoding",
  "content-language",
  "content-location",
];

/**
 * The headers that stay on their origin: the platforms' `fetch` drops them
 * on a redirect to another one.
 */
const ORIGIN_HEADERS = ["authorization", "proxy-authorization", "cookie"];

/**
 * The request of a redirect's next hop, as `fetch` makes it: a 303 (or a
 * 301 or 302 after a POST) becomes a GET without the body; the headers a
 * hook set are kept; credentials stay on their origin.
 */
export function redirectInit(
  status: number,
  next: URL,
  href: string,
  plain: RequestInit,
  request: Request | undefined,
): RequestInit {
  const method = request?.method ?? plain.method ?? "GET";
  const headers = new Headers(request?.headers ?? plain.headers);
  const get = (status === 303 && method !== "HEAD") ||
    ((status === 301 || status === 302) && method === "POST");
  // The next redirect is met, and counted, by the caller of `follow`.
  const hop: RequestInit = bare({ ...plain, headers, redirect: "manual" });
  if (get) {
    hop.method = "GET";
    delete hop.body;
    delete (hop as { duplex?: string }).duplex;
    for (const name of BODY_HEADERS) headers.delete(name);
  } else hop.method = method;
  if (next.origin !== new URL(href).origin) {
    for (const name of ORIGIN_HEADERS) headers.delete(name);
  }
  return hop;
}
