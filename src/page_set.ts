/**
 * {@linkcode PageSet}: the pages a `paginate` walk has read, in 16 to 32
 * bytes a page however long their URLs, so a walk that follows a feed for
 * days holds megabytes, not hundreds of them.
 *
 * @module
 */

/** How many pages keep their whole spelling: the most recent. */
export const RECENT_PAGES = 1_024;

/**
 * The longest spelling kept whole: a longer one (a server's cursor of
 * kilobytes) is kept by its hash at once.
 */
export const KEPT_LENGTH = 256;

/**
 * The pages read so far, by their spelling (see `page_spelling.ts`). The
 * most recent {@linkcode RECENT_PAGES} of up to {@linkcode KEPT_LENGTH}
 * characters are kept as they are; any other by a 64-bit hash of its
 * spelling in a table of numbers, 16 to 32 bytes (as full as the table is
 * between its growths) where a URL of a hundred characters and its entry
 * in a `Set` take some 150. A link back to a page read long ago is still
 * told: a page shares the hash of another about once in 2^64 pairs, once in
 * some 18 million walks of a million pages each, which ends that walk
 * early, never loops.
 */
export class PageSet {
  #recent = new Set<string>();
  #older = new HashTable();

  /** How many pages it holds. */
  get size(): number {
    return this.#recent.size + this.#older.size;
  }

  /** Adds `page`, which moves the oldest recent page to the hashed ones. */
  add(page: string): this {
    if (page.length > KEPT_LENGTH) {
      this.#older.add(page);
      return this;
    }
    if (this.has(page)) return this;
    this.#recent.add(page);
    if (this.#recent.size > RECENT_PAGES) {
      // A Set keeps the order of insertion: the first is the oldest.
      const oldest = this.#recent.values().next().value as string;
      this.#recent.delete(oldest);
      this.#older.add(oldest);
    }
    return this;
  }

  /** True when `page` was added. */
  has(page: string): boolean {
    return this.#recent.has(page) || this.#older.has(page);
  }
}

/**
 * A set of 64-bit hashes of texts, open-addressed in one array of 32-bit
 * halves, at most half full: no object per entry.
 */
class HashTable {
  size = 0;
  // Two halves per slot; a slot of two zeros is empty (no hash is).
  #slots = new Uint32Array(2 * 256);

  add(text: string): void {
    const hash = hash64(text);
    if (this.#find(hash) >= 0) return;
    // At most half full: a probe then meets an empty slot soon.
    if (2 * (this.size + 1) > this.#slots.length / 2) this.#grow();
    this.#put(hash);
    this.size++;
  }

  has(text: string): boolean {
    return this.size > 0 && this.#find(hash64(text)) >= 0;
  }

  /** The slot that holds `hash`, or −1. */
  #find([high, low]: readonly [number, number]): number {
    const slots = this.#slots;
    const mask = slots.length / 2 - 1;
    for (let slot = low & mask;; slot = (slot + 1) & mask) {
      const first = slots[2 * slot]!;
      const second = slots[2 * slot + 1]!;
      if (first === high && second === low) return slot;
      if (first === 0 && second === 0) return -1;
    }
  }

  #put([high, low]: readonly [number, number]): void {
    const slots = this.#slots;
    const mask = slots.length / 2 - 1;
    let slot = low & mask;
    while (slots[2 * slot] !== 0 || slots[2 * slot + 1] !== 0) {
      slot = (slot + 1) & mask;
    }
    slots[2 * slot] = high;
    slots[2 * slot + 1] = low;
  }

  #grow(): void {
    const old = this.#slots;
    this.#slots = new Uint32Array(old.length * 2);
    for (let at = 0; at < old.length; at += 2) {
      if (old[at] !== 0 || old[at + 1] !== 0) {
        this.#put([old[at]!, old[at + 1]!]);
      }
    }
  }
}

/**
 * A 64-bit hash of `text` as two 32-bit halves, never both zero: two FNV-1a
 * hashes from different offsets, each mixed to its last bit (the finish of
 * MurmurHash3), so that URLs that differ in one character differ in half
 * the bits of each.
 */
function hash64(text: string): [number, number] {
  let first = 0x811c9dc5;
  let second = 0x2f3a9b27;
  for (let at = 0; at < text.length; at++) {
    const unit = text.charCodeAt(at);
    first = Math.imul(first ^ unit, 0x01000193);
    second = Math.imul(second ^ unit, 0x01000193) ^ (unit << 7);
  }
  first = mix(first);
  second = mix(second ^ first);
  return [first, second || 1];
}

function mix(hash: number): number {
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}
