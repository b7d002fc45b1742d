/**
 * The links of a schema's output: a schema (zod, valibot) builds new
 * objects, so each object of its output that stands where a denormalised
 * resource stood, and is that resource, gets the resource's link, and
 * `jsonApiOf` reads the same `links` and `meta` from it.
 *
 * @module
 */

import { WireLink } from "./wire_link.ts";

/** A resource's members that say which resource it is. */
const IDENTITY = ["type", "id", "lid"] as const;

/**
 * Gives each object of `output` (a schema's output) the link of the
 * resource of `input` (the data it checked) at the same place: the root, an
 * item of a list, a relationship's value. Only resources are followed, not
 * the values of their attributes, and an object gets the link only when it
 * keeps the resource's `type`, `id` or `lid` and none of them differs (an id
 * may have become a number); an item of a list, which a schema may filter or
 * sort, only when it keeps its `id` or `lid`. Never throws: what the
 * output's own code throws (a getter, a Proxy) ends the walk, as the links
 * are a courtesy.
 */
export function adoptLinks(input: unknown, output: unknown): void {
  // Each pair says whether it is an item of a list.
  const pairs: [unknown, unknown, boolean][] = [[input, output, false]];
  const done = new Set<object>();
  try {
    for (let pair = pairs.pop(); pair !== undefined; pair = pairs.pop()) {
      const [from, to, listed] = pair;
      if (from === to || typeof to !== "object" || to === null) continue;
      if (done.has(to)) continue;
      done.add(to);
      if (Array.isArray(from)) {
        if (!Array.isArray(to)) continue;
        const end = Math.min(from.length, to.length);
        for (let at = 0; at < end; at++) {
          if (WireLink.has(from[at])) pairs.push([from[at], to[at], true]);
        }
      } else if (WireLink.has(from) && isSameResource(from, to, listed)) {
        WireLink.copy(from as WireLink, to);
        const resource = from as Record<string, unknown>;
        for (const key of Object.keys(to)) {
          const value = Object.hasOwn(resource, key) ? resource[key] : null;
          if (Array.isArray(value) || WireLink.has(value)) {
            pairs.push([value, (to as Record<string, unknown>)[key], false]);
          }
        }
      }
    }
  } catch {
    // The output's own code threw: the objects reached so far keep links.
  }
}

/**
 * True when `to` keeps one of the identity members of `from`, all alike; an
 * item of a list (`listed`) keeps its `id` or `lid`, as a type alone says
 * not which item it is.
 */
function isSameResource(from: object, to: object, listed: boolean): boolean {
  let kept = false;
  for (const key of IDENTITY) {
    if (!Object.hasOwn(to, key)) continue;
    const mine = (from as Record<string, unknown>)[key];
    const theirs = (to as Record<string, unknown>)[key];
    const alike = theirs === mine ||
      (typeof theirs === "number" && String(theirs) === mine);
    if (!alike) return false;
    kept ||= !listed || key !== "type";
  }
  return kept;
}
