/**
 * Differential tests of the live body parsers against implementations grab
 * shares nothing with, on bodies served by a real server on 127.0.0.1 in
 * random chunks. Seeded, with a fixed run count.
 *
 * - SSE: `eventsource-parser` fed the same chunks, decoded by a streaming
 *   `TextDecoder` that keeps the BOM for the parser to remove. It resets its
 *   id buffer after each blank line and reports the id then (`onId`); the
 *   HTML standard keeps the buffer, so each event's `id` and `lastEventId`
 *   here are the last id it reported. A `retry` on an event is the latest
 *   it reported before it.
 * - NDJSON: the whole body decoded at once, split on LF or CRLF (a CR that
 *   ends the body is taken as the start of a CRLF), lines of only spaces
 *   and tabs skipped, each other line `JSON.parse`d; the first line that
 *   does not parse ends the stream with kind "parse".
 *
 * Bodies mix the grammar's edge cases with bytes of no grammar: invalid
 * UTF-8, BOMs at the start and elsewhere, lone CRs and LFs.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import { createParser, fc } from "./_npm.ts";
import { chunkServer, split } from "./_chunk_server.ts";
import createGrab, { type ServerSentEvent } from "../mod.ts";

const RUNS = Number(Deno.env.get("GRAB_ORACLE_RUNS") ?? 200);
const SEED = Number(Deno.env.get("GRAB_ORACLE_SEED") ?? 20_261_125);
const PARAMETERS = { seed: SEED, numRuns: RUNS, endOnFailure: true };

/** The pieces as one array of bytes. */
function joined(pieces: Uint8Array[]): Uint8Array {
  const bytes = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const piece of pieces) {
    bytes.set(piece, at);
    at += piece.length;
  }
  return bytes;
}

/** The pieces joined, then cut at `cuts` (taken modulo the length). */
function chunksOf(pieces: Uint8Array[], cuts: number[]): Uint8Array[] {
  return split(joined(pieces), cuts);
}

function utf8(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

// Bytes of no grammar: a BOM, invalid and truncated UTF-8, lone line ends.
const rawArb = fc.oneof(
  fc.constantFrom(
    [0xef, 0xbb, 0xbf],
    [0xff],
    [0xe2, 0x82],
    [0xc0, 0x80],
    [0xed, 0xa0, 0x80],
    [0xf0, 0x9f],
    [0x80],
    [0xf4, 0x90, 0x80, 0x80],
    [0x0d],
    [0x0a],
  ).map((bytes) => new Uint8Array(bytes)),
  fc.uint8Array({ maxLength: 6 }),
);

const bomArb = fc.constantFrom(0, 0, 1, 2).map((n) => utf8("\uFEFF".repeat(n)));
const cutsArb = fc.array(fc.nat(4_000), { maxLength: 24, size: "large" });

// ---------------------------------------------------------------- SSE

/** Events and the last event id as `eventsource-parser` reads the chunks. */
function oracleSse(chunks: Uint8Array[]) {
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  const events: ServerSentEvent[] = [];
  let lastEventId = "";
  let retry: number | undefined;
  const parser = createParser({
    onId(id) {
      lastEventId = id;
    },
    onRetry(ms) {
      // Digits past the largest number: no time at all, so no hint.
      if (ms !== Infinity) retry = ms;
    },
    onEvent({ id, event, data }) {
      if (id !== undefined) lastEventId = id;
      const read: ServerSentEvent = {
        event: event ?? "message",
        data,
        id: lastEventId,
      };
      if (retry !== undefined) read.retry = retry;
      events.push(read);
    },
  });
  for (const chunk of chunks) {
    parser.feed(decoder.decode(chunk, { stream: true }));
  }
  parser.feed(decoder.decode());
  return { events, lastEventId };
}

const lineEnd = fc.constantFrom("\n", "\r", "\r\n", "\n\r", "\r\r", "\n\n");
const sseValue = fc.oneof(
  fc.constantFrom(
    " ",
    "  ",
    ":",
    " : ",
    "\0",
    "x\0y",
    "é",
    "😀",
    "\uFEFF",
    "[DONE]",
  ),
  fc.nat().map(String),
  fc.string({ maxLength: 300, unit: "binary" }),
).map((value) => value.replace(/[\r\n]/g, ""));
const fieldName = fc.oneof(
  fc.constantFrom("data", "data", "event", "id", "retry", ""),
  fc.constantFrom("dat", "datas", "Data", " data", "data ", "ids", "retryy"),
  fc.string({ maxLength: 7 }).map((name) => name.replace(/[\r\n]/g, "")),
);
const separator = fc.constantFrom(":", ": ", ":  ", "", ":\t", "::");
const ssePiece = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.tuple(fieldName, separator, sseValue, lineEnd)
      .map((parts) => utf8(parts.join(""))),
  },
  {
    weight: 4,
    arbitrary: fc.tuple(separator, sseValue, lineEnd, lineEnd)
      .map((parts) => utf8(`data${parts.join("")}`)),
  },
  { weight: 4, arbitrary: lineEnd.map(utf8) },
  { weight: 2, arbitrary: rawArb },
);
const sseArb = fc.record({
  bom: bomArb,
  pieces: fc.array(ssePiece, { maxLength: 40, size: "large" }),
  cuts: cutsArb,
});

Deno.test("an SSE body reads as eventsource-parser reads it", async () => {
  let chunks: Uint8Array[] = [];
  await using server = chunkServer("text/event-stream", () => chunks);
  const grab = createGrab(`http://127.0.0.1:${server.addr.port}`);
  await fc.assert(
    fc.asyncProperty(sseArb, async ({ bom, pieces, cuts }) => {
      chunks = chunksOf([bom, ...pieces], cuts);
      const expected = oracleSse(chunks);
      const [events, error] = await grab("GET /sse", { responseType: "sse" });
      assertEquals(error, null);
      assert(events !== null);
      const got: ServerSentEvent[] = [];
      for await (const event of events) got.push({ ...event });
      assertEquals(events.error, null);
      const context = JSON.stringify(chunks.map((chunk) => [...chunk]));
      assertEquals(got, expected.events, context);
      assertEquals(events.lastEventId, expected.lastEventId, context);
    }),
    PARAMETERS,
  );
});

// ---------------------------------------------------------------- NDJSON

/** The values of a whole body, and whether a line did not parse. */
function oracleNdjson(chunks: Uint8Array[]) {
  const lines = new TextDecoder().decode(joined(chunks))
    .split(/\r?\n/);
  lines.push(lines.pop()!.replace(/\r$/, ""));
  const values: unknown[] = [];
  for (const line of lines) {
    if (/^[ \t]*$/.test(line)) continue;
    try {
      values.push(JSON.parse(line));
    } catch {
      return { values, kind: "parse" };
    }
  }
  return { values, kind: null };
}

const ndLine = fc.oneof(
  {
    weight: 30,
    arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  },
  {
    weight: 10,
    arbitrary: fc.jsonValue({ maxDepth: 2, stringUnit: "binary" })
      .map((v) => ` \t\r${JSON.stringify(v)}\r \t`),
  },
  { weight: 8, arbitrary: fc.constantFrom("", " ", "\t", " \r", "\t\r") },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "\r",
      "\u00a0",
      "\uFEFF1",
      "1\r\r",
      "[1,]",
      "{",
      "1 2",
      "\f",
    ),
  },
);
const ndEnd = fc.oneof(
  { weight: 20, arbitrary: fc.constantFrom("\n", "\r\n") },
  { weight: 1, arbitrary: fc.constant("\r") },
);
const ndArb = fc.record({
  bom: bomArb,
  pieces: fc.array(
    fc.oneof(
      {
        weight: 40,
        arbitrary: fc.tuple(ndLine, ndEnd).map((p) => utf8(p.join(""))),
      },
      { weight: 1, arbitrary: rawArb },
    ),
    { maxLength: 30, size: "large" },
  ),
  cuts: cutsArb,
});

Deno.test("an NDJSON body reads as its lines split and parsed", async () => {
  let chunks: Uint8Array[] = [];
  await using server = chunkServer("application/x-ndjson", () => chunks);
  const grab = createGrab(`http://127.0.0.1:${server.addr.port}`);
  await fc.assert(
    fc.asyncProperty(ndArb, async ({ bom, pieces, cuts }) => {
      chunks = chunksOf([bom, ...pieces], cuts);
      const expected = oracleNdjson(chunks);
      const [values, error] = await grab("GET /nd", { responseType: "ndjson" });
      assertEquals(error, null);
      assert(values !== null);
      const got: unknown[] = [];
      for await (const value of values) got.push(value);
      const context = JSON.stringify(chunks.map((chunk) => [...chunk]));
      assertEquals(got, expected.values, context);
      assertEquals(values.error?.kind ?? null, expected.kind, context);
    }),
    PARAMETERS,
  );
});
