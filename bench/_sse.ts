/**
 * The Server-Sent Events parsing comparison: grab's `EventStreamParser`
 * against eventsource-parser and `@std/http`'s `ServerSentEventParseStream`,
 * on ~50 MB of small events held in memory as 64 KiB chunks.
 *
 * @module
 */

import { ServerSentEventParseStream } from "@std/http/server-sent-event-parse-stream";
import { createParser } from "npm:eventsource-parser@4.1.3";
import type { ServerSentEvent } from "../src/response_type.ts";
import { EventStreamParser } from "../src/sse.ts";
import { median, rotate, settle } from "./_stats.ts";

/** The eventsource-parser version compared. */
export const EVENTSOURCE_PARSER_VERSION = "4.1.3";
/** The `@std/http` version compared (the one `deno.json` maps). */
export const STD_HTTP_VERSION = "1.1.3";

/** Contender names in table order, grab first. */
export const SSE_NAMES = [
  "grab",
  "eventsource-parser",
  "@std/http",
] as const;

/**
 * What a contender saw: the events and the characters of their data, which
 * every contender must agree on.
 */
interface Seen {
  events: number;
  dataChars: number;
}

/**
 * One contender: parses every chunk into event objects and hands each to
 * the same consumer, which reads its data.
 */
interface Contender {
  name: (typeof SSE_NAMES)[number];
  run: (chunks: readonly Uint8Array[]) => Promise<Seen> | Seen;
}

const CONTENDERS: Contender[] = [
  {
    name: "grab",
    run(chunks) {
      const parser = new EventStreamParser(1 << 20);
      const out: ServerSentEvent[] = [];
      const seen = { events: 0, dataChars: 0 };
      for (const chunk of chunks) {
        if (!parser.feed(chunk, out)) throw new Error("event over the cap");
        consume(out, seen);
      }
      parser.end(out);
      consume(out, seen);
      return seen;
    },
  },
  {
    name: "eventsource-parser",
    run(chunks) {
      // Its callback gets each event; they are gathered per chunk, as grab
      // gathers them, so that both hand the same objects to the consumer.
      const out: { data: string }[] = [];
      const seen = { events: 0, dataChars: 0 };
      const parser = createParser({ onEvent: (event) => out.push(event) });
      const decoder = new TextDecoder();
      for (const chunk of chunks) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        consume(out, seen);
      }
      parser.feed(decoder.decode());
      consume(out, seen);
      return seen;
    },
  },
  {
    name: "@std/http",
    async run(chunks) {
      const seen = { events: 0, dataChars: 0 };
      const stream = ReadableStream.from(chunks).pipeThrough(
        new ServerSentEventParseStream(),
      );
      for await (const event of stream) {
        seen.events++;
        seen.dataChars += event.data?.length ?? 0;
      }
      return seen;
    },
  },
];

/** Reads the data of the events in `out`, then empties it. */
function consume(out: { data: string }[], seen: Seen): void {
  for (const event of out) seen.dataChars += event.data.length;
  seen.events += out.length;
  out.length = 0;
}

/** The stream: its chunks, bytes and the events it holds. */
export interface SseCorpus {
  chunks: Uint8Array[];
  bytes: number;
  events: number;
  dataChars: number;
}

/**
 * About `target` bytes of small LLM-style events, cut into `chunkSize`
 * chunks regardless of line and character boundaries. Every 16th event has
 * an `event:` line, every 64th an `id:`, every 100th a comment line and two
 * `data:` lines; some tokens are not ASCII.
 */
export function sseCorpus(target: number, chunkSize = 65_536): SseCorpus {
  const parts: string[] = [];
  let length = 0;
  let events = 0;
  let dataChars = 0;
  while (length < target) {
    const i = events++;
    let event = "";
    if (i % 100 === 0) event += ": keep-alive\n";
    if (i % 16 === 0) event += "event: delta\n";
    if (i % 64 === 0) event += `id: ${i}\n`;
    const token = i % 50 === 0 ? `tök😀${i}` : `tok${i}`;
    const data = `{"choices":[{"delta":{"content":"${token}"}}]}`;
    event += `data: ${data}\n`;
    dataChars += data.length;
    if (i % 100 === 0) {
      event += 'data: {"usage":null}\n';
      dataChars += '\n{"usage":null}'.length;
    }
    event += "\n";
    parts.push(event);
    length += event.length;
  }
  const all = new TextEncoder().encode(parts.join(""));
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < all.byteLength; at += chunkSize) {
    chunks.push(all.subarray(at, at + chunkSize));
  }
  return { chunks, bytes: all.byteLength, events, dataChars };
}

/** Medians by contender, and ratios of each one's time to grab's. */
export interface SseResults {
  bytes: number;
  chunks: number;
  events: number;
  rounds: number;
  medianMs: Record<string, number>;
  /** Median over rounds of (contender's time ÷ grab's time in that round). */
  ratioToGrab: Record<string, number>;
  /** Lowest and highest of those per-round ratios. */
  ratioRange: Record<string, [number, number]>;
}

/** Options of {@linkcode runSse}. */
export interface SseOptions {
  bytes: number;
  rounds: number;
  log: (line: string) => void;
}

async function timed(
  contender: Contender,
  corpus: SseCorpus,
): Promise<number> {
  const start = performance.now();
  const seen = await contender.run(corpus.chunks);
  const time = performance.now() - start;
  if (seen.events !== corpus.events || seen.dataChars !== corpus.dataChars) {
    throw new Error(
      `${contender.name} saw ${seen.events} events with ${seen.dataChars} characters of data, not ${corpus.events} with ${corpus.dataChars}`,
    );
  }
  return time;
}

/**
 * One warm-up round, then `rounds` rounds in which every contender parses
 * the whole stream once, the order rotated by one place per round.
 */
export async function runSse(options: SseOptions): Promise<SseResults> {
  const corpus = sseCorpus(options.bytes);
  const times: Record<string, number[]> = {};
  const ratios: Record<string, number[]> = {};
  for (const c of CONTENDERS) {
    times[c.name] = [];
    ratios[c.name] = [];
    await timed(c, corpus);
  }
  for (let r = 0; r < options.rounds; r++) {
    const got: Record<string, number> = {};
    for (const c of rotate(CONTENDERS, r)) {
      await settle();
      got[c.name] = await timed(c, corpus);
    }
    for (const c of CONTENDERS) {
      times[c.name]!.push(got[c.name]!);
      ratios[c.name]!.push(got[c.name]! / got["grab"]!);
    }
    options.log(`  round ${r + 1}/${options.rounds}`);
  }
  const results: SseResults = {
    bytes: corpus.bytes,
    chunks: corpus.chunks.length,
    events: corpus.events,
    rounds: options.rounds,
    medianMs: {},
    ratioToGrab: {},
    ratioRange: {},
  };
  for (const c of CONTENDERS) {
    results.medianMs[c.name] = median(times[c.name]!);
    results.ratioToGrab[c.name] = median(ratios[c.name]!);
    results.ratioRange[c.name] = [
      Math.min(...ratios[c.name]!),
      Math.max(...ratios[c.name]!),
    ];
  }
  return results;
}
