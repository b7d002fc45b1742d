/**
 * Query serialisation: brackets for nested objects, arrays comma-joined
 * (JSON:API) or as repeated keys (JSON), `undefined` and `null` skipped.
 *
 * @module
 */

import { type Casing, clashMark, convertKey } from "./casing.ts";
import { isPlainObject } from "./object.ts";
import {
  Budget,
  MAX_QUERY_DEPTH,
  refuse,
  refuseThrown,
  scalar,
  WrittenNames,
} from "./query_budget.ts";
import {
  checkClash,
  checkNesting,
  type Entry,
  entry,
  isScalar,
  mixedItem,
  pushItems,
  writeJoined,
} from "./query_walk.ts";

/**
 * A query: an object of primitives, arrays and nested objects, or
 * `URLSearchParams`. Any object type is taken, as a `Record` would refuse
 * an interface or a class (they have no index signature), except those
 * whose entries are not their own keys, which grab refuses at run time: an
 * iterable (an array, a `Map`, a `FormData`), a Promise not awaited, a
 * `Date`, a function. They are told by well-known symbols, so no query key
 * is taken from you.
 * @internal
 */
export type QueryInit =
  | URLSearchParams
  | Record<string, unknown>
  | QueryObject;

/**
 * An object of query values typed by an interface or a class; an object
 * literal is a `Record` (this type alone would refuse its keys as excess).
 * @internal
 */
export type QueryObject = object & {
  readonly [Symbol.iterator]?: never;
  readonly [Symbol.toStringTag]?: never;
  readonly [Symbol.toPrimitive]?: never;
  readonly [Symbol.hasInstance]?: never;
};

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
  new QueryWriter(params, options).write(query);
  return params;
}

/** One walk of a query object, from its root, in order. */
class QueryWriter {
  readonly #params: URLSearchParams;
  readonly #casing: Casing;
  readonly #joinArrays: boolean;
  readonly #budget = new Budget();
  readonly #stack: Entry[] = [];
  #mark = 0;
  /** Kept only when a key of the root's holds a bracket. */
  #names: WrittenNames | undefined;
  /** The name of the value being read, for what its reading throws. */
  #at = "";

  constructor(params: URLSearchParams, options: SerialiseQueryOptions) {
    this.#params = params;
    this.#casing = options.casing ?? "none";
    this.#joinArrays = options.format === "json-api";
  }

  write(query: Record<string, unknown>): void {
    const root: Entry = {
      value: query,
      name: "",
      typeNames: false,
      parent: undefined,
      depth: 0,
    };
    if (this.#casing !== "none") this.#mark = clashMark(this.#casing);
    try {
      this.#expand(root, query);
      while (this.#stack.length > 0) this.#step(this.#stack.pop()!);
    } catch (error) {
      refuseThrown(error, this.#at);
    }
  }

  #step(current: Entry): void {
    const { value, name } = current;
    this.#at = current.at ?? name;
    if (value === undefined || value === null) return;
    if (typeof value === "object" && !(value instanceof Date)) {
      checkNesting(current, name);
    }
    if (Array.isArray(value)) {
      this.#budget.spend(value.length);
      const mixed = mixedItem(value);
      if (mixed !== undefined) refuse(mixed, name);
      if (this.#joinArrays && value.every(isScalar)) {
        if (writeJoined(this.#budget, this.#params, name, value)) {
          this.#written(name, current);
        }
      } else pushItems(this.#stack, value, current);
    } else if (isPlainObject(value)) this.#expand(current, value);
    else {
      const text = scalar(value, current.at ?? name);
      // A list's items go under its name, as one list's.
      this.#written(name, current.at === undefined ? current : current.parent!);
      this.#budget.write(this.#params, name, [text]);
    }
  }

  /** Pushes the entries of `record`, the value of `current`, in order. */
  #expand(current: Entry, record: Record<string, unknown>): void {
    const root = current.parent === undefined;
    const casing = this.#casing;
    const keys = Object.keys(record);
    this.#budget.spend(keys.length);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      const name = root
        ? this.#rootName(key)
        : `${current.name}[${this.#innerName(key, current)}]`;
      this.#at = name;
      const typeNames = root && name.toLowerCase() === FIELDS;
      this.#stack.push(entry(record[key], name, typeNames, current));
    }
    if (!current.typeNames && casing !== "none") {
      const at = root ? undefined : current.name;
      checkClash(this.#stack, keys, casing, this.#mark, at);
    }
  }

  /**
   * A key of the root as written: JSON:API keeps names of only a-z for
   * its own parameters (`include`, `page`, …), as a server must refuse
   * them in another casing. A key with brackets of its own names nested
   * keys, as a server reads it: its names are then compared with the
   * others (see {@linkcode WrittenNames}).
   */
  #rootName(key: string): string {
    // Converted even when kept: a key that becomes one kept must count as
    // a clash (see `clashMark`).
    const converted = convertKey(key, this.#casing);
    if (key.includes("[")) {
      if (key.split("[").length > MAX_QUERY_DEPTH + 1) {
        refuse(`it is nested more than ${MAX_QUERY_DEPTH} levels deep`, key);
      }
      this.#names ??= new WrittenNames();
    }
    return this.#joinArrays && SPEC_NAME.test(key) ? key : converted;
  }

  /**
   * A nested key as written: with no bracket of its own, which a server
   * would read as one more level, and not empty, which a server reads as
   * a list's next item (`a[]`).
   */
  #innerName(key: string, parent: Entry): string {
    if (key === "") {
      refuse(
        `it has an empty key, which a server reads as the next item of a list ("${parent.name}[]")`,
        parent.name,
      );
    }
    if (key.includes("[") || key.includes("]")) {
      refuse(
        `key "${key}" holds a bracket, which a server reads as one more level of nesting; nest it as an object instead`,
        parent.name,
      );
    }
    return parent.typeNames ? key : convertKey(key, this.#casing);
  }

  #written(name: string, writer: Entry): void {
    this.#names?.add(name, writer);
  }
}

/**
 * The parameter whose keys are type names (`fields[articles]`), told by the
 * name it goes out as, in any case: a PascalCase caller's `Fields` goes as
 * `fields`, a PascalCase wire's `fields` as `Fields`, and the type names
 * must still go as written.
 */
const FIELDS = "fields";

/** A query parameter name JSON:API reserves for itself: only a-z. */
const SPEC_NAME = /^[a-z]+$/;
