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

  await t.step(
    "joins a name given twice in a list of pairs, as Headers does",
    () => {
      const target: HeaderRecord = { accept: "factory" };
      assertEquals(
        mergeHeaders(target, [["Accept", "a"], ["accept", "b"], [
          "x-one",
          "1",
        ]]),
        [],
      );
      assertEquals(target, { accept: "a, b", "x-one": "1" });
      // A Map is a list of pairs too.
      const pairs: HeaderRecord = {};
      mergeHeaders(pairs, new Map([["X-A", "1"], ["x-a", "2"]]));
      assertEquals(pairs, { "x-a": "1, 2" });
    },
  );

  await t.step(
    "in a record, a later key replaces one of another case, as a spread means",
    () => {
      const base = { "Content-Type": "application/json", "X-Keep": "k" };
      const target: HeaderRecord = {};
      mergeHeaders(target, { ...base, "content-type": "text/plain" });
      assertEquals(target, { "content-type": "text/plain", "x-keep": "k" });
    },
  );

  await t.step("trims only the spaces and tabs fetch trims", () => {
    const target: HeaderRecord = {};
    mergeHeaders(target, { a: " \tv\t ", b: "v\xa0", c: "\xa0v" });
    assertEquals(target, { a: "v", b: "v\xa0", c: "\xa0v" });
  });

  await t.step("refuses control characters, which fetch would fail on", () => {
    const target: HeaderRecord = {};
    const issues = mergeHeaders(target, {
      "x-vt": "a\x0bb",
      "x-del": "a\x7f",
      "x-soh": "\x01",
      "x-tab": "a\tb",
    });
    assertEquals(issues.map((issue) => issue.message), [
      'Cannot send header "x-vt": its value contains a control character other than tab',
      'Cannot send header "x-del": its value contains a control character other than tab',
      'Cannot send header "x-soh": its value contains a control character other than tab',
    ]);
    assertEquals(target, { "x-tab": "a\tb" });
  });

  await t.step("refuses a value whose text is not what was meant", () => {
    const secret = "token-1234";
    const target: HeaderRecord = {};
    const issues = mergeHeaders(target, [
      ["authorization", Promise.resolve(secret)],
      ["x-fn", () => secret],
      ["x-object", { secret }],
      ["x-null", null],
      ["x-undefined", undefined],
      ["x-symbol", Symbol(secret)],
      ["x-number", 5],
      ["x-url", new URL("https://api.test/")],
    ] as unknown as HeadersInit);
    assertEquals(issues.map((issue) => issue.message), [
      'Cannot send header "authorization": its value is a Promise; await it first',
      'Cannot send header "x-fn": its value is a function; call it, or use a factory header function',
      'Cannot send header "x-object": its value is an object (Object), which has no text of its own',
      'Cannot send header "x-null": its value is null; leave the header out instead',
      'Cannot send header "x-undefined": its value is undefined',
      'Cannot send header "x-symbol": its value is a symbol',
    ]);
    assert(!JSON.stringify(issues).includes(secret));
    assertEquals(target, { "x-number": "5", "x-url": "https://api.test/" });
  });
});
