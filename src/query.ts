/**
 * Query serialisation: brackets for nested objects, arrays comma-joined
 * (JSON:API) or as repeated keys (JSON), `undefined` and `null` skipped.
 *
 * @module
 */

import {
  type Casing,
  clashMark,
  convertKey,
  mayHaveClashed,
} from "./casing.ts";
import { KeyClash } from "./convert_keys.ts";
import { isPlainObject } from "./object.ts";
import { Budget, refuse } from "./query_budget.ts";
import { DEFAULT_TEXT } from "./text.ts";

/**
 * `"json"` or `"json-api"`: how bodies and queries are written and read.
 *
 * @example Choosing a format
 * ```ts
 * import createGrab, { type Format } from "@grab/grab";
 * const format: Format = "json-api";
 * const grab = createGrab("https://api.example.com/v1", { format });
 * ```
 */
export type Format = "json" | "json-api";

/** Options of {@linkcode serialiseQuery}. */
export interface SerialiseQueryOptions {
  /** Arrays are comma-joined in `"json-api"`, repeated keys in `"json"`. */
  format: Format;
  /**
   * Casing for keys at every level, except type names inside `fields[…]`
   * and, in JSON:API, parameter names of only a-z (`include`, `page`).
   */
  casing?: Casing;
}

/**
 * Appends `query` to `params`.
 *
 * @example
 * ```ts ignore
 * serialiseQuery({ include: ["author", "comments"], page: { size: 10 } },
 *   new URLSearchParams(), { format: "json-api" }).toString();
 * // "include=author%2Ccomments&page%5Bsize%5D=10"
 * serialiseQuery({ tag: ["a", "b"], q: null }, new URLSearchParams(),
 *   { format: "json" }).toString();
 * // "tag=a&tag=b"
 * ```
 */
export function serialiseQuery(
  query: URLSearchParams | Record<string, unknown>,
  params: URLSearchParams,
  options: SerialiseQueryOptions,
): URLSearchParams {
  if (query instanceof URLSearchParams) {
    for (const [key, value] of query) params.append(key, value);
    return params;
  }
  const casing = options.casing ?? "none";
  const joinArrays = options.format === "json-api";
  const stack: Entry[] = [];
  const keys = Object.keys(query);
  const root: Entry = {
    value: query,
    name: "",
    typeNames: false,
    parent: undefined,
    depth: 0,
  };
  const budget = new Budget();
  budget.spend(keys.length);
  const mark = casing === "none" ? 0 : clashMark(casing);
  for (let i = keys.length - 1; i >= 0; i--) {
    const key = keys[i]!;
    // Converted even when kept: a key that becomes one kept must count as
    // a clash (see `clashMark`).
    const converted = convertKey(key, casing);
    // JSON:API keeps names of only a-z for its own parameters (`include`,
    // `page`, …): a server must refuse them in another casing.
    const name = joinArrays && SPEC_NAME.test(key) ? key : converted;
    stack.push(entry(query[key], name, key === "fields", root));
  }
  if (casing !== "none") checkClash(stack, keys, casing, mark);
  while (stack.length > 0) {
    const current = stack.pop()!;
    const { value, name } = current;
    if (value === undefined || value === null) continue;
    if (typeof value === "object" && !(value instanceof Date)) {
      checkNesting(current, name);
    }
    if (Array.isArray(value)) {
      budget.spend(value.length);
      if (joinArrays && value.every(isScalar)) {
        writeJoined(budget, params, name, value);
        continue;
      }
      pushItems(stack, value, current);
    } else if (isPlainObject(value)) {
      const inner = Object.keys(value);
      budget.spend(inner.length);
      for (let i = inner.length - 1; i >= 0; i--) {
        const key = inner[i]!;
        const written = current.typeNames ? key : convertKey(key, casing);
        stack.push(entry(value[key], `${name}[${written}]`, false, current));
      }
      if (!current.typeNames && casing !== "none") {
        checkClash(stack, inner, casing, mark, name);
      }
    } else {
      budget.write(params, name, [scalar(value, current.at ?? name)]);
    }
  }
  return params;
}

/**
 * `name=a,b,c` (JSON:API): the items that are there, comma-joined. An empty
 * list is `name=`, which JSON:API reads as "none" (`fields[people]=` asks
 * for no fields); leaving it out would ask for the server's default. A list
 * whose items are all `null` or `undefined` is left out, as each item is.
 * An item with a comma of its own is refused: the server would split it.
 */
function writeJoined(
  budget: Budget,
  params: URLSearchParams,
  name: string,
  items: unknown[],
): void {
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
  if (texts.length === 0 && items.length > 0) return;
  budget.write(params, name, texts);
}

/** The deepest nesting a query may have: `a[b][c]…` with this many brackets. */
const MAX_QUERY_DEPTH = 32;
/**
 * Refuses two of `keys` (whose entries are the last on `stack`, in order)
 * written as one name: the server would read one of them, or both as a
 * list. A key without a value is not written, so it clashes with none.
 * Looked for only when the casing's conversions since `mark` say a clash
 * may be there (see `clashMark`).
 */
function checkClash(
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

/** A query parameter name JSON:API reserves for itself: only a-z. */
const SPEC_NAME = /^[a-z]+$/;

/**
 * The items of a list, to be written in order. An item with text of its
 * own goes under the list's name (`id=7&id=8`), and is still named by its
 * place when it is refused.
 */
function pushItems(stack: Entry[], items: unknown[], list: Entry): void {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    const at = `${list.name}[${i}]`;
    const next = entry(item, isScalar(item) ? list.name : at, false, list);
    next.at = at;
    stack.push(next);
  }
}

/** One value on the walk, linked to the object or array that holds it. */
interface Entry {
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

function entry(
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
function checkNesting(current: Entry, name: string): void {
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
function isScalar(value: unknown): boolean {
  return !Array.isArray(value) && !isPlainObject(value);
}

function scalar(value: unknown, name: string): string {
  if (typeof value === "number") {
    // `NaN` is a number gone wrong (`Number("")`, a division by zero), as
    // in a body or a path parameter; a caller who means the text says so.
    if (Number.isFinite(value)) return String(value);
    refuse(`value is ${value}; give a finite number, or a string`, name);
  }
  if (typeof value === "function" || typeof value === "symbol") {
    // String() would send a function's source text.
    refuse(`value is a ${typeof value}`, name);
  }
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) refuse("value is an invalid Date", name);
    return value.toISOString();
  }
  const text = String(value);
  // An object with no text of its own (a Map, a class instance) would go
  // out as "[object Object]"; one with its own (a URL) goes as that.
  if (typeof value === "object" && DEFAULT_TEXT.test(text)) {
    const what = text.slice(1, -1).replace("object ", "an object of type ");
    refuse(`value is ${what}`, name);
  }
  return text;
}
