/**
 * What a query may hold, and how a query that cannot be written is refused.
 *
 * @module
 */

import { LONE_SURROGATE } from "./text.ts";
import { validationError } from "./validation_error.ts";

/** The most values a query may hold (containers and items alike). */
const MAX_QUERY_VALUES = 10_000;
/** The longest a query may be, in characters, far past any URL limit. */
const MAX_QUERY_CHARS = 2_000_000;

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
      refuse(`it has more than ${MAX_QUERY_VALUES} values`);
    }
  }

  /**
   * Appends `name` = the `texts`, comma-joined. A lone surrogate is refused:
   * `URLSearchParams` would send U+FFFD in its place.
   */
  write(params: URLSearchParams, name: string, texts: string[]): void {
    let length = name.length + texts.length;
    let lone = LONE_SURROGATE.test(name);
    for (const text of texts) {
      length += text.length;
      lone ||= LONE_SURROGATE.test(text);
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

/** Refuses the query, saying where when `name` says it. */
export function refuse(problem: string, name?: string): never {
  const where = name === undefined
    ? ""
    : ` at "${name.length > 60 ? `${name.slice(0, 60)}…` : name}"`;
  const message = `Cannot serialise the query${where}: ${problem}`;
  throw validationError([{ path: "", message }]);
}
