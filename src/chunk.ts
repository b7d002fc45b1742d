/**
 * The chunks of a response body: each taken as plain bytes that cannot lie
 * about themselves, and gathered into one array (or one decoded text) at
 * the end.
 *
 * @module
 */

import type { Collect, ReadResult } from "./body.ts";
import { PLATFORM_SET_TIMEOUT } from "./shared_timeout.ts";

const decoder = new TextDecoder();

/** Typed arrays' own getters, which no subclass or own property changes. */
const TYPED_ARRAY = Object.getPrototypeOf(Uint8Array.prototype);
const [TAG, BUFFER, OFFSET, LENGTH] = [
  Symbol.toStringTag,
  "buffer",
  "byteOffset",
  "byteLength",
].map((name) => Object.getOwnPropertyDescriptor(TYPED_ARRAY, name)!.get!) as [
  () => string | undefined,
  () => ArrayBufferLike,
  () => number,
  () => number,
];

/**
 * A chunk of a body that is not the platform's, as a plain view of its
 * bytes: a subclass or an own property cannot then lie about its size or
 * its contents. Bytes from another realm (a test runner's sandbox, an
 * iframe) are bytes too. `undefined` when the chunk is not bytes, or only
 * dressed as bytes.
 */
export function toPlainBytes(chunk: unknown): Uint8Array | undefined {
  // The tag getter reads the array's own kind, in any realm, and gives
  // `undefined` for anything that is not a typed array.
  if (TAG.call(chunk) !== "Uint8Array") return undefined;
  try {
    return new Uint8Array(
      BUFFER.call(chunk),
      OFFSET.call(chunk),
      LENGTH.call(chunk),
    );
  } catch {
    // Bytes whose buffer was transferred away: no bytes behind them.
    return undefined;
  }
}

/**
 * The chunks of a body, kept as they come and joined at the end: as bytes,
 * or decoded to text in one call, which is far faster than decoding chunk
 * by chunk. The one-shot decoder strips a leading byte order mark only.
 */
export class Gathered {
  #collect: Collect;
  #chunks: Uint8Array[] = [];

  constructor(collect: Collect) {
    this.#collect = collect;
  }

  add(chunk: Uint8Array): void {
    this.#chunks.push(chunk);
  }

  result(size: number): ReadResult {
    const chunks = this.#chunks;
    const bytes = chunks.length === 1 ? chunks[0]! : concat(chunks, size);
    if (this.#collect === "bytes") return bytes;
    const text = decoder.decode(bytes);
    // A body of only a byte order mark is as empty as no bytes at all.
    return text === "" ? null : text;
  }
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}

/** How long a loop of reads may run before it lets timers fire. */
const BUSY_MS = 50;

/**
 * Paces a loop of reads from a body that is not the platform's. Such a body
 * may hand over chunk after chunk without ever waiting, and then no timer
 * could fire: not the caller's `AbortSignal.timeout`, not a timeout. Once
 * the loop has run for {@linkcode BUSY_MS}, it waits for one turn of the
 * event loop.
 */
export class Pacer {
  #since = Date.now();

  /** A turn of the event loop to wait for, when the time has come. */
  pause(): Promise<void> | undefined {
    if (Date.now() - this.#since < BUSY_MS) return undefined;
    return new Promise((resolve) => {
      // The platform's own: a fake clock (in tests) must not hold a pause
      // that only lets the real event loop turn.
      PLATFORM_SET_TIMEOUT(() => {
        this.#since = Date.now();
        resolve();
      }, 0);
    });
  }
}
