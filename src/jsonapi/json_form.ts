/**
 * A JSON:API write body as JSON will write it, read once, so that what is
 * checked is what is renamed and sent.
 *
 * @module
 */

import { isInvalidDate } from "../json_value.ts";
import { isPlainObject, setOwn } from "../object.ts";

/** What {@linkcode jsonForm} gives for a body a getter or `toJSON` of throws. */
export const UNREADABLE: unique symbol = Symbol("unreadable");

type Copy = unknown[] | Record<string, unknown>;

/**
 * The body as `JSON.stringify` sees it: plain objects and arrays copied,
 * each getter read once and each `toJSON` called once (with its key, as
 * JSON calls it), its result taken in its place. Whatever the checks must
 * name is kept as it is: a BigInt, a function, a `Map`, an invalid `Date`,
 * an object of a class (whose keys are not renamed). Shared objects stay
 * shared and cycles stay cycles. {@linkcode UNREADABLE} when a getter or a
 * `toJSON` throws: the caller's body is then checked as it is, to say where.
 *
 * @example
 * ```ts ignore
 * jsonForm({ type: "notes", at: new Date(0) });
 * // { type: "notes", at: "1970-01-01T00:00:00.000Z" }
 * ```
 */
export function jsonForm(value: unknown): unknown {
  const copies = new Map<object, Copy>();
  const stack: [object, Copy][] = [];
  try {
    const root = formOf(value, "", copies, stack);
    while (stack.length > 0) {
      const [source, copy] = stack.pop()!;
      if (Array.isArray(source)) {
        for (let i = 0; i < source.length; i++) {
          (copy as unknown[])[i] = formOf(source[i], String(i), copies, stack);
        }
        continue;
      }
      const record = source as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const item = formOf(record[key], key, copies, stack);
        setOwn(copy as Record<string, unknown>, key, item);
      }
    }
    return root;
  } catch {
    return UNREADABLE;
  }
}

function formOf(
  value: unknown,
  key: string,
  copies: Map<object, Copy>,
  stack: [object, Copy][],
): unknown {
  if (typeof value !== "object" || value === null) return value;
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === "function" && !isInvalidDate(value)) {
    value = toJSON.call(value, key);
    if (typeof value !== "object" || value === null) return value;
  }
  if (!Array.isArray(value) && !isPlainObject(value)) return value;
  const known = copies.get(value);
  if (known !== undefined) return known;
  const copy: Copy = Array.isArray(value) ? new Array(value.length) : {};
  copies.set(value, copy);
  stack.push([value, copy]);
  return copy;
}
