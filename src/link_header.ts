/**
 * RFC 8288 `Link` header parsing.
 *
 * @module
 */

import { samePage } from "./page_spelling.ts";

/**
 * Parses a `Link` header into a map from relation type to URL, each target
 * resolved against `base` (RFC 3986). A link with several relation types
 * (`rel="next last"`) is listed under each; the first link of a type wins.
 * A link whose `anchor` names another resource than `base` is not about it,
 * and is left out. A target that is no URL is listed as written, for the
 * caller to refuse, when no link of the type is a URL. Other malformed parts
 * are skipped. Any number of relation
 * types is read: they are never spread into a call, which takes only so
 * many arguments.
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
): Map<string, string> {
  const links = new Map<string, string>();
  if (value === null) return links;
  const unresolved = new Map<string, string>();
  // The spelling of `base` that anchors are compared with, made once: a
  // header may hold thousands of anchors, and `base` a long query.
  let home: string | undefined;
  let i = 0;
  const n = value.length;
  while (i < n) {
    const open = value.indexOf("<", i);
    if (open === -1) break;
    const close = value.indexOf(">", open + 1);
    if (close === -1) break;
    const target = value.slice(open + 1, close).trim();
    i = close + 1;
    // Only the first `rel` counts, one without relation types too (RFC
    // 8288, 3.3).
    let rels: string[] | undefined;
    let anchor: string | undefined;
    // Parameters until the next comma outside quotes.
    while (i < n) {
      while (i < n && (value[i] === " " || value[i] === "\t")) i++;
      if (value[i] === ",") {
        i++;
        break;
      }
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
    if (rels === undefined) continue;
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
  }
  for (const [rel, target] of unresolved) {
    if (!links.has(rel)) links.set(rel, target);
  }
  return links;
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
