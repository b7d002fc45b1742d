import { assertEquals, assertStrictEquals } from "@std/assert";
import { describeValue, findNonJsonValues } from "../src/json_value.ts";
import { emptyFormOf } from "../src/json_loss.ts";

const message = (path: string, what: string) =>
  `Cannot serialise ${
    path === "" ? "the body" : `"${path}"`
  } as JSON: value is ${what}`;

Deno.test("findNonJsonValues()", async (t) => {
  const cases: [string, unknown, [string, string][]][] = [
    ["a BigInt", { total: 10n }, [["/total", "a BigInt"]]],
    ["a function", { f() {} }, [["/f", "a function"]]],
    ["a symbol", [Symbol("s")], [["/0", "a symbol"]]],
    ["NaN", { a: { b: NaN } }, [["/a/b", "NaN"]]],
    ["Infinity", [1, [Infinity]], [["/1/0", "Infinity"]]],
    ["-Infinity", { n: -Infinity }, [["/n", "-Infinity"]]],
    ["a non-JSON root", 1n, [["", "a BigInt"]]],
  ];
  for (const [name, value, expected] of cases) {
    await t.step(`reports ${name}`, () => {
      assertEquals(
        findNonJsonValues(value),
        expected.map(([path, what]) => ({
          path,
          message: message(path, what),
        })),
      );
    });
  }

  await t.step("accepts JSON values, undefined and toJSON objects", () => {
    const value = {
      s: "x",
      n: -0,
      b: false,
      z: null,
      u: undefined,
      list: [undefined, 1.5, { deep: ["y"] }],
      at: new Date(0),
      custom: { toJSON: () => "ok", inner: 1n },
    };
    assertEquals(findNonJsonValues(value), []);
  });

  await t.step("reports a circular reference where it closes", () => {
    const a: Record<string, unknown> = { name: "a" };
    const b: Record<string, unknown> = { a };
    a.b = b;
    const list: unknown[] = [];
    list.push(list);
    assertEquals(findNonJsonValues({ a, list }), [
      { path: "/a/b/a", message: message("/a/b/a", "a circular reference") },
      { path: "/list/0", message: message("/list/0", "a circular reference") },
    ]);
  });

  await t.step("accepts the same object in sibling places", () => {
    const shared = { x: [1] };
    assertEquals(
      findNonJsonValues({ a: shared, b: [shared, shared], c: { d: shared } }),
      [],
    );
  });

  await t.step("lists every problem in document order", () => {
    assertEquals(
      findNonJsonValues({ a: [1n, { b: NaN }], c: Symbol(), d: { e: () => 1 } })
        .map((issue) => issue.path),
      ["/a/0", "/a/1/b", "/c", "/d/e"],
    );
  });

  await t.step("escapes ~ and / in paths and prefixes the given path", () => {
    assertEquals(findNonJsonValues({ "a/b": { "c~d": 1n } }, "/x"), [
      { path: "/x/a~1b/c~0d", message: message("/x/a~1b/c~0d", "a BigInt") },
    ]);
  });

  await t.step("walks a value 100 000 levels deep without recursion", () => {
    const root: unknown[] = [];
    let current = root;
    for (let i = 0; i < 100_000; i++) {
      const next: unknown[] = [];
      current.push(next);
      current = next;
    }
    current.push(NaN);
    const issues = findNonJsonValues(root);
    assertEquals(issues.length, 1);
    assertStrictEquals(issues[0]!.path, "/0".repeat(100_000) + "/0");
  });

  await t.step("treats the within objects as ancestors", () => {
    const body: Record<string, unknown> = {};
    body.self = body;
    assertEquals(
      findNonJsonValues(body.self, "/self", { within: [body] }),
      [
        { path: "/self", message: message("/self", "a circular reference") },
      ],
    );
  });

  await t.step("asks check about every object member, not array items", () => {
    const seen: [string, string][] = [];
    const issues = findNonJsonValues({ a: [{ b: 1 }], c: 2 }, "", {
      check: (key, path) => {
        seen.push([key, path]);
        return key === "c" ? 'Cannot send field "c": no' : undefined;
      },
    });
    assertEquals(seen, [["a", "/a"], ["b", "/a/0/b"], ["c", "/c"]]);
    assertEquals(issues, [{
      path: "/c",
      message: 'Cannot send field "c": no',
    }]);
  });
});

Deno.test("describeValue()", async (t) => {
  await t.step("names each kind of value", () => {
    assertEquals(
      [undefined, null, "", "x", 5, NaN, true, 1n, Symbol(), () => 1, [], {}]
        .map(describeValue),
      [
        "missing",
        "null",
        "an empty string",
        '"x"',
        "5",
        "NaN",
        "true",
        "a BigInt",
        "a symbol",
        "a function",
        "an array",
        "an object",
      ],
    );
  });
});

Deno.test("findNonJsonValues() finds what JSON would write as null or {}", () => {
  assertEquals(
    findNonJsonValues({
      when: new Date(NaN),
      tags: new Map([["a", 1]]),
      ids: [new Set([1])],
      at: new Date(0),
    }).map((issue) => issue.path),
    ["/when", "/tags", "/ids/0"],
  );
});

const ID: unique symbol = Symbol("id");
const CLASS_DATA =
  "an object of a class whose data JSON does not see (getters, hidden or symbol keys)";

Deno.test("emptyFormOf() names an object JSON writes as {} though it holds data", async (t) => {
  class Point {
    get x(): number {
      return 1;
    }
  }
  const lost: [unknown, string][] = [
    [Promise.resolve(1), "a Promise"],
    [new Blob(["x"]), "a Blob"],
    [new ArrayBuffer(2), "an ArrayBuffer"],
    [new DataView(new ArrayBuffer(2)), "a DataView"],
    [/x/, "a RegExp"],
    [new Error("x"), "an Error"],
    [new WeakMap(), "a WeakMap"],
    [new URLSearchParams("a=1"), "a URLSearchParams"],
    [new Map([["a", 1]]), "a Map"],
    [new Point(), CLASS_DATA],
    [
      new (class {
        constructor() {
          Object.defineProperty(this, "id", { value: 7 });
        }
      })(),
      CLASS_DATA,
    ],
    [
      new (class {
        [ID] = 7;
      })(),
      CLASS_DATA,
    ],
  ];
  for (const [value, what] of lost) {
    await t.step(`${what}: refused`, () => {
      assertEquals(emptyFormOf(value), `${what}, which JSON writes as {}`);
      assertEquals(findNonJsonValues({ v: value }), [
        {
          path: "/v",
          message: message("/v", `${what}, which JSON writes as {}`),
        },
      ]);
    });
  }
  await t.step(
    "a chain of 100,000 classes is looked through only so far",
    () => {
      let deep: object = new (class {})();
      for (let i = 0; i < 100_000; i++) deep = Object.create(deep);
      assertEquals(emptyFormOf(deep), `${CLASS_DATA}, which JSON writes as {}`);
    },
  );
  await t.step(
    "a boxed BigInt: refused as a BigInt, which JSON cannot write",
    () => {
      assertEquals(emptyFormOf(Object(1n)), "a BigInt");
    },
  );
  class Named {
    name = "n";
  }
  // A data object with every field unset (fields declared, not defined).
  class Filters {
    declare name?: string;
  }
  // Private state cannot be seen: such an object is as empty as JSON says.
  class Counter {
    #count = 1;
    next(): number {
      return ++this.#count;
    }
  }
  const kept: [string, unknown][] = [
    ["a plain object", {}],
    ["an object without a prototype", Object.create(null)],
    ["an array", []],
    ["an object of a class with fields", new Named()],
    ["an object of a class with every field unset", new Filters()],
    ["an object of a class with private state only", new Counter()],
    ["a Date (a toJSON)", new Date(0)],
    ["a URL (a toJSON)", new URL("https://api.test/")],
    ["a boxed number, written as its value", new Number(1)],
    ["a boxed empty string, written as its value", new String("")],
    ["a boxed boolean, written as its value", new Boolean(false)],
    ["a typed array, written by its items", new Uint8Array(0)],
    ["a string", "s"],
  ];
  for (const [label, value] of kept) {
    await t.step(`${label}: kept`, () => {
      assertStrictEquals(emptyFormOf(value), undefined);
      assertEquals(findNonJsonValues({ v: value }), []);
    });
  }
});

Deno.test("findNonJsonValues() lets a Map or a Date with a toJSON of its own say what it is", () => {
  class Registry extends Map<string, number> {
    toJSON(): Record<string, number> {
      return Object.fromEntries(this);
    }
  }
  class Maybe extends Date {
    override toJSON(): string {
      return Number.isNaN(this.getTime()) ? "unknown" : super.toJSON();
    }
  }
  assertEquals(
    findNonJsonValues({ tags: new Registry([["x", 1]]), when: new Maybe(NaN) }),
    [],
  );
  assertEquals(
    findNonJsonValues({ tags: new Registry(), when: new Maybe(NaN) }, "", {
      callToJSON: true,
    }),
    [],
  );
});

Deno.test("findNonJsonValues() checks what a toJSON returns as JSON.stringify writes it: its own toJSON is not called", () => {
  class Self {
    count = 1n;
    toJSON(): this {
      return this;
    }
  }
  const chained = (): object => ({ toJSON: chained });
  const options = { callToJSON: true };
  assertEquals(findNonJsonValues({ a: new Self() }, "", options), [{
    path: "/a/count",
    message: 'Cannot serialise "/a/count" as JSON: value is a BigInt',
  }]);
  assertEquals(findNonJsonValues({ x: chained() }, "", options), [{
    path: "/x/toJSON",
    message: 'Cannot serialise "/x/toJSON" as JSON: value is a function',
  }]);
});
