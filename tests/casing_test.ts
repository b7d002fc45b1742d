// deno-lint-ignore-file camelcase -- these tests are about snake_case keys
import { assert, assertEquals, assertStrictEquals } from "@std/assert";
import { type Casing, convertKey } from "../src/casing.ts";
import { convertKeys } from "../src/convert_keys.ts";

Deno.test("convertKey()", async (t) => {
  const cases: [string, Casing, string][] = [
    ["first_name", "camelCase", "firstName"],
    ["first-name", "camelCase", "firstName"],
    ["FirstName", "camelCase", "firstName"],
    ["firstName", "snake_case", "first_name"],
    ["firstName", "kebab-case", "first-name"],
    ["first_name", "PascalCase", "FirstName"],
    ["userID", "snake_case", "user_i_d"],
    ["user_i_d", "camelCase", "userID"],
    ["line2", "snake_case", "line2"],
    ["a1B", "snake_case", "a1_b"],
    ["__proto__", "camelCase", "__proto__"],
    ["_private", "camelCase", "_private"],
    ["$ref", "snake_case", "$ref"],
    ["@id", "camelCase", "@id"],
    ["a__b", "camelCase", "a__b"],
    ["", "camelCase", ""],
    ["with space", "camelCase", "with space"],
    ["anything_at_all", "none", "anything_at_all"],
  ];
  for (const [key, to, expected] of cases) {
    await t.step(
      `${JSON.stringify(key)} to ${to} is ${JSON.stringify(expected)}`,
      () => {
        assertStrictEquals(convertKey(key, to), expected);
      },
    );
  }

  await t.step("is idempotent", () => {
    const casings: Casing[] = [
      "camelCase",
      "snake_case",
      "kebab-case",
      "PascalCase",
    ];
    for (const key of ["a_b", "AB", "userID", "x-1-y", "HTMLParser", "a1B2c"]) {
      for (const to of casings) {
        const once = convertKey(key, to);
        assertStrictEquals(convertKey(once, to), once, `${key} ${to}`);
      }
    }
  });

  await t.step("keeps each casing's conversions apart", () => {
    for (let i = 0; i < 2; i++) {
      assertStrictEquals(convertKey("first_name", "camelCase"), "firstName");
      assertStrictEquals(convertKey("first_name", "PascalCase"), "FirstName");
      assertStrictEquals(convertKey("first_name", "kebab-case"), "first-name");
    }
  });

  await t.step("camelCase and snake_case round-trip", () => {
    for (const key of ["firstName", "userID", "aBC", "x"]) {
      assertStrictEquals(
        convertKey(convertKey(key, "snake_case"), "camelCase"),
        key,
      );
    }
  });
});

Deno.test("convertKeys()", async (t) => {
  await t.step("converts keys at every depth, never values", () => {
    const input = {
      user_name: "keep_me",
      list: [{ inner_key: "some_value" }, 1, null],
    };
    assertEquals(convertKeys(input, "camelCase"), {
      userName: "keep_me",
      list: [{ innerKey: "some_value" }, 1, null],
    });
  });

  await t.step("does not mutate the input", () => {
    const input = { a_b: { c_d: 1 } };
    const copy = structuredClone(input);
    convertKeys(input, "camelCase");
    assertEquals(input, copy);
  });

  await t.step("keeps __proto__ as an own data property", () => {
    const input = JSON.parse('{"__proto__": {"polluted": true}, "a_b": 1}');
    const out = convertKeys(input, "camelCase") as Record<string, unknown>;
    assert(Object.hasOwn(out, "__proto__"));
    assertStrictEquals(Object.getPrototypeOf(out), Object.prototype);
    assertStrictEquals(out["polluted"], undefined);
    assertStrictEquals(({} as Record<string, unknown>)["polluted"], undefined);
  });

  await t.step("keeps non-plain objects as they are", () => {
    const date = new Date(0);
    const out = convertKeys({ created_at: date }, "camelCase") as {
      createdAt: Date;
    };
    assertStrictEquals(out.createdAt, date);
  });

  await t.step("handles 10,000-deep nesting without recursion", () => {
    let deep: unknown = { leaf_key: 1 };
    for (let i = 0; i < 10_000; i++) deep = { next_level: deep };
    let out = convertKeys(deep, "camelCase") as Record<string, unknown>;
    let depth = 0;
    while ("nextLevel" in out) {
      out = out["nextLevel"] as Record<string, unknown>;
      depth++;
    }
    assertEquals(depth, 10_000);
    assertEquals(out, { leafKey: 1 });
  });

  await t.step("returns the value itself for none and primitives", () => {
    const input = { a_b: 1 };
    assertStrictEquals(convertKeys(input, "none"), input);
    assertEquals(convertKeys("a_b", "camelCase"), "a_b");
  });
});

Deno.test("convertKey() leaves a key it could not bring back the same", () => {
  // `address_line_1` would read as `addressLine1`, which writes back as
  // `address_line1`: an update to a field the server never sees.
  for (const key of ["address_line_1", "version_2_name", "a-1"]) {
    for (const to of ["camelCase", "PascalCase"] as const) {
      assertEquals(convertKey(key, to), key, `${key} to ${to}`);
    }
  }
  assertEquals(convertKey("address_line1", "camelCase"), "addressLine1");
  assertEquals(convertKey("addressLine1", "snake_case"), "address_line1");
  // Between snake_case and kebab-case the separators stay: it comes back.
  assertEquals(convertKey("line_2_text", "kebab-case"), "line-2-text");
  assertEquals(convertKey("line-2-text", "snake_case"), "line_2_text");
});
