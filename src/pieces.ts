/**
 * Text built piece by piece, as the chunks of a body bring it, held as
 * about its own size.
 *
 * @module
 */

/** Pieces a text may be built of before it is considered for a join. */
const MIN_PIECES = 64;
/** At most one piece per this many characters is left unjoined. */
const CHARS_PER_PIECE = 16;

/**
 * A text appended to piece by piece. `+` makes a rope (in V8 and
 * JavaScriptCore alike): a node of some 32 bytes per piece, whatever the
 * piece's length, so a line that comes a byte a chunk, or an event of many
 * short `data:` lines, would hold some 32 times its size. Once the pieces
 * outnumber one per {@linkcode CHARS_PER_PIECE} characters, they are joined
 * into one flat string: what is held stays within a few times the text, and
 * the joins cost amortised linear time.
 */
export class Pieces {
  /** The text so far. */
  text = "";
  // The pieces `text` is made of since it was last joined.
  #pieces = 0;

  /** Starts again with `text`, one piece (`""` for none). */
  reset(text: string): void {
    this.text = text;
    this.#pieces = 1;
  }

  /** Appends `separator` and `more`. */
  add(more: string, separator: string): void {
    const text = this.text;
    const pieces = ++this.#pieces;
    if (pieces > MIN_PIECES && pieces * CHARS_PER_PIECE > text.length) {
      // A new string, copied flat, in place of the rope.
      this.text = [text, more].join(separator);
      this.#pieces = 1;
    } else {
      this.text = text + separator + more;
    }
  }
}

/**
 * `s.slice(start, end)`, copied when it is less than half of `s`: V8 makes
 * a slice of 13 characters or more a view that keeps all of `s` alive, so
 * an event's id kept by the caller would hold the whole chunk it came in.
 */
export function ownSlice(s: string, start: number, end: number): string {
  const slice = s.slice(start, end);
  if (2 * (end - start) >= s.length) return slice;
  // Slicing the rope flattens it: a copy of the slice's characters alone.
  return (" " + slice).slice(1);
}
