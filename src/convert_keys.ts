/**
 * Converting every key of a value to a casing ({@linkcode convertKeys}), and
 * the clashes that would lose a value: two keys of one object that the
 * casing makes one key ({@linkcode KeyClash}), never merged.
 *
 * @module
 */

import {
  type Casing,
  clashMark,
  convertKey,
  mayHaveClashed,
} from "./casing.ts";
import type { ValidationIssue } from "./errors.ts";
import { escapeToken, isPlainObject, setOwn } from "./object.ts";

type Container = Record<string, unknown> | unknown[];

/**
 * Two keys of one object that a casing makes one key, so that converting
 * them would keep one value and silently drop the other.
 */
export class KeyClash extends Error {
  override readonly name = "KeyClash" as const;
  /** The JSON pointer of the object that holds both keys. */
  readonly at: string;
  /** The two keys, in the object's own order. */
  readonly keys: readonly [string, string];
  /** The casing that makes them one. */
  readonly to: Casing;

  /** A clash of `keys`, both of the object at `at`. */
  constructor(at: string, keys: readonly [string, string], to: Casing) {
    const [what, outcome] = describe(at, keys, to);
    super(`${what} ${outcome}`);
    this.at = at;
    this.keys = keys;
    this.to = to;
  }

  /** The same clash, with `base` before its pointer. */
  under(base: string): KeyClash {
    return new KeyClash(base + this.at, this.keys, this.to);
  }

  /** The issue of a request body that holds it, at the second key's path. */
  issue(path: string): ValidationIssue {
    const [what, outcome] = describe(this.at, this.keys, this.to);
    return { path, message: `Cannot send ${what}: ${outcome}` };
  }
}

/**
 * A clash in words: the keys and where they are (`keys "a_b" and "aB" of
 * /x`), and what the casing makes of them (`both become "aB" in camelCase`).
 */
function describe(
  at: string,
  keys: readonly [string, string],
  to: Casing,
): [what: string, outcome: string] {
  const of = at === "" ? "" : ` of ${clipFront(at)}`;
  return [
    `keys "${clip(keys[0])}" and "${clip(keys[1])}"${of}`,
    `both become "${clip(convertKey(keys[1], to))}" in ${to}`,
  ];
}

function clip(text: string): string {
  if (text.length <= 60) return text;
  // Never half of a surrogate pair: the message stays well-formed.
  const end = /[\uD800-\uDBFF]/.test(text[59]!) ? 59 : 60;
  return `${text.slice(0, end)}…`;
}

// A long pointer keeps its end, which names the object itself.
function clipFront(text: string): string {
  if (text.length <= 60) return text;
  const start = text.length - 59;
  return `…${
    text.slice(/[\uDC00-\uDFFF]/.test(text[start]!) ? start + 1 : start)
  }`;
}

/**
 * Where in `keys` the first two are that `to` makes one key (the same key
 * twice does not count): their indices, in order; none when each stays its
 * own.
 *
 * @example
 * ```ts ignore
 * findClash(["id", "first_name", "firstName"], "camelCase"); // [1, 2]
 * ```
 */
export function findClash(
  keys: readonly string[],
  to: Casing,
): [number, number] | undefined {
  const firstOf = new Map<string, number>();
  for (let i = 0; i < keys.length; i++) {
    const converted = convertKey(keys[i]!, to);
    const first = firstOf.get(converted);
    if (first === undefined) firstOf.set(converted, i);
    else if (keys[first] !== keys[i]) return [first, i];
  }
  return undefined;
}

/** The clash of the first two of `keys`, of the object at `at`, if any. */
export function clashIn(
  at: string,
  keys: readonly string[],
  to: Casing,
): KeyClash | undefined {
  const pair = findClash(keys, to);
  if (pair === undefined) return undefined;
  return new KeyClash(at, [keys[pair[0]]!, keys[pair[1]]!], to);
}

/**
 * Returns a deep copy of `value` with every object key converted to `to`.
 * Only arrays and plain objects are walked; other objects (`Date`, `Blob`, …)
 * are kept as they are. A key whose value is `undefined` is left out, as
 * JSON leaves it out. Iterative, so deep nesting cannot overflow the stack.
 * The input is never mutated.
 *
 * @throws {KeyClash} when two keys of one object become the same key.
 *
 * @example
 * ```ts ignore
 * convertKeys({ user_name: "ada", tags: [{ tag_id: 1 }] }, "camelCase");
 * // { userName: "ada", tags: [{ tagId: 1 }] }
 * ```
 */
export function convertKeys(value: unknown, to: Casing): unknown {
  if (to === "none" || !isContainer(value)) return value;
  const mark = clashMark(to);
  const root = emptyLike(value);
  const stack: [Container, Container][] = [[value, root]];
  while (stack.length > 0) {
    const [source, target] = stack.pop()!;
    if (Array.isArray(source)) {
      const out = target as unknown[];
      for (let i = 0; i < source.length; i++) {
        out[i] = copySlot(source[i], stack);
      }
    } else {
      const out = target as Record<string, unknown>;
      let written = 0;
      for (const key of Object.keys(source)) {
        const item = source[key];
        // Left out, as JSON leaves it out: it clashes with no key.
        if (item === undefined) continue;
        written++;
        setOwn(out, convertKey(key, to), copySlot(item, stack));
      }
      // Counted only once a suspect was met (see clashMark): a key lost
      // leaves the copy short.
      if (mayHaveClashed(to, mark) && Object.keys(out).length !== written) {
        const clash = findKeyClash(value, to);
        if (clash !== undefined) throw clash;
      }
    }
  }
  return root;
}

/**
 * The first clash in `value`, in document order: two keys of one plain
 * object (walked as {@linkcode convertKeys} walks) that `to` makes one.
 */
export function findKeyClash(value: unknown, to: Casing): KeyClash | undefined {
  if (!isContainer(value)) return undefined;
  const stack: Place[] = [{ value, up: null, key: "" }];
  while (stack.length > 0) {
    const place = stack.pop()!;
    const current = place.value;
    let keys = Object.keys(current);
    if (!Array.isArray(current)) {
      const record = current as Record<string, unknown>;
      keys = keys.filter((key) => record[key] !== undefined);
      const pair = findClash(keys, to);
      if (pair !== undefined) {
        const clashing = [keys[pair[0]]!, keys[pair[1]]!] as const;
        return new KeyClash(pointerOf(place), clashing, to);
      }
    }
    for (let i = keys.length - 1; i >= 0; i--) {
      const item = (current as Record<string, unknown>)[keys[i]!];
      if (isContainer(item)) {
        stack.push({ value: item, up: place, key: keys[i]! });
      }
    }
  }
  return undefined;
}

/** A container on the walk, with the way back up for a clash's pointer. */
interface Place {
  value: Container;
  up: Place | null;
  key: string;
}

function pointerOf(place: Place): string {
  let at = "";
  for (let p: Place | null = place; p.up !== null; p = p.up) {
    at = `/${escapeToken(p.key)}${at}`;
  }
  return at;
}

function isContainer(value: unknown): value is Container {
  // An object with a toJSON method is sent as what that returns, not as its
  // own keys, so its keys are not renamed either.
  return Array.isArray(value) ||
    (isPlainObject(value) && typeof value["toJSON"] !== "function");
}

function emptyLike(value: Container): Container {
  return Array.isArray(value) ? new Array(value.length) : {};
}

function copySlot(value: unknown, stack: [Container, Container][]): unknown {
  if (!isContainer(value)) return value;
  const copy = emptyLike(value);
  stack.push([value, copy]);
  return copy;
}
