/**
 * {@linkcode jsonApiOf}: the `links` and `meta` of a denormalised resource,
 * read from the wire resource that each flat object keeps a private link to
 * (see `wire_link.ts`, which is loaded with the JSON:API codec).
 *
 * @module
 */

/**
 * The JSON:API `links` and `meta` of a denormalised resource and of each of
 * its relationships, as returned by {@linkcode jsonApiOf}.
 * @internal
 */
export interface JsonApiInfo {
  /** The resource's `links`, as sent. */
  links?: Record<string, unknown>;
  /** The resource's `meta` (or a resource identifier's `meta`), as sent. */
  meta?: Record<string, unknown>;
  /**
   * One entry per relationship, data-less ones included, named in the
   * caller's casing; each holds the relationship's `links`, `meta` and
   * `data` (its resource linkage), as sent.
   */
  relationships: Record<string, JsonApiRelationshipInfo>;
}

/**
 * The JSON:API `links`, `meta` and resource linkage of one relationship, as
 * sent, as {@linkcode jsonApiOf} gives them.
 * @internal
 */
export interface JsonApiRelationshipInfo {
  /** The relationship's `links`. */
  links?: Record<string, unknown>;
  /** The relationship's `meta`. */
  meta?: Record<string, unknown>;
  /**
   * The relationship's `data` as sent: a resource identifier (with its own
   * `meta`, when it has one), an array of them, or `null`; absent when the
   * relationship had no `data`. An identifier's `meta` is about this link
   * (an image's alt text, a member's role), not the related resource, so it
   * is here even when the resource was included.
   */
  data?: JsonApiIdentifier | JsonApiIdentifier[] | null;
}

/**
 * A resource identifier as sent: `type` with `id` or `lid`, and `meta`.
 * @internal
 */
export interface JsonApiIdentifier {
  /** The related resource's type. */
  type: string;
  /** The related resource's id. */
  id?: string;
  /** The related resource's local id (JSON:API 1.1). */
  lid?: string;
  /** What the server says of this link. */
  meta?: Record<string, unknown>;
}

/**
 * Reads the info of a flat object that has a link to its wire source. Until
 * the module that adds those links has loaded, no object has one.
 */
let readInfo: (target: object) => JsonApiInfo | undefined = () => undefined;

/**
 * Lets {@linkcode jsonApiOf} read the links that `WireLink` adds; called
 * once, as that module loads. This copy of the module then lists its own
 * reader where every copy in the program looks (see `COPIES`).
 */
export function setInfoReader(
  reader: (target: object) => JsonApiInfo | undefined,
): void {
  readInfo = reader;
  try {
    let copies = (globalThis as { [COPIES]?: unknown })[COPIES];
    if (copies === undefined) {
      copies = [];
      // Not enumerable, not replaceable: a list every copy keeps adding to.
      Object.defineProperty(globalThis, COPIES, { value: copies });
    }
    if (Array.isArray(copies) && !copies.includes(infoOf)) copies.push(infoOf);
  } catch {
    // A frozen global: each copy then reads its own resources only.
  }
}

/**
 * Where each copy of the module (two versions in one program, a bundle
 * and a package) lists the reader of the resources it denormalised, once
 * it has loaded its JSON:API codec: a resource's link is a private field
 * of the copy that made it, which no other copy can read. A registered
 * symbol, so that every copy finds the same list.
 */
const COPIES: unique symbol = Symbol.for("@grab/grab.jsonApiOf");

// The info built for each flat object so far, so that jsonApiOf gives the same
// object every time.
const infos = new WeakMap<object, JsonApiInfo>();

/** The info of a resource this copy denormalised, built once. */
function infoOf(resource: object): JsonApiInfo | undefined {
  let info = infos.get(resource);
  if (info === undefined) {
    info = readInfo(resource);
    if (info !== undefined) infos.set(resource, info);
  }
  return info;
}

/**
 * The info of a resource another copy of the module denormalised, from
 * that copy's reader, which gives the same object as its `jsonApiOf`.
 */
function foreignInfoOf(resource: object): JsonApiInfo | undefined {
  let copies: unknown;
  try {
    copies = (globalThis as { [COPIES]?: unknown })[COPIES];
    if (!Array.isArray(copies)) return undefined;
    for (const reader of copies) {
      if (reader === infoOf || typeof reader !== "function") continue;
      const info: unknown = reader(resource);
      if (typeof info === "object" && info !== null) return info as JsonApiInfo;
    }
  } catch {
    // A list or a reader that someone else put there and that throws.
  }
  return undefined;
}

/**
 * Returns the JSON:API `links` and `meta` of a resource that grab
 * denormalised, and those of each of its relationships, data-less ones
 * included.
 *
 * A denormalised resource is a plain data object: `{ type, id, ...fields }`.
 * The resource's own `links` and `meta`, and each relationship's, are kept
 * off it and are reachable here, as sent by the server (never re-cased);
 * relationship names are in the caller's casing, like the resource's fields.
 * Each relationship's entry holds its `data` as sent, each resource
 * identifier with its own `meta` (about the link, not the resource, which
 * may be linked many times). A related resource that the document did not
 * include is an identifier-only object; it has an entry only when its
 * resource identifier carried `meta`. The document's own `links` and `meta`
 * are on the success meta of the grab instead. It reads the resources of
 * another copy of the module in the same program too (two versions installed
 * side by side, a bundle and a package), once that copy has read a JSON:API
 * document.
 *
 * @param resource A resource object from the data of a JSON:API grab.
 * @returns The resource's `{ links?, meta?, relationships }`, or `undefined`
 * for an object that grab did not denormalise from a JSON:API document.
 *
 * @example Following a resource's and a relationship's links
 * ```ts
 * import createGrab, { jsonApiOf } from "@grab/grab";
 *
 * interface Article {
 *   type: "articles";
 *   id: string;
 *   title: string;
 * }
 *
 * const grab = createGrab("https://api.example.com", { format: "json-api" });
 * const [article] = await grab<Article>("GET /articles/:id", {
 *   params: { id: "1" },
 * });
 * if (article !== null) {
 *   const info = jsonApiOf(article);
 *   const self = info?.links?.self; // "https://api.example.com/articles/1"
 *   const comments = info?.relationships.comments?.links?.related;
 *   const count = info?.relationships.comments?.meta?.count; // 12
 *   console.log(self, comments, count);
 * }
 * ```
 */
export function jsonApiOf(resource: object): JsonApiInfo | undefined {
  const info = infoOf(resource);
  if (info !== undefined) return info;
  // A resource of another copy of the module; anything else is none.
  return typeof resource === "object" && resource !== null
    ? foreignInfoOf(resource)
    : undefined;
}
