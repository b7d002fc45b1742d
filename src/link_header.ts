/**
 * RFC 8288 `Link` header parsing.
 *
 * @module
 */

import { samePage } from "./page_spelling.ts";

/**
 * The most links of a header resolved against its base, which may be as long
 * as a URL may be: a server's header that lists more (of types still to be
 * found, each anchored elsewhere or no URL) is read no further, and cannot
 * hold up the event loop for seconds.
 */
const MAX_RESOLVED = 100;

/**
 * Parses a `Link` header into a map from relation type to URL, each target
 * resolved against `base` (RFC 3986). A link with several relation types
 * (`rel="next last"`) is listed under each; the first link of a type wins.
 * A link whose `anchor` names another resource than `base` is not about it,
 * and is left out. A target that is no URL is listed as written, for the
 * caller to refuse, when no link of the type is a URL. Other malformed parts
 * are skipped. Any number of relation types is read: they are never spread
 * into a call, which takes only so many arguments. With `only`, just the
 * first link of that type is looked for, and no other link is resolved. At
 * most {@linkcode MAX_RESOLVED} links are resolved.
 *
 * @example
 * ```ts ignore
 * parseLinkHeader('</items?page=2>; rel="next", <https://x.test/items?page=9>; rel=last', "https://x.test/items");
 * // Map { "next" => "https://x.test/items?page=2", "last" => "https://x.test/items?page=9" }
 * ```
 */
export function parseLinkHeader(
  value: string | null,
  base: string,
  only?: string,
): Map<string, string> {
  const links = new Map<string, string>();
  if (value === null) return links;
  const unresolved = new Map<string, string>();
  // The spelling of `base` that anchors are compared with, made once: a
  // header may hold thousands of anchors, and `base` a long query.
  let home: string | undefined;
  let left = MAX_RESOLVED;
  let i = 0;
  const n = value.length;
  while (i < n) {
    const open = value.indexOf("<", i);
    if (open === -1) break;
    const close = value.indexOf(">", open + 1);
    if (close === -1) break;
    const target = value.slice(open + 1, close).trim();
    const [rels, anchor, end] = readParams(value, close + 1);
    i = end;
    if (rels === undefined) continue;
    // Only links of a type still to be found are resolved: a header may list
    // thousands, each resolved against a `base` that may be long.
    if (
      only === undefined
        ? rels.every((rel) => links.has(rel))
        : !rels.includes(only)
    ) {
      continue;
    }
    if (left-- === 0) break;
    if (anchor !== undefined) {
      home ??= samePage(base);
      if (!isAbout(anchor, base, home)) continue;
    }
    let resolved: string;
    try {
      resolved = new URL(target, base).href;
    } catch {
      // Still a link of its types: kept as written, for whoever follows it
      // to say it cannot be, unless a link of the type has a URL.
      for (const rel of rels) {
        if (!unresolved.has(rel)) unresolved.set(rel, target);
      }
      continue;
    }
    for (const rel of rels) if (!links.has(rel)) links.set(rel, resolved);
    if (only !== undefined) return new Map([[only, resolved]]);
  }
  for (const [rel, target] of unresolved) {
    if (!links.has(rel)) links.set(rel, target);
  }
  return links;
}

/**
 * The relation types and the anchor of the link whose parameters start at
 * `i`, and where they end: at the next comma outside quotes. Only the first
 * `rel` counts, one without relation types too (RFC 8288, 3.3).
 */
function readParams(
  value: string,
  i: number,
): [string[] | undefined, string | undefined, number] {
  const n = value.length;
  let rels: string[] | undefined;
  let anchor: string | undefined;
  while (i < n) {
    while (i < n && (value[i] === " " || value[i] === "\t")) i++;
    if (value[i] === ",") return [rels, anchor, i + 1];
    if (value[i] !== ";") {
      i++;
      continue;
    }
    i++;
    const eq = /^\s*([^=;,\s]+)\s*(=\s*)?/.exec(value.slice(i));
    if (eq === null) continue;
    const name = eq[1]!.toLowerCase();
    i += eq[0].length;
    let paramValue = "";
    if (eq[2] !== undefined) [paramValue, i] = readValue(value, i);
    if (name === "rel" && rels === undefined) {
      rels = paramValue.toLowerCase().split(/\s+/).filter(Boolean);
    }
    if (name === "anchor" && anchor === undefined) anchor = paramValue;
  }
  return [rels, anchor, i];
}

/**
 * The parameter value at `i`, quoted (with its escapes) or a token up to the
 * next `;` or `,`, and where it ends.
 */
function readValue(value: string, i: number): [string, number] {
  const n = value.length;
  if (value[i] !== '"') {
    const end = /[;,]/.exec(value.slice(i));
    const stop = end === null ? n : i + end.index;
    return [value.slice(i, stop).trim(), stop];
  }
  let text = "";
  for (i++; i < n && value[i] !== '"'; i++) {
    if (value[i] === "\\") i++;
    text += value[i] ?? "";
  }
  return [text, i + 1];
}

/**
 * True when `anchor` names `base`, whose spelling is `home`: the link is
 * about it (RFC 8288, 3.2). Compared as pages are, so that an anchor spelt
 * another way (escapes in another form, the query's parameters in another
 * order) names it too.
 */
function isAbout(anchor: string, base: string, home: string): boolean {
  try {
    return samePage(new URL(anchor, base).href) === home;
  } catch {
    return false;
  }
}
