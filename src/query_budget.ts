/**
 * What a query may hold, and how a query that cannot be written is refused.
 *
 * @module
 */

import { GrabValidationError } from "./errors.ts";
import { unboxedNumber } from "./json_loss.ts";
import { DEFAULT_TEXT, hasLoneSurrogate } from "./text.ts";
import { quoting, reasonOf } from "./thrown.ts";
import { validationError } from "./validation_error.ts";

/** The most values a query may hold (containers and items alike). */
const MAX_QUERY_VALUES = 10_000;
/** The longest a query may be, in characters, far past any URL limit. */
const MAX_QUERY_CHARS = 2_000_000;
/** The deepest nesting a query may have: `a[b][c]…` with this many brackets. */
export const MAX_QUERY_DEPTH = 32;

/**
 * What a query may still hold. Each value is counted before it is walked
 * and each text before it is written: shared objects can make a small
 * query a huge walk, a sparse array a long one, a shared string a huge text.
 */
export class Budget {
  #values = MAX_QUERY_VALUES;
  #chars = MAX_QUERY_CHARS;

  spend(count: number): void {
    if ((this.#values -= count) < 0) {
      refuse(
        `it has more than ${MAX_QUERY_VALUES} values (each nested list or object counts as one)`,
      );
    }
  }

  /**
   * Appends `name` = the `texts`, comma-joined. A lone surrogate is refused:
   * `URLSearchParams` would send U+FFFD in its place.
   */
  write(params: URLSearchParams, name: string, texts: string[]): void {
    let length = name.length + texts.length;
    let lone = hasLoneSurrogate(name);
    for (const text of texts) {
      length += text.length;
      lone ||= hasLoneSurrogate(text);
    }
    if ((this.#chars -= length) < 0) {
      refuse(`it is longer than ${MAX_QUERY_CHARS} characters`);
    }
    if (lone) {
      refuse(
        "it holds a lone surrogate, which is not Unicode text and would go as U+FFFD",
        name,
      );
    }
    params.append(name, texts.length === 1 ? texts[0]! : texts.join(","));
  }
}

/**
 * The names a query with a bracket in a key of its own (`"page[size]"`)
 * writes, each with what wrote it: a server reads `page[size]` from that
 * key and from `page: { size }` as one name, and `a` from `a=1` and
 * `a[b]=2` both as a value and as nested keys, so it would keep one value
 * of either pair. One list may write its name more than once.
 */
export class WrittenNames {
  #values = new Map<string, object>();
  #nests = new Set<string>();

  add(name: string, writer: object): void {
    const first = this.#values.get(name);
    if (first === writer) return;
    if (first !== undefined) {
      refuse(
        "two values are written under this name, so the server would read one of them, or both as a list; give each value once",
        name,
      );
    }
    if (this.#nests.has(name)) refuse(BOTH, name);
    this.#values.set(name, writer);
    for (
      let at = name.indexOf("[", 1);
      at > 0;
      at = name.indexOf("[", at + 1)
    ) {
      const nest = name.slice(0, at);
      if (this.#values.has(nest)) refuse(BOTH, nest);
      this.#nests.add(nest);
    }
  }
}

const BOTH =
  "it is written both as a value and as nested keys (with brackets), which a server cannot read as one: give it one or the other";

/** Refuses the query, saying where when `name` says it. */
export function refuse(problem: string, name?: string): never {
  throw validationError([{ path: "", message: queryProblem(problem, name) }]);
}

/** The message of a refused query, saying where when `name` says it. */
export function queryProblem(problem: string, name?: string): string {
  const where = name === undefined ? "" : ` at "${cutName(name)}"`;
  return `Cannot serialise the query${where}: ${problem}`;
}

/** A parameter's name for a message, cut after 60 characters. */
export function cutName(name: string): string {
  return name.length > 60 ? `${name.slice(0, 60)}…` : name;
}

/**
 * What a query's walk threw while it read the caller's values at `name` (a
 * getter, a Proxy, a `toString`), as the validation error it is, quoting
 * the exception as its cause; a refusal of the walk's own is kept.
 */
export function refuseThrown(error: unknown, name: string): never {
  if (error instanceof GrabValidationError) throw error;
  const where = name === "" ? "" : ` at "${name.slice(0, 60)}"`;
  const message = `Cannot serialise the query${where}: reading it threw (${
    reasonOf(error)
  })`;
  throw validationError([quoting({ path: "", message }, error)]);
}

/** The text of a query value, or a refusal of one no server could read. */
export function scalar(value: unknown, name: string): string {
  // A Number object is written as its value, as JSON writes it.
  const number = typeof value === "object" && value !== null
    ? unboxedNumber(value)
    : value;
  if (typeof number === "number") {
    // `NaN` is a number gone wrong (`Number("")`, a division by zero), as
    // in a body or a path parameter; a caller who means the text says so.
    if (Number.isFinite(number)) return String(number);
    refuse(`value is ${number}; give a finite number, or a string`, name);
  }
  if (typeof value === "function" || typeof value === "symbol") {
    // String() would send a function's source text.
    refuse(`value is a ${typeof value}`, name);
  }
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    // String() joins a typed array's numbers with commas: neither the
    // repeated keys of a list nor the bytes it may hold.
    refuse("value is a typed array; give Array.from(it) for a list", name);
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
