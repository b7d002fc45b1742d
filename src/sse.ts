/**
 * An incremental, bounded parser of Server-Sent Events, after the HTML
 * standard's "Interpreting an event stream" (9.2.6): raw body bytes in,
 * dispatched events out, at most one event's worth of text held.
 *
 * @module
 */

import type { ServerSentEvent } from "./response_type.ts";
import { ChunkDecoder, fits, utf8Bytes } from "./ndjson.ts";
import { ownSlice, Pieces } from "./pieces.ts";

const LF = 10;
const SPACE = 32;
const COLON = 58;
const DIGITS = /^[0-9]+$/;

/**
 * Parses a stream of Server-Sent Events chunk by chunk. The bytes of the
 * event being built (every line since the blank line that ended the last
 * one, comments and line ends included, the blank line itself not) are
 * bounded by `maxEventBytes`, counted exactly for valid UTF-8; the line not
 * yet ended counts too, so no more than the cap and one chunk is ever held.
 */
export class EventStreamParser {
  #max: number;
  #decoder = new ChunkDecoder();
  // The line not yet ended (no line end in it).
  #pending = new Pieces();
  // Bytes of the event being built before the text now scanned.
  #counted = 0;
  // The last text ended with CR: a LF starting the next ends the same line.
  #afterCR = false;
  #data = new Pieces();
  #dataLines = 0;
  #type = "";
  #idBuffer = "";
  #lastEventId = "";
  #retry: number | undefined = undefined;

  /** A parser of events of at most `maxEventBytes` UTF-8 bytes each. */
  constructor(maxEventBytes: number) {
    this.#max = maxEventBytes;
  }

  /**
   * The last event id seen (carried over between events, per the standard),
   * "" before any.
   */
  get lastEventId(): string {
    return this.#lastEventId;
  }

  /** The latest retry value, or undefined. */
  get retry(): number | undefined {
    return this.#retry;
  }

  /**
   * Feeds the next chunk of raw body bytes; appends every event completed by
   * it to `out`. Returns false when the event being built passes
   * `maxEventBytes`: the caller then stops, the parser is of no further use.
   */
  feed(chunk: Uint8Array, out: ServerSentEvent[]): boolean {
    const text = this.#decoder.decode(chunk);
    return this.#take(text, this.#decoder.start, out);
  }

  // Takes `text` from `from` on.
  #take(text: string, from: number, out: ServerSentEvent[]): boolean {
    if (from === text.length) return true;
    if (this.#afterCR) {
      this.#afterCR = false;
      if (text.charCodeAt(from) === LF) {
        // The LF belongs to the line its CR ended, if that was in an event.
        if (this.#counted > 0) this.#counted++;
        if (++from === text.length) return this.#counted <= this.#max;
      }
    }
    const lf = text.indexOf("\n", from);
    const cr = text.indexOf("\r", from);
    const pending = this.#pending.text;
    if (lf === -1 && cr === -1) {
      const rest = from === 0 ? text : text.slice(from);
      if (pending === "") this.#pending.reset(rest);
      else this.#pending.add(rest, "");
      this.#counted += this.#decoder.ascii
        ? text.length - from
        : utf8Bytes(text, from, text.length);
      return this.#counted <= this.#max;
    }
    if (pending === "") return this.#scan(text, from, from, lf, cr, out);
    // The pending line ends here: finished on its own, then the rest, uncopied.
    this.#pending.reset("");
    const end = cr === -1 || (lf !== -1 && lf < cr) ? lf : cr;
    const head = pending + text.slice(from, end + 1);
    const ok = end === lf
      ? this.#scanLF(head, 0, pending.length, head.length - 1, out)
      : this.#scan(head, 0, pending.length, -1, head.length - 1, out);
    return ok && this.#take(text, end + 1, out);
  }

  /**
   * The end of the body: an event not ended by a blank line is discarded, as
   * the standard says, so nothing is appended to `out`.
   */
  end(_out: ServerSentEvent[]): void {
    this.#decoder.flush();
    this.#pending.reset("");
    this.#data.reset("");
    this.#type = "";
    this.#counted = this.#dataLines = 0;
  }

  /** Lets go of the event being built; the parser is then of no use. */
  drop(): void {
    this.end([]);
  }

  // Scans `s` from `start` (the first line's start), `lf` and `cr` the first
  // line ends at or after `base` (the first byte not counted; -1: none).
  #scan(
    s: string,
    start: number,
    base: number,
    lf: number,
    cr: number,
    out: ServerSentEvent[],
  ): boolean {
    if (cr === -1) return this.#scanLF(s, start, base, lf, out);
    const ascii = this.#decoder.ascii;
    let counted = this.#counted;
    for (;;) {
      let end: number;
      let next: number;
      if (cr === -1 || (lf !== -1 && lf < cr)) {
        if (lf === -1) break;
        end = lf;
        next = lf + 1;
      } else {
        end = cr;
        next = s.charCodeAt(cr + 1) === LF ? cr + 2 : cr + 1;
        // Only a CR that ends the chunk may have its LF in the next one.
        if (cr + 1 === s.length) this.#afterCR = true;
      }
      if (end === start) {
        if (!fits(s, counted, base, start, ascii, this.#max)) return false;
        this.#dispatch(out);
        counted = 0;
        base = next;
      } else {
        this.#line(s, start, end);
      }
      start = next;
      if (lf !== -1 && lf < next) lf = s.indexOf("\n", next);
      if (cr !== -1 && cr < next) cr = s.indexOf("\r", next);
    }
    return this.#rest(s, start, base, counted);
  }

  // #scan for a text with no CR, the usual case, kept lean: one step builds
  // the usual event, one data line and a blank line.
  #scanLF(
    s: string,
    start: number,
    base: number,
    lf: number,
    out: ServerSentEvent[],
  ): boolean {
    const ascii = this.#decoder.ascii;
    const length = s.length;
    let counted = this.#counted;
    while (lf !== -1) {
      const next = lf + 1;
      if (lf === start) {
        if (!fits(s, counted, base, start, ascii, this.#max)) return false;
        this.#dispatch(out);
        counted = 0;
        start = base = next;
      } else if (
        this.#dataLines === 0 && next < length && s.charCodeAt(next) === LF &&
        isData(s, start)
      ) {
        if (!fits(s, counted, base, next, ascii, this.#max)) return false;
        // Data stays a slice of its chunk: copying each event's would cost
        // some 60 % more parse time. An id and a type, which the stream
        // keeps for its life and a caller keeps to resume, are copied.
        this.#emit(out, s.slice(valueStart(s, start + 5), lf));
        counted = 0;
        start = base = next + 1;
      } else {
        this.#line(s, start, lf);
        start = next;
      }
      lf = s.indexOf("\n", start);
    }
    return this.#rest(s, start, base, counted);
  }

  // Keeps the line not yet ended and counts the bytes from `base` on.
  #rest(s: string, start: number, base: number, counted: number): boolean {
    counted += this.#decoder.ascii
      ? s.length - base
      : utf8Bytes(s, base, s.length);
    this.#counted = counted;
    if (start < s.length) this.#pending.reset(s.slice(start));
    return counted <= this.#max;
  }

  // One line, not blank, from `start` to `end` (its line end).
  #line(s: string, start: number, end: number): void {
    if (isData(s, start)) {
      const value = s.slice(valueStart(s, start + 5), end);
      this.#addData(value);
      return;
    }
    const first = s.charCodeAt(start);
    if (first === COLON) return;
    if (first === 101 && s.startsWith("vent:", start + 1)) {
      this.#type = ownSlice(s, valueStart(s, start + 6), end);
      return;
    }
    // Only names of at most five characters (event, data, id, retry) do
    // anything, so the colon is looked for no further than that.
    const last = Math.min(end, start + 6);
    let colon = start;
    while (colon < last && s.charCodeAt(colon) !== COLON) colon++;
    if (colon === end) this.#field(s.slice(start, end), "");
    else if (colon < last) {
      const value = ownSlice(s, valueStart(s, colon + 1), end);
      this.#field(s.slice(start, colon), value);
    }
  }

  // A data line's value: the event's data so far, a LF, the value.
  #addData(value: string): void {
    if (this.#dataLines++ === 0) this.#data.reset(value);
    else this.#data.add(value, "\n");
  }

  #field(name: string, value: string): void {
    switch (name) {
      case "event":
        this.#type = value;
        break;
      case "data":
        this.#addData(value);
        break;
      case "id":
        if (!value.includes("\0")) this.#idBuffer = value;
        break;
      case "retry": {
        // Digits past the largest number (Infinity): ignored, as browsers do.
        const ms = DIGITS.test(value) ? Number(value) : Infinity;
        if (ms !== Infinity) this.#retry = ms;
        break;
      }
    }
  }

  // A blank line: the event built so far, if it has data.
  #dispatch(out: ServerSentEvent[]): void {
    if (this.#dataLines === 0) {
      this.#lastEventId = this.#idBuffer;
      this.#type = "";
      return;
    }
    const data = this.#data.text;
    this.#data.reset("");
    this.#dataLines = 0;
    this.#emit(out, data);
  }

  #emit(out: ServerSentEvent[], data: string): void {
    const id = this.#idBuffer;
    // Not stored again when unchanged: a store has a write barrier.
    if (id !== this.#lastEventId) this.#lastEventId = id;
    let event = "message";
    if (this.#type !== "") {
      event = this.#type;
      this.#type = "";
    }
    const retry = this.#retry;
    out.push(
      retry === undefined ? { event, data, id } : { event, data, id, retry },
    );
  }
}

/** Whether a `data:` field starts at `i`. */
function isData(s: string, i: number): boolean {
  return s.charCodeAt(i) === 100 && s.charCodeAt(i + 4) === COLON &&
    s.charCodeAt(i + 1) === 97 && s.charCodeAt(i + 2) === 116 &&
    s.charCodeAt(i + 3) === 97;
}

/** Where a value starts, `i` being just after its colon: one space skipped. */
function valueStart(s: string, i: number): number {
  return s.charCodeAt(i) === SPACE ? i + 1 : i;
}
