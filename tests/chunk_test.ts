import { assert, assertEquals } from "@std/assert";
import { Gathered } from "../src/chunk.ts";

/** `length` bytes counting up from `from`, as a view into a buffer `spare` times their size. */
function chunk(length: number, from: number, spare = 1): Uint8Array {
  const buffer = new Uint8Array(Math.max(length * spare, 1));
  const at = buffer.length - length;
  for (let i = 0; i < length; i++) buffer[at + i] = (from + i) % 251;
  return buffer.subarray(at, at + length);
}

/** The bytes of `chunks`, joined. */
function joined(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

Deno.test("Gathered", async (t) => {
  const KIB = 1024;
  const cases: [string, Uint8Array[]][] = [
    ["one small chunk", [chunk(7, 0, 64 * KIB / 7)]],
    ["one empty chunk", [chunk(0, 0)]],
    ["an empty chunk, then a small one", [chunk(0, 0), chunk(9, 3)]],
    ["a byte a chunk, past a block", [
      ...Array.from({ length: 17 * KIB }, (_, i) => chunk(1, i, 64 * KIB)),
    ]],
    ["a chunk kept as it came, alone", [chunk(16 * KIB, 5, 4)]],
    ["small, kept, small", [chunk(3, 1), chunk(8 * KIB, 4), chunk(5, 9)]],
    ["kept, then small ones", [chunk(5 * KIB, 0, 2), chunk(1, 7), chunk(2, 8)]],
    ["a large view of a far larger buffer", [chunk(40 * KIB, 2, 8)]],
    ["a small chunk, then one over a block", [
      chunk(10, 0),
      chunk(20 * KIB, 1, 8),
    ]],
  ];
  for (const [what, chunks] of cases) {
    await t.step(`keeps the bytes: ${what}`, () => {
      const bytes = new Gathered("bytes");
      let size = 0;
      for (const c of chunks) {
        bytes.add(c);
        size += c.byteLength;
      }
      const out = bytes.result(size) as Uint8Array;
      assertEquals(out, joined(chunks));
      // Bytes of their own: the buffer is exactly the body.
      assertEquals(out.byteOffset, 0);
      assertEquals(out.buffer.byteLength, out.byteLength);
      // Never the chunk that came in, which someone else may hold.
      assert(
        chunks.every((c) => c.byteLength === 0 || c.buffer !== out.buffer),
      );
    });
  }

  await t.step("holds the bytes of one small chunk, not its buffer", () => {
    const gathered = new Gathered("bytes");
    gathered.add(chunk(7, 0, 10_000));
    const out = gathered.result(7) as Uint8Array;
    assertEquals(out, chunk(7, 0));
    assertEquals(out.buffer.byteLength, 7);
  });

  await t.step(
    "decodes text whose byte order mark and characters are split",
    () => {
      const encoded = new TextEncoder().encode(
        "\ufeffhé€" + "x".repeat(20 * KIB),
      );
      const text = new Gathered("text");
      for (let i = 0; i < encoded.length; i++) {
        text.add(encoded.subarray(i, i + 1));
      }
      assertEquals(text.result(encoded.length), "hé€" + "x".repeat(20 * KIB));
    },
  );

  await t.step("a body of one chunk is decoded as it came", () => {
    const text = new Gathered("text");
    text.add(new TextEncoder().encode('\ufeff{"a":1}'));
    assertEquals(text.result(10), '{"a":1}');
    const bom = new Gathered("text");
    bom.add(new Uint8Array([0xef, 0xbb, 0xbf]));
    assertEquals(bom.result(3), null);
  });
});
