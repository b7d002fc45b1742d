/**
 * Bounded, incremental splitting of a UTF-8 body into lines, for NDJSON
 * (JSON Lines), and the streaming decoder it shares with the Server-Sent
 * Events parser (`sse.ts`).
 *
 * @module
 */

import { Pieces } from "./pieces.ts";

const CR = 13;
const SPACE = 32;
const TAB = 9;
const STREAM: TextDecodeOptions = { stream: true };

/**
 * The UTF-8 length of `text` from `from` to `to`. The text is what a
 * `TextDecoder` made, so every surrogate is one half of a pair (4 bytes).
 */
export function utf8Bytes(text: string, from: number, to: number): number {
  let bytes = to - from;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    bytes += code < 0x800 || (code & 0xf800) === 0xd800 ? 1 : 2;
  }
  return bytes;
}

/**
 * Whether `counted` bytes and those of `s` from `from` to `to` are at most
 * `max`. Each UTF-16 unit is one to three bytes, so they are counted only
 * when three a unit could pass `max`; `ascii` says they are one each.
 */
export function fits(
  s: string,
  counted: number,
  from: number,
  to: number,
  ascii: boolean,
  max: number,
): boolean {
  const size = counted + to - from;
  if (ascii || size + 2 * (to - from) <= max) return size <= max;
  return counted + utf8Bytes(s, from, to) <= max;
}

/**
 * A streaming UTF-8 decoder that drops exactly one byte order mark at the
 * start of the stream (the platform's own BOM handling is not relied on)
 * and tells, cheaply, when a chunk was all one-byte characters.
 */
export class ChunkDecoder {
  #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  #started = false;
  // The decoder holds no partial character from the previous chunk.
  #clean = true;
  /**
   * True when every character of the last text came from one byte, so that
   * differences of indexes in it are byte counts.
   */
  ascii = true;
  /** Where the content of the last text starts: 1 after the leading BOM. */
  start = 0;

  /** Decodes the next chunk of the stream. */
  decode(chunk: Uint8Array): string {
    const text = this.#decoder.decode(chunk, STREAM);
    const size = chunk.byteLength;
    // Each character comes from at least one byte, and a held partial
    // character from none: equal lengths mean one byte per character.
    this.ascii = this.#clean && text.length === size;
    // A chunk ending in an ASCII byte leaves nothing held.
    if (size > 0) this.#clean = chunk[size - 1]! < 0x80;
    this.start = 0;
    if (!this.#started && text.length > 0) {
      this.#started = true;
      if (text.charCodeAt(0) === 0xfeff) this.start = 1;
    }
    return text;
  }

  /** Ends the stream: what a partial character at its end decodes to. */
  flush(): string {
    this.ascii = false;
    this.start = 0;
    return this.#decoder.decode();
  }
}

/**
 * Splits a body into lines, chunk by chunk: LF or CRLF ends a line (a CR
 * alone does not), lines that hold only spaces and tabs are skipped. Each
 * line, its line end not counted, is bounded by `maxLineBytes` (UTF-8
 * bytes, exact for valid UTF-8); the line not yet ended counts too, so no
 * more than the cap and one chunk is ever held.
 */
export class LineSplitter {
  #max: number;
  #decoder = new ChunkDecoder();
  // The line not yet ended, and its bytes.
  #pending = new Pieces();
  #counted = 0;

  /** A splitter of lines of at most `maxLineBytes` UTF-8 bytes each. */
  constructor(maxLineBytes: number) {
    this.#max = maxLineBytes;
  }

  /**
   * Feeds the next chunk of raw body bytes; appends each complete line that
   * is not blank to `out`, a trailing CR removed, as a string (not parsed).
   * Returns false when a line passes `maxLineBytes`: the caller then stops,
   * the splitter is of no further use.
   */
  feed(chunk: Uint8Array, out: string[]): boolean {
    const decoder = this.#decoder;
    const text = decoder.decode(chunk);
    let from = decoder.start;
    if (from === text.length) return true;
    let lf = text.indexOf("\n", from);
    const pending = this.#pending.text;
    if (lf === -1) {
      const rest = from === 0 ? text : text.slice(from);
      if (pending === "") this.#pending.reset(rest);
      else this.#pending.add(rest, "");
      this.#counted += decoder.ascii
        ? text.length - from
        : utf8Bytes(text, from, text.length);
      return this.#within(text);
    }
    if (pending !== "") {
      // The pending line ends here: it is finished on its own, then the
      // rest, so that the text is never copied.
      this.#pending.reset("");
      const head = pending + text.slice(from, lf + 1);
      if (!this.#scan(head, 0, pending.length, head.length - 1, out)) {
        return false;
      }
      from = lf + 1;
      lf = text.indexOf("\n", from);
    }
    return this.#scan(text, from, from, lf, out);
  }

  /**
   * The end of the body: the last line, when it has no line end and is not
   * blank, is appended to `out`, a trailing CR removed. Returns false when
   * it passes `maxLineBytes` (a partial character at the very end, decoded
   * as U+FFFD, can take it over).
   */
  end(out: string[]): boolean {
    const tail = this.#decoder.flush();
    let line = this.#pending.text + tail;
    let bytes = this.#counted + utf8Bytes(tail, 0, tail.length);
    this.#pending.reset("");
    this.#counted = 0;
    if (line.charCodeAt(line.length - 1) === CR) {
      line = line.slice(0, -1);
      bytes--;
    }
    if (bytes > this.#max) return false;
    if (!isBlank(line, 0, line.length)) out.push(line);
    return true;
  }

  /** Lets go of the line not yet ended; the splitter is then of no use. */
  drop(): void {
    this.#pending.reset("");
  }

  // Splits `s` from `start` (the first line's start) with `lf` its first
  // LF, `base` being the first index whose bytes are not yet counted.
  #scan(
    s: string,
    start: number,
    base: number,
    lf: number,
    out: string[],
  ): boolean {
    const ascii = this.#decoder.ascii;
    const max = this.#max;
    let counted = this.#counted;
    while (lf !== -1) {
      let end = lf;
      // A CR kept from the last chunk makes `end` base − 1: one byte less.
      if (s.charCodeAt(end - 1) === CR) end--;
      if (!fits(s, counted, base, end, ascii, max)) return false;
      if (!isBlank(s, start, end)) out.push(s.slice(start, end));
      counted = 0;
      start = base = lf + 1;
      lf = s.indexOf("\n", start);
    }
    this.#counted = counted +
      (ascii ? s.length - base : utf8Bytes(s, base, s.length));
    if (start < s.length) this.#pending.reset(s.slice(start));
    return this.#within(s);
  }

  // Whether the line not yet ended is within the cap; a CR it ends with
  // may start its line end, so it is not counted yet.
  #within(text: string): boolean {
    const cr = this.#pending.text !== "" &&
        text.charCodeAt(text.length - 1) === CR
      ? 1
      : 0;
    return this.#counted - cr <= this.#max;
  }
}

/** Whether `s` from `start` to `end` holds only spaces and tabs. */
function isBlank(s: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const code = s.charCodeAt(i);
    if (code !== SPACE && code !== TAB) return false;
  }
  return true;
}
