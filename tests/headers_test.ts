import { assert, assertEquals } from "@std/assert";
import { type HeaderRecord, mergeHeaders } from "../src/headers.ts";

Deno.test("mergeHeaders()", async (t) => {
  await t.step("merges case-insensitively, later wins", () => {
    const target: HeaderRecord = {};
    assertEquals(mergeHeaders(target, { Accept: "a", "X-Keep": "k" }), []);
    assertEquals(mergeHeaders(target, new Headers({ accept: "b" })), []);
    assertEquals(mergeHeaders(target, [["ACCEPT", "c"]]), []);
    assertEquals(target, { accept: "c", "x-keep": "k" });
  });

  await t.step("skips undefined record values and trims", () => {
    const target: HeaderRecord = {};
    mergeHeaders(target, { a: " v ", b: undefined } as unknown as HeadersInit);
    assertEquals(target, { a: "v" });
  });

  await t.step("reports CR, LF and NUL without the value", () => {
    const target: HeaderRecord = {};
    const issues = mergeHeaders(target, [
      ["x-cr", "a\rb"],
      ["x-lf", "secret\nvalue"],
      ["x-nul", "a\0"],
      ["bad name", "v"],
      ["ok", "fine"],
    ]);
    assertEquals(issues.map((issue) => issue.message), [
      'Cannot send header "x-cr": its value contains CR, LF or NUL',
      'Cannot send header "x-lf": its value contains CR, LF or NUL',
      'Cannot send header "x-nul": its value contains CR, LF or NUL',
      "Cannot send a header: its name is not a valid HTTP token",
    ]);
    assert(!JSON.stringify(issues).includes("secret"));
    assertEquals(target, { ok: "fine" });
  });

  await t.step("reports a pair that is not a pair", () => {
    const issues = mergeHeaders({}, [["only-name"]] as unknown as HeadersInit);
    assertEquals(issues.length, 1);
  });
});
