import { assert, assertEquals, assertStrictEquals } from "@std/assert";
import {
  escapeToken,
  hasEnumerableInheritedKeys,
  isIdentityKey,
  isPlainObject,
  joinPointer,
  setOwn,
  unescapeToken,
} from "../src/object.ts";

Deno.test("isPlainObject() is true for object literals only", async (t) => {
  await t.step("object literals and null-prototype objects", () => {
    assert(isPlainObject({}));
    assert(isPlainObject({ a: 1 }));
    assert(isPlainObject(Object.create(null)));
    assert(isPlainObject(JSON.parse('{"__proto__": 1}')));
  });

  await t.step("arrays, class instances and primitives are not", () => {
    for (
      const value of [
        [],
        new Date(0),
        new Map(),
        new (class {})(),
        null,
        1,
        "x",
      ]
    ) {
      assert(!isPlainObject(value), Deno.inspect(value));
    }
  });
});

Deno.test("setOwn() sets an own data property, __proto__ too", () => {
  const target: Record<string, unknown> = {};
  setOwn(target, "__proto__", { polluted: true });
  setOwn(target, "a", 1);
  assertStrictEquals(Object.getPrototypeOf(target), Object.prototype);
  assert(Object.hasOwn(target, "__proto__"));
  assertEquals(Object.keys(target), ["__proto__", "a"]);
  assertStrictEquals(({} as Record<string, unknown>)["polluted"], undefined);
});

Deno.test("isIdentityKey() names type, id and lid", () => {
  assertEquals(
    ["type", "id", "lid", "ID", "name"].map(isIdentityKey),
    [true, true, true, false, false],
  );
});

Deno.test("JSON pointer tokens", async (t) => {
  await t.step("joinPointer() escapes ~ before / as RFC 6901 asks", () => {
    assertEquals(joinPointer("", "a~1/b"), "/a~01~1b");
    assertEquals(joinPointer("/x", 0), "/x/0");
    assertEquals(joinPointer("", ""), "/");
  });

  await t.step("unescapeToken() undoes escapeToken()", () => {
    for (const token of ["a/b", "~1", "~0~1/", "plain", ""]) {
      assertEquals(unescapeToken(escapeToken(token)), token);
    }
  });
});

Deno.test("hasEnumerableInheritedKeys() sees a polluted prototype", () => {
  assertEquals(hasEnumerableInheritedKeys(), false);
  const proto = Object.prototype as Record<string, unknown>;
  try {
    proto["injected"] = 1;
    assertEquals(hasEnumerableInheritedKeys(), true);
  } finally {
    delete proto["injected"];
  }
});
