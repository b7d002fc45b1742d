/**
 * Path helpers without a dependency (jsr: is not reachable from here).
 *
 * @module
 */

/** The file path of a `file:` URL. */
export function fromFileUrl(url: URL): string {
  return decodeURIComponent(url.pathname);
}

/** Joins path segments with `/`. */
export function join(...parts: string[]): string {
  return parts.join("/").replace(/\/+/g, "/");
}
