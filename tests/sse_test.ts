import { assert, assertEquals, assertFalse } from "@std/assert";
import { fc } from "./_npm.ts";
import type { ServerSentEvent } from "../src/response_type.ts";
import { EventStreamParser } from "../src/sse.ts";
import { cutAt, pieces } from "./_streams.ts";
import { referenceSse } from "./_sse_reference.ts";

const encoder = new TextEncoder();

/** What a parser made of some chunks, and whether every feed passed. */
interface Parsed {
  events: ServerSentEvent[];
  ok: boolean;
  parser: EventStreamParser;
}

function parseChunks(
  chunks: readonly Uint8Array[],
  max = 1 << 20,
): Parsed {
  const parser = new EventStreamParser(max);
  const events: ServerSentEvent[] = [];
  for (const chunk of chunks) {
    if (!parser.feed(chunk, events)) return { events, ok: false, parser };
  }
  parser.end(events);
  return { events, ok: true, parser };
}

/** `text` in one chunk. */
function parse(text: string, max?: number): Parsed {
  return parseChunks([encoder.encode(text)], max);
}

/** The bytes of `text` in two chunks, cut at byte `at`. */
function split(text: string, at: number): Uint8Array[] {
  const bytes = encoder.encode(text);
  return [bytes.subarray(0, at), bytes.subarray(at)];
}

const message = (data: string, id = "", event = "message") => ({
  event,
  data,
  id,
});

/** A stream with a BOM, every line end, comments, ids and wide characters. */
const SAMPLE =
  "\ufeffdata: héllo\r\n\r\n: comment 😀\nevent: greet\rid: 7\r\n" +
  "data: a\ndata:b\r\ndata\n\nid: 8\nretry: 30\n\ndata: 😀 é\r\rdata: x\n" +
  "data: not ended";

Deno.test("EventStreamParser fields", async (t) => {
  await t.step("data, event and id make an event", () => {
    const { events } = parse("event: tick\nid: 1\ndata: hello\n\n");
    assertEquals(events, [message("hello", "1", "tick")]);
  });

  await t.step("data lines are joined with LF", () => {
    const { events } = parse("data: a\ndata:\ndata\ndata: b\n\n");
    assertEquals(events, [message("a\n\n\nb")]);
  });

  await t.step("one space after the colon is removed, no more", () => {
    const { events } = parse("data:x\n\ndata:  y\n\ndata: \n\n");
    assertEquals(events, [message("x"), message(" y"), message("")]);
  });

  await t.step("a colon in the value is kept", () => {
    const { events } = parse('data: {"a":"b:c"}\n\n');
    assertEquals(events, [message('{"a":"b:c"}')]);
  });

  await t.step("comments and unknown fields are skipped", () => {
    const { events } = parse(
      ": hi\ndata: a\n:\nfoo: bar\nDATA: no\ndatas: no\nlongname\n" +
        "longername: x\n ata: y\ndata : z\neventx: y\nevent : z\nEvent: z\n\n",
    );
    assertEquals(events, [message("a")]);
  });

  await t.step("event type is 'message' when empty or unset", () => {
    const { events } = parse("event\ndata: a\n\nevent:\ndata: b\n\n");
    assertEquals(events, [message("a"), message("b")]);
  });

  await t.step("event type applies to one event only", () => {
    const { events } = parse("event: x\ndata: a\n\ndata: b\n\n");
    assertEquals(events, [message("a", "", "x"), message("b")]);
  });

  await t.step("an event with no data line is not dispatched", () => {
    const { events } = parse("event: x\n\nid: 3\n\n: c\n\ndata: a\n\n");
    // Its type is dropped, its id kept.
    assertEquals(events, [message("a", "3")]);
  });

  await t.step("the id carries over and an empty id: resets it", () => {
    const { events, parser } = parse(
      "id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: 2\ndata: d\n\nid:\n\n",
    );
    assertEquals(events, [
      message("a", "1"),
      message("b", "1"),
      message("c", ""),
      message("d", "2"),
    ]);
    assertEquals(parser.lastEventId, "");
  });

  await t.step("an id with U+0000 is ignored", () => {
    const { events, parser } = parse("id: 5\n\nid: a\0b\ndata: x\n\n");
    assertEquals(events, [message("x", "5")]);
    assertEquals(parser.lastEventId, "5");
  });

  await t.step("lastEventId changes when an event is dispatched", () => {
    const { events, parser } = parse("id: 1\ndata: a\n\nid: 2\ndata: b\n");
    assertEquals(events, [message("a", "1")]);
    assertEquals(parser.lastEventId, "1");
    assertEquals(new EventStreamParser(10).lastEventId, "");
  });

  await t.step("retry takes ASCII digits only", () => {
    const { events, parser } = parse(
      "data: a\n\nretry: 100\ndata: b\n\nretry: 1a\nretry: -1\nretry: 1.5\n" +
        "retry:\nretry:  7\nretry: ٣\ndata: c\n\nretry:0\n\n",
    );
    assertEquals(events, [
      message("a"),
      { ...message("b"), retry: 100 },
      { ...message("c"), retry: 100 },
    ]);
    assertFalse("retry" in events[0]!);
    assertEquals(parser.retry, 0);
    assertEquals(new EventStreamParser(10).retry, undefined);
  });

  await t.step("an event not ended by a blank line is discarded", () => {
    assertEquals(parse("data: a\n").events, []);
    assertEquals(parse("data: a").events, []);
    assertEquals(parse("data: a\n\ndata: b\r").events, [message("a")]);
  });

  await t.step("an empty stream has no events", () => {
    assertEquals(parse("").events, []);
    assertEquals(parseChunks([]).events, []);
  });
});

Deno.test("EventStreamParser line ends and decoding", async (t) => {
  await t.step("CR, LF and CRLF each end a line", () => {
    for (const end of ["\n", "\r", "\r\n"]) {
      const { events } = parse(`data: a${end}data: b${end}${end}`);
      assertEquals(events, [message("a\nb")], JSON.stringify(end));
    }
  });

  await t.step("CR then CRLF is two line ends", () => {
    assertEquals(parse("data: a\r\r\ndata: b\n\n").events, [
      message("a"),
      message("b"),
    ]);
  });

  await t.step("a CRLF split across chunks is one line end", () => {
    const chunks = ["data: a\r", "\ndata: b\r", "\n\r", "\n"]
      .map((s) => encoder.encode(s));
    assertEquals(parseChunks(chunks).events, [message("a\nb")]);
  });

  await t.step("one leading BOM is removed, even split", () => {
    const bom = [0xef, 0xbb, 0xbf];
    const rest = encoder.encode("data: a\n\n");
    for (const at of [1, 2]) {
      const chunks = [
        new Uint8Array(bom.slice(0, at)),
        new Uint8Array([...bom.slice(at), ...rest]),
      ];
      assertEquals(parseChunks(chunks).events, [message("a")]);
    }
  });

  await t.step("a second BOM is kept", () => {
    assertEquals(parse("\ufeffdata: \ufeffa\n\n").events, [
      message("\ufeffa"),
    ]);
    // A BOM that is not the first character starts the field name.
    assertEquals(parse("\ufeff\ufeffdata: a\n\n").events, []);
    assertEquals(parse("data: a\n\n\ufeffdata: b\n\n").events, [message("a")]);
  });

  await t.step("multi-byte characters survive any chunking", () => {
    const text = "data: é😀中\n\n";
    const bytes = encoder.encode(text);
    for (let size = 1; size <= 4; size++) {
      assertEquals(parseChunks(pieces(bytes, size)).events, [
        message("é😀中"),
      ]);
    }
  });

  await t.step("an invalid byte is decoded as U+FFFD", () => {
    const chunks = [encoder.encode("data: a"), new Uint8Array([0xff, 0x0a])];
    const { events } = parseChunks([...chunks, encoder.encode("\n")]);
    assertEquals(events, [message("a\ufffd")]);
  });
});

Deno.test("EventStreamParser chunking", async (t) => {
  const whole = referenceSse(SAMPLE).events;

  await t.step("the sample parses as the standard says", () => {
    assertEquals(whole, [
      message("héllo"),
      message("a\nb\n", "7", "greet"),
      { ...message("😀 é", "8"), retry: 30 },
    ]);
    assertEquals(parse(SAMPLE).events, whole);
  });

  await t.step("split in two at every byte", () => {
    const size = encoder.encode(SAMPLE).byteLength;
    for (let at = 0; at <= size; at++) {
      assertEquals(parseChunks(split(SAMPLE, at)).events, whole, `at ${at}`);
    }
  });

  await t.step(
    "a CRLF that ends a chunk, then a blank line: two events",
    () => {
      const chunks = ["data: a\r\n", "\ndata: b\n\n"].map((text) =>
        encoder.encode(text)
      );
      assertEquals(parseChunks(chunks).events, [message("a"), message("b")]);
      const crs = ["data: a\r", "\n\r\ndata: b\r\n\r\n"].map((text) =>
        encoder.encode(text)
      );
      assertEquals(parseChunks(crs).events, [message("a"), message("b")]);
    },
  );

  await t.step("one byte at a time", () => {
    const { events, parser } = parseChunks(pieces(encoder.encode(SAMPLE), 1));
    assertEquals(events, whole);
    assertEquals(parser.lastEventId, "8");
    assertEquals(parser.retry, 30);
  });

  await t.step("random streams in random chunks match the standard", () => {
    const line = fc.oneof(
      fc.constantFrom(
        "",
        ":",
        ": c",
        "data",
        "data:",
        "data: ",
        "event: e",
        "event",
        "id: 1",
        "id:",
        "id: \0",
        "retry: 5",
        "retry: x",
        "\ufeff",
      ),
      fc.string({ unit: "binary", maxLength: 6 }).map((s) => `data: ${s}`),
      fc.string({ maxLength: 8 }),
    );
    const stream = fc.tuple(
      fc.boolean(),
      fc.array(
        fc.tuple(line, fc.constantFrom("\n", "\r", "\r\n")),
        { maxLength: 20 },
      ),
      fc.string({ maxLength: 4 }),
    ).map(([bom, lines, tail]) =>
      (bom ? "\ufeff" : "") + lines.map(([l, e]) => l + e).join("") + tail
    );
    fc.assert(
      fc.property(
        stream,
        fc.array(fc.nat(), { maxLength: 8 }),
        (text, cuts) => {
          const bytes = encoder.encode(text);
          const chunks = cutAt(bytes, cuts);
          // The text as the bytes decode (a lone surrogate becomes U+FFFD).
          const decoded = new TextDecoder("utf-8", { ignoreBOM: true })
            .decode(bytes);
          assertEquals(
            parseChunks(chunks).events,
            referenceSse(decoded).events,
          );
        },
      ),
      { seed: 20_260_501, numRuns: 500 },
    );
  });
});

Deno.test("EventStreamParser bounds", async (t) => {
  // An event's bytes: its lines with their line ends, not the blank line.
  await t.step("exactly maxEventBytes passes, one more fails", () => {
    for (const char of ["a", "é", "😀", "中"]) {
      const text = `data: ${char.repeat(50)}\n\n`;
      const size = encoder.encode(text).byteLength - 1;
      for (const chunking of [0, 1, 3, 7]) {
        const bytes = encoder.encode(text);
        const chunks = chunking === 0 ? [bytes] : pieces(bytes, chunking);
        assert(parseChunks(chunks, size).ok, `${char} ${chunking}`);
        assertFalse(parseChunks(chunks, size - 1).ok, `${char} ${chunking}`);
      }
    }
  });

  await t.step("comments, other lines and CRLF count", () => {
    const text = ": note\r\nevent: x\r\ndata: a\r\n\r\n";
    const size = encoder.encode(text).byteLength - 2;
    assertEquals(parse(text, size).events, [message("a", "", "x")]);
    assertFalse(parse(text, size - 1).ok);
    // A CRLF split after the CR still counts two bytes.
    for (const max of [size, size - 1]) {
      const at = text.indexOf("\r\ndata");
      assertEquals(parseChunks(split(text, at + 1), max).ok, max === size);
    }
  });

  await t.step("an LF that ends a chunk's CR counts at once", () => {
    // "data: a\r\n" is 9 bytes: the event passes 8 as soon as its LF comes,
    // however the CRLF is split.
    for (const at of [8, 9]) {
      assertFalse(parseChunks(split("data: a\r\n", at), 8).ok, `at ${at}`);
      assert(parseChunks(split("data: a\r\n", at), 9).ok, `at ${at}`);
    }
    const parser = new EventStreamParser(8);
    assert(parser.feed(encoder.encode("data: a\r"), []));
    assertFalse(parser.feed(encoder.encode("\n"), []));
  });

  await t.step("the verdict does not depend on the chunking", () => {
    const part = fc.constantFrom(
      "data: ",
      "id: 1",
      ": c",
      "x",
      "é",
      "😀",
      "中",
      "\n",
      "\r",
      "\r\n",
      "\ufeff",
    );
    fc.assert(
      fc.property(
        fc.array(part, { maxLength: 24 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.nat({ max: 40 }),
        (parts, cuts, max) => {
          const bytes = encoder.encode(parts.join(""));
          assertEquals(
            parseChunks(cutAt(bytes, cuts), max).ok,
            parseChunks([bytes], max).ok,
          );
          assertEquals(
            parseChunks(pieces(bytes, 1), max).ok,
            parseChunks([bytes], max).ok,
          );
        },
      ),
      { seed: 20_260_502, numRuns: 500 },
    );
  });

  await t.step("the cap is per event, not per stream", () => {
    const text = "data: 0123456789\n\n".repeat(1_000);
    assertEquals(parse(text, 17).events.length, 1_000);
  });

  await t.step("an event over the cap fails before it is dispatched", () => {
    const { events, ok } = parse("data: a\n\ndata: toolong\n\n", 12);
    assertFalse(ok);
    assertEquals(events, [message("a")]);
  });

  await t.step("a line without end fails as soon as it passes the cap", () => {
    for (const char of ["x", "é", "😀"]) {
      const max = 1_000;
      const chunk = encoder.encode(
        char.repeat(64 / encoder.encode(char).length),
      );
      const parser = new EventStreamParser(max);
      assert(parser.feed(encoder.encode("data: "), []));
      let fed = 6;
      while (parser.feed(chunk, [])) {
        fed += chunk.byteLength;
        assert(fed <= max, `still taking after ${fed} bytes`);
      }
      assertEquals(
        fed + chunk.byteLength,
        Math.floor((max - 6) / 64 + 1) * 64 + 6,
      );
    }
  });

  await t.step(
    "a multi-byte line fails at the character passing the cap",
    () => {
      const text = `data: ${"é😀".repeat(40)}`;
      const bytes = encoder.encode(text);
      // Where the first character that takes the line past 100 bytes ends.
      let passing = 0;
      for (const char of text) {
        passing += encoder.encode(char).byteLength;
        if (passing > 100) break;
      }
      for (const size of [1, 2, 3, 5, 64]) {
        let fed = 0;
        const parser = new EventStreamParser(100);
        for (const chunk of pieces(bytes, size)) {
          fed += chunk.byteLength;
          if (!parser.feed(chunk, [])) break;
        }
        assertEquals(
          fed,
          Math.ceil(passing / size) * size,
          `chunks of ${size}`,
        );
      }
    },
  );

  await t.step("many data lines without a blank line fail", () => {
    const parser = new EventStreamParser(1_000);
    let lines = 0;
    while (parser.feed(encoder.encode("data: 0123456789\n"), [])) lines++;
    assertEquals(lines, Math.floor(1_000 / 17));
  });
});
