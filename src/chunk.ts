/**
 * The chunks of a response body: each taken as plain bytes that cannot lie
 * about themselves, and gathered into one array (or one decoded text) at
 * the end.
 *
 * @module
 */

import type { Collect, ReadResult } from "./body.ts";
import { monotonic, nextTurn } from "./clock.ts";

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

/** The size of the blocks that chunks not kept as they are are copied into. */
const BLOCK_BYTES = 16 * 1024;

/**
 * A chunk is kept as it came when it has at least this many bytes and its
 * buffer at most {@linkcode MAX_SPARE} times as many: Deno's usual chunk, 16
 * KiB of a 64 KiB buffer, is kept without a copy; a byte, or a small view of
 * a large buffer, is copied.
 */
const KEEP_BYTES = 4 * 1024;
const MAX_SPARE = 4;

/**
 * The chunks of a body, kept as they come and joined at the end: as bytes,
 * or decoded to text in one call, which is far faster than decoding chunk
 * by chunk. The one-shot decoder strips a leading byte order mark only.
 *
 * A chunk is kept as it is only when it is large and a fair part of its
 * buffer: a platform's chunk may be a view of a far larger buffer (Deno's of
 * one of 64 KiB, whatever its length), and a server may send a byte a chunk,
 * so a chunk kept as it came could hold thousands of times its bytes. Others
 * are copied into blocks, so what is held stays within four times the body's
 * size, and no copy is made of the chunks a platform usually hands over. A
 * first chunk waits for a second before it is copied: a body of one chunk
 * is decoded from it, with no block.
 */
export class Gathered {
  #collect: Collect;
  #chunks: Uint8Array[] = [];
  // A first chunk that would be copied waits: a body of one chunk (a small
  // body, chunked or compressed) is decoded or copied once, with no block.
  #first: Uint8Array | undefined = undefined;
  // The block small chunks are being copied into, and its bytes so far.
  #block: Uint8Array | undefined = undefined;
  #filled = 0;

  constructor(collect: Collect) {
    this.#collect = collect;
  }

  add(chunk: Uint8Array): void {
    const first = this.#first;
    if (first !== undefined) {
      this.#first = undefined;
      this.#copy(first);
    }
    const length = chunk.byteLength;
    if (length >= KEEP_BYTES && chunk.buffer.byteLength <= MAX_SPARE * length) {
      this.#seal();
      this.#chunks.push(chunk);
    } else if (
      first === undefined && this.#block === undefined &&
      this.#chunks.length === 0
    ) {
      this.#first = chunk;
    } else {
      this.#copy(chunk);
    }
  }

  // Copies a chunk into blocks.
  #copy(chunk: Uint8Array): void {
    const length = chunk.byteLength;
    for (let at = 0; at < length;) {
      const block = this.#block ??= new Uint8Array(BLOCK_BYTES);
      const take = Math.min(length - at, BLOCK_BYTES - this.#filled);
      block.set(
        take === length ? chunk : chunk.subarray(at, at + take),
        this.#filled,
      );
      at += take;
      this.#filled += take;
      if (this.#filled === BLOCK_BYTES) this.#seal();
    }
  }

  // Ends the block: kept whole when at least half full, else as a copy.
  #seal(): void {
    const block = this.#block;
    if (block === undefined) return;
    const filled = this.#filled;
    this.#chunks.push(
      filled === BLOCK_BYTES
        ? block
        : 2 * filled >= BLOCK_BYTES
        ? block.subarray(0, filled)
        : block.slice(0, filled),
    );
    this.#block = undefined;
    this.#filled = 0;
  }

  result(size: number): ReadResult {
    const only = this.#first;
    if (this.#collect === "bytes") {
      // Bytes of their own, exactly the body, as `Response.bytes()` gives
      // them: a chunk kept as it came is a view of a larger buffer (the
      // platform's) or a buffer someone else holds (a custom `fetch`'s).
      if (only !== undefined) return only.slice();
      this.#seal();
      return concat(this.#chunks, size);
    }
    const text = decoder.decode(only ?? this.#joined(size));
    // A body of only a byte order mark is as empty as no bytes at all.
    return text === "" ? null : text;
  }

  #joined(size: number): Uint8Array {
    this.#seal();
    const chunks = this.#chunks;
    return chunks.length === 1 ? chunks[0]! : concat(chunks, size);
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
  // Real time, as the event loop runs on it, whatever `Date.now()` says;
  // from the first chunk on, so a body of one chunk never reads the clock
  // twice.
  #since: number | undefined;

  /** A turn of the event loop to wait for, when the time has come. */
  pause(): Promise<void> | undefined {
    const now = monotonic();
    this.#since ??= now;
    if (now - this.#since < BUSY_MS) return undefined;
    return new Promise((resolve) => {
      // The real event loop's: a fake clock (in tests) must not hold a
      // pause that only lets it turn.
      nextTurn(() => {
        this.#since = monotonic();
        resolve();
      });
    });
  }
}
