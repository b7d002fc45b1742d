/**
 * A JSON:API write body as JSON will write it, read once, so that what is
 * checked is what is renamed and sent.
 *
 * @module
 */

import { emptyFormOf, isCollection, isInvalidDate } from "./json_loss.ts";
import { isPlainObject, setOwn } from "./object.ts";

/** What {@linkcode jsonForm} gives for a body a getter or `toJSON` of throws. */
export const UNREADABLE: unique symbol = Symbol("unreadable");

/**
 * What {@linkcode jsonForm} gives for a body nested deeper than JSON could
 * write (a `toJSON` that makes new objects leading back up, without end) or
 * with more slots than it could hold.
 */
export const TOO_LARGE: unique symbol = Symbol("too large");

/** Thrown by a walk that meets what JSON would write as `{}`. */
const LOST = new Error("what a toJSON returned is written as {}");

/** Deeper than `JSON.stringify` itself can write, on any runtime. */
const MAX_DEPTH = 10_000;
/** The most members and items a body may have, past what JSON can hold. */
const MAX_SLOTS = 10_000_000;

type Copy = unknown[] | Record<string, unknown> | Written;

/**
 * The body as `JSON.stringify` sees it: plain objects and arrays copied,
 * each getter read once and each `toJSON` called once (with its key, as
 * JSON calls it), its result taken in its place. Whatever the checks must
 * name is kept as it is: a BigInt, a function, a `Map`, an invalid `Date`,
 * an object of a class (whose keys are not renamed). Shared objects stay
 * shared and cycles stay cycles. {@linkcode UNREADABLE} when a getter or a
 * `toJSON` throws, or a `toJSON` returns what JSON writes as `{}` (a `Date`):
 * the caller's body is then checked as it is, to say where.
 *
 * @example
 * ```ts ignore
 * jsonForm({ type: "notes", at: new Date(0) });
 * // { type: "notes", at: "1970-01-01T00:00:00.000Z" }
 * ```
 */
export function jsonForm(value: unknown): unknown {
  const walk: Walk = { copies: new Map(), stack: [], depth: 0 };
  let slots = MAX_SLOTS;
  try {
    const root = formOf(value, "", walk);
    while (walk.stack.length > 0) {
      const [source, copy, depth] = walk.stack.pop()!;
      if (depth > MAX_DEPTH) return TOO_LARGE;
      walk.depth = depth + 1;
      if (Array.isArray(source)) {
        if ((slots -= source.length) < 0) return TOO_LARGE;
        for (let i = 0; i < source.length; i++) {
          (copy as unknown[])[i] = formOf(source[i], String(i), walk);
        }
        continue;
      }
      const record = source as Record<string, unknown>;
      const keys = Object.keys(record);
      if ((slots -= keys.length) < 0) return TOO_LARGE;
      for (const key of keys) {
        setOwn(
          copy as Record<string, unknown>,
          key,
          formOf(record[key], key, walk),
        );
      }
    }
    return root;
  } catch {
    return UNREADABLE;
  }
}

/** The forms {@linkcode formNow} made. */
const FORMS = new WeakSet<object>();

/**
 * The body's JSON form, read now for a request written later (the JSON:API
 * codec still loading), so that what the caller changes meanwhile is not
 * what is sent; the body as it is when it has no form of its own (not an
 * object, or one a getter or `toJSON` of throws, which is read again then
 * to say where).
 */
export function formNow(body: unknown): unknown {
  const form = jsonForm(body);
  if (typeof form !== "object" || form === null || form === body) return body;
  FORMS.add(form);
  return form;
}

/** True for a form {@linkcode formNow} made, which needs no reading again. */
export function isForm(value: unknown): boolean {
  return typeof value === "object" && value !== null && FORMS.has(value);
}

/** The copies made so far, what is left to copy, and how deep it is. */
interface Walk {
  copies: Map<object, Copy>;
  stack: [object, Copy, number][];
  depth: number;
}

/**
 * The keys of what a `toJSON` returned that has a `toJSON` of its own, as
 * JSON writes them. Not a plain object, so its keys are not renamed, as
 * JSON mode does not rename an object of a class.
 */
class Written {}

// An object JSON asks for its JSON form (an invalid Date is kept for the
// checks to name).
function hasToJSON(value: object): value is { toJSON(key: string): unknown } {
  return typeof (value as { toJSON?: unknown }).toJSON === "function" &&
    !isInvalidDate(value);
}

function formOf(value: unknown, key: string, walk: Walk): unknown {
  if (typeof value !== "object" || value === null) return value;
  let written = false;
  if (hasToJSON(value)) {
    value = value.toJSON(key);
    if (typeof value !== "object" || value === null) return value;
    // JSON writes what a toJSON returns by its own keys: its own toJSON,
    // if it has one, is never called.
    written = hasToJSON(value) && !isCollection(value);
    // Its data out of JSON's sight (a Date, a URL): the caller's body is
    // checked as it is, which names it.
    if (written && emptyFormOf(value, true) !== undefined) throw LOST;
  }
  if (!written && !Array.isArray(value) && !isPlainObject(value)) return value;
  const known = walk.copies.get(value);
  if (known !== undefined) return known;
  const copy: Copy = Array.isArray(value) ? [] : written ? new Written() : {};
  walk.copies.set(value, copy);
  walk.stack.push([value, copy, walk.depth]);
  return copy;
}
