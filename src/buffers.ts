/**
 * Byte buffers told by what they are, not by the realm that made them: an
 * `ArrayBuffer` from another realm (`node:vm`, an iframe, a test runner's
 * sandbox) fails `instanceof ArrayBuffer` and is still bytes `fetch` sends.
 *
 * @module
 */

let byteLength: (() => number) | undefined;

/**
 * True for an `ArrayBuffer` of any realm (not a `SharedArrayBuffer`). Its
 * tag is read first, so a plain object costs no exception; the tag can be
 * put on anything, so the buffer's own `byteLength` getter, which throws
 * for everything but an `ArrayBuffer`, has the last word.
 */
export function isArrayBuffer(value: unknown): value is ArrayBuffer {
  if (value instanceof ArrayBuffer) return true;
  if (tagOf(value) !== "[object ArrayBuffer]") return false;
  byteLength ??= Object.getOwnPropertyDescriptor(
    ArrayBuffer.prototype,
    "byteLength",
  )!.get!;
  try {
    byteLength.call(value);
    return true;
  } catch {
    return false;
  }
}

/** True for what is tagged a `SharedArrayBuffer`, which `fetch` never sends. */
export function isSharedBuffer(value: unknown): boolean {
  return tagOf(value) === "[object SharedArrayBuffer]";
}

/**
 * True for a view whose bytes are past the end of its resizable
 * `ArrayBuffer`, made smaller after the view was: `fetch` throws a
 * `TypeError` for it, and a copy of it has no bytes. Its `byteOffset` and
 * `byteLength` then read 0, so only a read of it tells: a `DataView`'s
 * `byteOffset` and a typed array's `at` throw.
 */
export function isOutOfBounds(view: ArrayBufferView): boolean {
  // Only a resizable buffer can shrink (a detached one is told apart).
  if ((view.buffer as { resizable?: boolean }).resizable !== true) return false;
  try {
    if (tagOf(view) === "[object DataView]") void view.byteOffset;
    // `at` checks the view's bounds and makes nothing: `slice` would call a
    // subclass's constructor (its `Symbol.species`), which may throw.
    else Uint8Array.prototype.at.call(view, 0);
    return false;
  } catch {
    return true;
  }
}

function tagOf(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  try {
    return Object.prototype.toString.call(value);
  } catch {
    return undefined; // A revoked Proxy.
  }
}
