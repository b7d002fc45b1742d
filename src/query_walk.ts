/**
 * The walk of a query object: its entries, and the checks of the lists,
 * keys and nesting it meets.
 *
 * @module
 */

import { type Casing, mayHaveClashed } from "./casing.ts";
import { KeyClash } from "./convert_keys.ts";
import { isPlainObject } from "./object.ts";
import {
  type Budget,
  MAX_QUERY_DEPTH,
  refuse,
  scalar,
} from "./query_budget.ts";

/**
 * `name=a,b,c` (JSON:API): the items that are there, comma-joined. An empty
 * list is `name=`, which JSON:API reads as "none" (`fields[people]=` asks
 * for no fields); leaving it out would ask for the server's default. A list
 * whose items are all `null` or `undefined` is left out, as each item is.
 * An item with a comma of its own is refused: the server would split it.
 * Returns true when the list was written.
 */
export function writeJoined(
  budget: Budget,
  params: URLSearchParams,
  name: string,
  items: unknown[],
): boolean {
  const texts: string[] = [];
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item === undefined || item === null) continue;
    const text = scalar(item, `${name}[${i}]`);
    if (text.includes(",")) {
      refuse(
        `item ${i} holds a comma, which JSON:API joins a list with, so the server would read more than one item; write the list as one string if that is meant`,
        name,
      );
    }
    texts.push(text);
  }
  if (texts.length === 0 && items.length > 0) return false;
  budget.write(params, name, texts);
  return true;
}

/**
 * Why a list that holds both values and lists or objects cannot be sent:
 * its name would be both a value and nested keys (`x=1&x[1][a]=2`), and
 * in JSON:API its values would be repeated, not joined.
 */
export function mixedItem(items: unknown[]): string | undefined {
  let value = -1;
  let nest = -1;
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    if (item === undefined || item === null) continue;
    if (isScalar(item)) value = value < 0 ? i : value;
    else nest = nest < 0 ? i : nest;
    if (value >= 0 && nest >= 0) {
      const kind = Array.isArray(items[nest]) ? "a list" : "an object";
      return `item ${nest} is ${kind} but item ${value} is a value, and a server cannot read one name both as a value and as nested keys; send them under two names`;
    }
  }
  return undefined;
}

/**
 * Refuses two of `keys` (whose entries are the last on `stack`, in order)
 * written as one name: the server would read one of them, or both as a
 * list. A key without a value is not written, so it clashes with none.
 * Looked for only when the casing's conversions since `mark` say a clash
 * may be there (see `clashMark`).
 */
export function checkClash(
  stack: Entry[],
  keys: string[],
  casing: Casing,
  mark: number,
  name?: string,
): void {
  if (!mayHaveClashed(casing, mark)) return;
  // The names as written: a JSON:API name kept (`include`) is not the
  // one its conversion would give (`Include` in PascalCase).
  const firstOf = new Map<string, number>();
  for (let i = 0; i < keys.length; i++) {
    const { value, name: written } = stack[stack.length - 1 - i]!;
    if (value === undefined || value === null) continue;
    const first = firstOf.get(written);
    if (first === undefined) {
      firstOf.set(written, i);
      continue;
    }
    const clash = new KeyClash("", [keys[first]!, keys[i]!], casing);
    refuse(`${clash.message}, so one value would hide the other`, name);
  }
}

/**
 * The items of a list, to be written in order. An item with text of its
 * own goes under the list's name (`id=7&id=8`), and is still named by its
 * place when it is refused.
 */
export function pushItems(stack: Entry[], items: unknown[], list: Entry): void {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    const at = `${list.name}[${i}]`;
    const next = entry(item, isScalar(item) ? list.name : at, false, list);
    next.at = at;
    stack.push(next);
  }
}

/** One value on the walk, linked to the object or array that holds it. */
export interface Entry {
  value: unknown;
  /** The key written so far: `filter[name]`. */
  name: string;
  /** True when the keys below are JSON:API type names (`fields[…]`). */
  typeNames: boolean;
  parent: Entry | undefined;
  depth: number;
  /** Where a list's item is, when it is written under the list's name. */
  at?: string;
}

export function entry(
  value: unknown,
  name: string,
  typeNames: boolean,
  parent: Entry,
): Entry {
  return { value, name, typeNames, parent, depth: parent.depth + 1 };
}

/**
 * Refuses an object that holds itself (the walk would never end) and nesting
 * deeper than {@linkcode MAX_QUERY_DEPTH} (the key would grow without bound).
 */
export function checkNesting(current: Entry, name: string): void {
  let problem: string | undefined;
  if (current.depth > MAX_QUERY_DEPTH) {
    problem = `it is nested more than ${MAX_QUERY_DEPTH} levels deep`;
  } else {
    for (let up = current.parent; up !== undefined; up = up.parent) {
      if (up.value === current.value) {
        problem = "it refers to itself";
        break;
      }
    }
  }
  if (problem !== undefined) refuse(problem, name);
}

/**
 * True for a value written as one text: anything but an array or a plain
 * object, whose entries are walked (a `Date`, a `URL` or an object with a
 * `toString` of its own is an item of a list, not a container).
 */
export function isScalar(value: unknown): boolean {
  return !Array.isArray(value) && !isPlainObject(value);
}
