import { assert, assertEquals, assertFalse } from "@std/assert";
import { fc } from "./_npm.ts";
import { LineSplitter, utf8Bytes } from "../src/ndjson.ts";
import { cutAt, pieces } from "./_streams.ts";

const encoder = new TextEncoder();

/** What a splitter made of some chunks, and whether every call passed. */
interface Split {
  lines: string[];
  ok: boolean;
}

function splitChunks(chunks: readonly Uint8Array[], max = 1 << 20): Split {
  const splitter = new LineSplitter(max);
  const lines: string[] = [];
  for (const chunk of chunks) {
    if (!splitter.feed(chunk, lines)) return { lines, ok: false };
  }
  return { lines, ok: splitter.end(lines) };
}

/** `text` in one chunk. */
function split(text: string, max?: number): Split {
  return splitChunks([encoder.encode(text)], max);
}

/** The rules, applied plainly to the whole decoded text. */
function reference(text: string): string[] {
  if (text.startsWith("\ufeff")) text = text.slice(1);
  return text.split("\n")
    .map((line) => line.endsWith("\r") ? line.slice(0, -1) : line)
    .filter((line) => !/^[ \t]*$/.test(line));
}

const SAMPLE = '\ufeff{"a":1}\r\n  \t \n{"b":"é😀"}\n\r\n\n{"c":"x\ry"}\r\n' +
  '\t{"d":4} \n\ufeff{"e":5}\r';

Deno.test("LineSplitter lines", async (t) => {
  await t.step("LF and CRLF end lines; the CR is removed", () => {
    assertEquals(split('{"a":1}\n{"b":2}\r\n{"c":3}\n').lines, [
      '{"a":1}',
      '{"b":2}',
      '{"c":3}',
    ]);
  });

  await t.step("a CR alone does not end a line", () => {
    assertEquals(split("a\rb\nc\r\rd\n").lines, ["a\rb", "c\r\rd"]);
  });

  await t.step("blank lines are skipped, other lines kept as they are", () => {
    assertEquals(split("\n\r\n  \n\t\r\n \t \n x \n\t1\t\n").lines, [
      " x ",
      "\t1\t",
    ]);
  });

  await t.step("the last line needs no line end", () => {
    assertEquals(split("1\n2").lines, ["1", "2"]);
    assertEquals(split("1\n2\r").lines, ["1", "2"]);
    assertEquals(split("1\n  ").lines, ["1"]);
    assertEquals(split("1\n\r").lines, ["1"]);
    assertEquals(split("").lines, []);
    assertEquals(splitChunks([]).lines, []);
  });

  await t.step("lines are not parsed", () => {
    assertEquals(split("not json\n{\n").lines, ["not json", "{"]);
  });

  await t.step("one leading BOM is removed, a second kept", () => {
    assertEquals(split("\ufeff1\n").lines, ["1"]);
    assertEquals(split("\ufeff\ufeff1\n\ufeff2\n").lines, [
      "\ufeff1",
      "\ufeff2",
    ]);
    const bom = [0xef, 0xbb, 0xbf];
    for (const at of [1, 2]) {
      const chunks = [
        new Uint8Array(bom.slice(0, at)),
        new Uint8Array([...bom.slice(at), ...encoder.encode("1\n")]),
      ];
      assertEquals(splitChunks(chunks).lines, ["1"]);
    }
  });

  await t.step("a CRLF split across chunks is one line end", () => {
    const chunks = ["1\r", "\n2\r", "\n\r", "\n3"].map((s) =>
      encoder.encode(s)
    );
    assertEquals(splitChunks(chunks).lines, ["1", "2", "3"]);
  });

  await t.step("an invalid byte is decoded as U+FFFD", () => {
    const chunks = [encoder.encode("a"), new Uint8Array([0xff, 0x0a])];
    assertEquals(splitChunks(chunks).lines, ["a\ufffd"]);
    // A partial character at the very end, too.
    assertEquals(splitChunks([new Uint8Array([0x31, 0xe2, 0x82])]).lines, [
      "1\ufffd",
    ]);
  });
});

Deno.test("LineSplitter chunking", async (t) => {
  const whole = reference(SAMPLE);

  await t.step("the sample splits as the rules say", () => {
    assertEquals(whole, [
      '{"a":1}',
      '{"b":"é😀"}',
      '{"c":"x\ry"}',
      '\t{"d":4} ',
      '\ufeff{"e":5}',
    ]);
    assertEquals(split(SAMPLE).lines, whole);
  });

  await t.step("split in two at every byte", () => {
    const bytes = encoder.encode(SAMPLE);
    for (let at = 0; at <= bytes.byteLength; at++) {
      const chunks = [bytes.subarray(0, at), bytes.subarray(at)];
      assertEquals(splitChunks(chunks).lines, whole, `at ${at}`);
    }
  });

  await t.step("one byte at a time", () => {
    assertEquals(splitChunks(pieces(encoder.encode(SAMPLE), 1)).lines, whole);
  });

  await t.step("random text in random chunks matches the rules", () => {
    const part = fc.oneof(
      fc.constantFrom("\n", "\r", "\r\n", " ", "\t", "\ufeff", "é", "😀"),
      fc.string({ unit: "binary", maxLength: 6 }),
    );
    fc.assert(
      fc.property(
        fc.array(part, { maxLength: 30 }).map((parts) => parts.join("")),
        fc.array(fc.nat(), { maxLength: 8 }),
        (text, cuts) => {
          const bytes = encoder.encode(text);
          const chunks = cutAt(bytes, cuts);
          // The text as the bytes decode (a lone surrogate becomes U+FFFD).
          const decoded = new TextDecoder("utf-8", { ignoreBOM: true })
            .decode(bytes);
          assertEquals(splitChunks(chunks).lines, reference(decoded));
        },
      ),
      { seed: 20_260_501, numRuns: 500 },
    );
  });
});

Deno.test("LineSplitter bounds", async (t) => {
  // A line's bytes: the line without its LF or CRLF.
  await t.step("exactly maxLineBytes passes, one more fails", () => {
    for (const char of ["a", "é", "😀", "中"]) {
      const line = `"${char.repeat(50)}"`;
      const size = encoder.encode(line).byteLength;
      for (const end of ["\n", "\r\n", ""]) {
        // Without a line end, the line is the last one.
        const rest = end === "" ? "" : `${end}2\n`;
        const bytes = encoder.encode(`1\n${line}${rest}`);
        for (const chunking of [0, 1, 3, 7]) {
          const chunks = chunking === 0 ? [bytes] : pieces(bytes, chunking);
          const label = `${char} ${JSON.stringify(end)} ${chunking}`;
          assert(splitChunks(chunks, size).ok, label);
          assertFalse(splitChunks(chunks, size - 1).ok, label);
        }
      }
    }
  });

  await t.step("the last line, without line end, is bounded too", () => {
    assertEquals(split("12\n1234", 4), { lines: ["12", "1234"], ok: true });
    assertEquals(split("12\n1234\r", 4), { lines: ["12", "1234"], ok: true });
    assertFalse(split("12\n12345", 4).ok);
    // A partial character at the end decodes as U+FFFD, three bytes.
    const bytes = new Uint8Array([...encoder.encode("1234"), 0xe2]);
    assertFalse(splitChunks([bytes], 6).ok);
    assert(splitChunks([bytes], 7).ok);
  });

  await t.step("the cap is per line, not per body", () => {
    assertEquals(split('{"n":12345}\n'.repeat(1_000), 11).lines.length, 1_000);
  });

  await t.step("a line over the cap fails before it is appended", () => {
    assertEquals(split("1\n123\n4\n", 2), { lines: ["1"], ok: false });
  });

  await t.step("a line without end fails as soon as it passes the cap", () => {
    for (const char of ["x", "é", "😀"]) {
      const max = 1_000;
      const chunk = encoder.encode(
        char.repeat(64 / encoder.encode(char).byteLength),
      );
      const splitter = new LineSplitter(max);
      let fed = 0;
      while (splitter.feed(chunk, [])) {
        fed += chunk.byteLength;
        assert(fed <= max, `still taking after ${fed} bytes`);
      }
      assertEquals(fed + chunk.byteLength, Math.floor(max / 64 + 1) * 64);
    }
  });

  await t.step(
    "a multi-byte line fails at the character passing the cap",
    () => {
      const text = "é😀".repeat(40);
      const bytes = encoder.encode(text);
      let passing = 0;
      for (const char of text) {
        passing += encoder.encode(char).byteLength;
        if (passing > 100) break;
      }
      for (const size of [1, 2, 3, 5, 64]) {
        let fed = 0;
        const splitter = new LineSplitter(100);
        for (const chunk of pieces(bytes, size)) {
          fed += chunk.byteLength;
          if (!splitter.feed(chunk, [])) break;
        }
        assertEquals(
          fed,
          Math.ceil(passing / size) * size,
          `chunks of ${size}`,
        );
      }
    },
  );
});

Deno.test("utf8Bytes()", () => {
  for (const text of ["", "abc", "é", "中", "😀", "aé中😀\u0000\u07ff\u0800"]) {
    assertEquals(
      utf8Bytes(text, 0, text.length),
      encoder.encode(text).byteLength,
      text,
    );
  }
  assertEquals(utf8Bytes("aé😀b", 1, 4), 6);
});
