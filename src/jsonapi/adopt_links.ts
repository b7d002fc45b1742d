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
 * sort, only when it keeps its `id` or `lid`, by which it is found when it
 * moved. Never throws: what the
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
        // One by one: spread as arguments, a list of some 150,000
        // resources overflowed the stack and no item got its links.
        if (Array.isArray(to)) {
          for (const listed of listPairs(from, to)) pairs.push(listed);
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
 * The pairs of a list and the schema's list made of it: each item with the
 * resource at its place or, when the schema filtered or sorted the list, the
 * one resource of the list that has the identity members the item keeps
 * (its `id` or `lid` among them). The resources are indexed once for each
 * set of members that items keep, so a list costs the same whatever its
 * items share: many resources of one id (of other types) or many repeats
 * of one resource are one look-up per item, not a walk of the list.
 */
function listPairs(from: unknown[], to: unknown[]): [unknown, unknown, true][] {
  const pairs: [unknown, unknown, true][] = [];
  const indexes = new Map<string, Map<string, object | null>>();
  for (let at = 0; at < to.length; at++) {
    const item = to[at];
    if (typeof item !== "object" || item === null) continue;
    const there = at < from.length ? from[at] : undefined;
    if (WireLink.has(there) && isSameResource(there, item, true)) {
      pairs.push([there, item, true]);
      continue;
    }
    const kept = keptIdentity(item);
    if (kept === undefined) continue;
    let index = indexes.get(kept.members);
    if (index === undefined) {
      index = byIdentity(from, kept.members.split(","));
      indexes.set(kept.members, index);
    }
    const found = index.get(kept.key);
    if (found !== undefined && found !== null) pairs.push([found, item, true]);
  }
  return pairs;
}

/**
 * The identity members an item of a list keeps (`"type,id"`) and their
 * values as a key, an id that became a number as its string; `undefined`
 * when it keeps neither a string or number `id` nor `lid`, or keeps a
 * member whose value no resource has (`null`, an object).
 */
function keptIdentity(
  item: object,
): { members: string; key: string } | undefined {
  const members: string[] = [];
  const values: (string | null)[] = [];
  let named = false;
  for (const member of IDENTITY) {
    if (!Object.hasOwn(item, member)) continue;
    const value = (item as Record<string, unknown>)[member];
    if (typeof value === "string" || typeof value === "number") {
      values.push(String(value));
      named ||= member !== "type";
    } else if (value === undefined) values.push(null);
    else return undefined;
    members.push(member);
  }
  return named
    ? { members: members.join(","), key: JSON.stringify(values) }
    : undefined;
}

/**
 * The resources of a list by the values of `members` (absent as `null`),
 * each key mapped to its one resource, or to `null` when two resources
 * have it (the item that has it says not which it is). Repeats of one
 * resource are one object, so they are one resource here.
 */
function byIdentity(
  list: unknown[],
  members: string[],
): Map<string, object | null> {
  const index = new Map<string, object | null>();
  for (const resource of list) {
    if (!WireLink.has(resource)) continue;
    const values = members.map((member) => {
      const value = Object.hasOwn(resource, member)
        ? (resource as Record<string, unknown>)[member]
        : undefined;
      return typeof value === "string" ? value : null;
    });
    const key = JSON.stringify(values);
    const known = index.get(key);
    if (known === undefined) index.set(key, resource);
    else if (known !== resource) index.set(key, null);
  }
  return index;
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
