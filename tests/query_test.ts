import {
  assertEquals,
  assertRejects,
  assertStringIncludes,
  assertThrows,
} from "@std/assert";
import createGrab, { GrabValidationError } from "../mod.ts";
import { startServer } from "./_server.ts";
import type { Casing } from "../src/casing.ts";
import { serialiseQuery } from "../src/query.ts";

function query(
  value: URLSearchParams | Record<string, unknown>,
  format: "json" | "json-api",
  casing?: "camelCase" | "snake_case" | "kebab-case",
): string {
  const params = serialiseQuery(
    value,
    new URLSearchParams(),
    casing ? { format, casing } : { format },
  );
  return decodeURIComponent(params.toString());
}

Deno.test("serialiseQuery()", async (t) => {
  await t.step("writes primitives and skips undefined and null", () => {
    assertEquals(
      query(
        { a: 1, b: "x", c: true, d: undefined, e: null, f: 0, g: "" },
        "json",
      ),
      "a=1&b=x&c=true&f=0&g=",
    );
  });

  await t.step("repeats keys for arrays in JSON mode", () => {
    assertEquals(query({ tag: ["a", null, "b"] }, "json"), "tag=a&tag=b");
  });

  await t.step("comma-joins arrays in JSON:API mode", () => {
    assertEquals(
      query({
        include: ["author", "comments.author"],
        sort: ["-created", "title"],
      }, "json-api"),
      "include=author,comments.author&sort=-created,title",
    );
  });

  await t.step("uses brackets for nested objects", () => {
    assertEquals(
      query({
        filter: { name: "x", tags: { any: ["a", "b"] } },
        page: { size: 10 },
      }, "json-api"),
      "filter[name]=x&filter[tags][any]=a,b&page[size]=10",
    );
  });

  await t.step("indexes objects inside arrays", () => {
    assertEquals(
      query({ items: [{ id: 1 }, { id: 2 }] }, "json"),
      "items[0][id]=1&items[1][id]=2",
    );
  });

  await t.step("writes dates as ISO strings", () => {
    assertEquals(
      query({ since: new Date(0) }, "json"),
      "since=1970-01-01T00:00:00.000Z",
    );
  });

  await t.step(
    "converts keys at every level, not values, not fields type names",
    () => {
      assertEquals(
        query(
          {
            pageSize: 1,
            filter: { createdAt: "someValue" },
            fields: { blogPosts: ["title", "createdAt"] },
          },
          "json-api",
          "snake_case",
        ),
        "page_size=1&filter[created_at]=someValue&fields[blogPosts]=title,createdAt",
      );
    },
  );

  await t.step("copies URLSearchParams as they are", () => {
    assertEquals(
      query(new URLSearchParams("a=1&a=2&b=x"), "json-api", "snake_case"),
      "a=1&a=2&b=x",
    );
  });

  await t.step("round-trips through URLSearchParams", () => {
    const params = serialiseQuery(
      { q: "a&b=c d", "x[y]": "#" },
      new URLSearchParams(),
      { format: "json" },
    );
    const back = new URLSearchParams(params.toString());
    assertEquals(back.get("q"), "a&b=c d");
    assertEquals(back.get("x[y]"), "#");
  });
});

Deno.test("serialiseQuery() refuses two keys of one object that the casing makes one", async (t) => {
  const refused = (value: Record<string, unknown>, casing: Casing) =>
    assertThrows(
      () =>
        serialiseQuery(value, new URLSearchParams(), {
          format: "json",
          casing,
        }),
      GrabValidationError,
    ).issues;

  await t.step("at the top and nested, naming both keys", () => {
    assertEquals(refused({ firstName: "a", first_name: "b" }, "snake_case"), [{
      path: "",
      message:
        'Cannot serialise the query: keys "firstName" and "first_name" both become "first_name" in snake_case, so one value would hide the other',
    }]);
    assertEquals(
      refused({ filter: { "page-size": 1, pageSize: 2 } }, "kebab-case"),
      [{
        path: "",
        message:
          'Cannot serialise the query at "filter": keys "page-size" and "pageSize" both become "page-size" in kebab-case, so one value would hide the other',
      }],
    );
  });

  await t.step(
    "a key without a value, and type names in fields, clash with none",
    () => {
      assertEquals(
        query(
          { firstName: "a", first_name: null, x: { a_b: undefined, aB: 1 } },
          "json",
          "snake_case",
        ),
        "first_name=a&x[a_b]=1",
      );
      assertEquals(
        query(
          { fields: { blog_posts: ["a"], blogPosts: ["b"] } },
          "json-api",
          "snake_case",
        ),
        "fields[blog_posts]=a&fields[blogPosts]=b",
      );
    },
  );
});

Deno.test("a JSON:API name kept as written still clashes with a key that becomes it", async (t) => {
  // Names met by no other test: the clash must be found on a first meeting.
  const refused = (value: Record<string, unknown>) =>
    assertThrows(
      () =>
        serialiseQuery(value, new URLSearchParams(), {
          format: "json-api",
          casing: "snake_case",
        }),
      GrabValidationError,
    ).issues;

  await t.step("at the top, in either order, nothing sent", async () => {
    assertEquals(refused({ quibble: "a", Quibble: "b" }), [{
      path: "",
      message:
        'Cannot serialise the query: keys "quibble" and "Quibble" both become "quibble" in snake_case, so one value would hide the other',
    }]);
    assertEquals(
      refused({ Wobblet: { size: 1 }, wobblet: { number: 2 } })[0]?.message,
      'Cannot serialise the query: keys "Wobblet" and "wobblet" both become "wobblet" in snake_case, so one value would hide the other',
    );
    await using server = startServer(() => new Response(null, { status: 204 }));
    const grab = createGrab(server.url, {
      format: "json-api",
      casing: "camelCase",
    });
    await assertRejects(
      () => grab("GET /articles", { query: { zindlex: "a", Zindlex: "b" } }),
      GrabValidationError,
      'keys "zindlex" and "Zindlex" both become "zindlex"',
    );
    assertEquals(server.requests.length, 0);
  });

  await t.step("names written apart do not clash", () => {
    // In PascalCase the kept name and the converted one differ.
    const params = serialiseQuery(
      { include: "a", Include: "b" },
      new URLSearchParams(),
      { format: "json-api", casing: "PascalCase" },
    );
    assertEquals(params.toString(), "include=a&Include=b");
  });
});

Deno.test("JSON:API keeps its own parameter names in every wire casing", async () => {
  await using server = startServer(() =>
    new Response(JSON.stringify({ data: [] }), {
      headers: { "content-type": "application/vnd.api+json" },
    })
  );
  const query = {
    include: ["author"],
    sort: "-createdAt",
    page: { perPage: 10 },
    filter: { authorName: "x" },
    fields: { articles: ["title"] },
    customParam: 1,
  };
  const sent = async (format: "json" | "json-api") => {
    const grab = createGrab(server.url, {
      format,
      casing: "camelCase",
      wireCasing: "PascalCase",
    });
    const [, error] = await grab("GET /articles", { query });
    assertEquals(error, null);
    return decodeURIComponent(server.requests.at(-1)!.url.search);
  };
  // A JSON:API server must refuse `Include` or `Page`: names of only a-z
  // are the specification's. The keys inside them, and the caller's own
  // parameters, follow the wire casing.
  assertEquals(
    await sent("json-api"),
    "?include=author&sort=-createdAt&page[PerPage]=10&filter[AuthorName]=x" +
      "&fields[articles]=title&CustomParam=1",
  );
  // Outside JSON:API no name is reserved.
  assertEquals(
    (await sent("json")).startsWith("?Include=author&Sort=-createdAt"),
    true,
  );
});

/** A server that answers every request with an empty JSON:API document. */
function okJsonApiServer() {
  return startServer(() =>
    new Response(JSON.stringify({ data: [] }), {
      headers: { "content-type": "application/vnd.api+json" },
    })
  );
}

Deno.test("an empty list goes as an empty value in JSON:API mode, which asks for none", async () => {
  await using server = okJsonApiServer();
  const query = {
    include: [],
    fields: { articles: ["title"], people: [] },
    filter: { tags: [null, undefined] },
  };
  const jsonApi = createGrab(server.url, { format: "json-api", retry: 0 });
  const [, error] = await jsonApi("GET /articles", { query });
  assertEquals(error, null);
  // "An empty value indicates that no fields should be returned"; left
  // out, the server may send them all, and its default includes. A list of
  // items each left out (`[maybe]`) says nothing, and is left out itself.
  const seen = server.requests.at(-1)!.url.searchParams;
  assertEquals([...seen], [
    ["include", ""],
    ["fields[articles]", "title"],
    ["fields[people]", ""],
  ]);
  // Repeated keys write an empty list as no key at all (control).
  const json = createGrab(server.url, { retry: 0 });
  await json("GET /articles", { query: { tag: [], q: "x" } });
  assertEquals(server.requests.at(-1)!.url.search, "?q=x");
});

Deno.test("a list of values with text of their own is a list, not indexed objects", async () => {
  await using server = startServer(() => new Response(null, { status: 204 }));
  class Id {
    constructor(readonly value: string) {}
    toString(): string {
      return this.value;
    }
  }
  const query = {
    next: [new URL("https://x.test/1"), new URL("https://x.test/2")],
    id: [new Id("7"), "8"],
  };
  const sent = async (format: "json" | "json-api") => {
    const grab = createGrab(server.url, { format, retry: 0 });
    const [, error] = await grab("GET /items", { query });
    assertEquals(error, null);
    return [...server.requests.at(-1)!.url.searchParams];
  };
  assertEquals(await sent("json"), [
    ["next", "https://x.test/1"],
    ["next", "https://x.test/2"],
    ["id", "7"],
    ["id", "8"],
  ]);
  assertEquals(await sent("json-api"), [
    ["next", "https://x.test/1,https://x.test/2"],
    ["id", "7,8"],
  ]);
});

Deno.test("a JSON:API list item with a comma of its own is refused, not split", async () => {
  await using server = okJsonApiServer();
  const grab = createGrab(server.url, { format: "json-api", retry: 0 });
  const refusals: [Record<string, unknown>, string][] = [
    [
      { filter: { name: ["Doe", "Smith, John"] } },
      'Cannot serialise the query at "filter[name]": item 1 holds a comma',
    ],
    [{ sort: ["a,b"] }, 'Cannot serialise the query at "sort": item 0'],
    [
      { q: [null, new URL("https://x.test/a,b")] },
      'Cannot serialise the query at "q": item 1',
    ],
  ];
  for (const [query, message] of refusals) {
    const error = await assertRejects(
      () => grab("GET /people", { query }),
      GrabValidationError,
    );
    assertEquals(error.issues.length, 1);
    assertStringIncludes(error.issues[0]!.message, message);
    assertStringIncludes(error.issues[0]!.message, "one string");
  }
  assertEquals(server.requests.length, 0, "the server saw no request");
  // A value that is one string keeps its commas: the caller wrote them.
  const [, error] = await grab("GET /people", {
    query: { filter: { name: "Doe,Smith" } },
  });
  assertEquals(error, null);
  assertEquals(
    server.requests.at(-1)!.url.searchParams.get("filter[name]"),
    "Doe,Smith",
  );
  // JSON mode repeats the key, so a comma in an item is no separator.
  const json = createGrab(server.url, { retry: 0 });
  await json("GET /people", { query: { name: ["Smith, John", "Doe"] } });
  assertEquals(server.requests.at(-1)!.url.searchParams.getAll("name"), [
    "Smith, John",
    "Doe",
  ]);
});

Deno.test("a typed array in a query is refused, not written as its numbers joined", async () => {
  await using server = okJsonApiServer();
  for (const format of ["json", "json-api"] as const) {
    const grab = createGrab(server.url, { format, retry: 0 });
    const queries: [Record<string, unknown>, string][] = [
      [{ ids: new Uint32Array([1, 2]) }, 'at "ids": value is a typed array'],
      [{ filter: { b: [new Uint8Array(1)] } }, 'at "filter[b][0]": value'],
    ];
    for (const [query, message] of queries) {
      const error = await assertRejects(
        () => grab("GET /people", { query }),
        GrabValidationError,
      );
      assertStringIncludes(error.issues[0]!.message, message);
      assertStringIncludes(error.issues[0]!.message, "Array.from");
    }
    // A DataView holds no list: it is named as the object it is.
    const view = new DataView(new ArrayBuffer(2));
    const error = await assertRejects(
      () => grab("GET /people", { query: { view } }),
      GrabValidationError,
    );
    assertStringIncludes(error.issues[0]!.message, "of type DataView");
  }
  assertEquals(server.requests.length, 0, "the server saw no request");
});

Deno.test("a number that is not finite is refused, naming where", async () => {
  await using server = okJsonApiServer();
  for (const format of ["json", "json-api"] as const) {
    const grab = createGrab(server.url, { format, retry: 0 });
    const refusals: [Record<string, unknown>, string][] = [
      [{ page: NaN }, 'at "page": value is NaN'],
      [{ page: { size: Infinity } }, 'at "page[size]": value is Infinity'],
      [{ ids: [1, -Infinity] }, 'at "ids[1]": value is -Infinity'],
    ];
    for (const [query, where] of refusals) {
      const error = await assertRejects(
        () => grab("GET /items", { query }),
        GrabValidationError,
      );
      assertStringIncludes(error.message, where);
    }
  }
  assertEquals(server.requests.length, 0, "the server saw no request");
  // Finite numbers, -0 and 1e21 included, go as String writes them.
  const grab = createGrab(server.url, { retry: 0 });
  await grab("GET /items", { query: { a: -0, b: 1e21, c: 0.1, d: "NaN" } });
  assertEquals(
    server.requests.at(-1)!.url.search,
    "?a=0&b=1e%2B21&c=0.1&d=NaN",
  );
});

/** The refusals of `queries` in both formats, each one issue; none sent. */
async function refusals(queries: Record<string, unknown>[]): Promise<string[]> {
  await using server = okJsonApiServer();
  const messages: string[] = [];
  for (const format of ["json", "json-api"] as const) {
    const grab = createGrab(server.url, { format, retry: 0 });
    for (const query of queries) {
      const error = await assertRejects(
        () => grab("GET /items", { query }),
        GrabValidationError,
      );
      assertEquals(error.issues.length, 1);
      messages.push(error.issues[0]!.message);
    }
  }
  assertEquals(server.requests.length, 0, "the server saw no request");
  return messages;
}

Deno.test("a Number object that is not finite is refused as the number is", async () => {
  const messages = await refusals([
    { page: Object(NaN) },
    { ids: [1, Object(Infinity)] },
  ]);
  assertEquals(messages.slice(0, 2), [
    'Cannot serialise the query at "page": value is NaN; give a finite number, or a string',
    'Cannot serialise the query at "ids[1]": value is Infinity; give a finite number, or a string',
  ]);
});

/** What `query` sends in each format, as name and value pairs. */
async function sent(query: Record<string, unknown>) {
  await using server = okJsonApiServer();
  const out: [string, string][][] = [];
  for (const format of ["json", "json-api"] as const) {
    const grab = createGrab(server.url, { format, retry: 0 });
    const [, error] = await grab("GET /items", { query });
    assertEquals(error, null);
    out.push([...server.requests.at(-1)!.url.searchParams]);
  }
  return out;
}

Deno.test("a list that holds both values and lists or objects is refused, not written half one way", async () => {
  // Sent as `x=1&x=a&x[4]=2` in both formats: the server reads `x` as a
  // value and as nested keys, and JSON:API repeated what it joins.
  const messages = await refusals([
    { x: [1, "a", null, undefined, [2]] },
    { include: ["author", {}] },
    { filter: { id: [{ gt: 1 }, 7] } },
  ]);
  assertEquals(messages.slice(0, 3), [
    'Cannot serialise the query at "x": item 4 is a list but item 0 is a value, and a server cannot read one name both as a value and as nested keys; send them under two names',
    'Cannot serialise the query at "include": item 1 is an object but item 0 is a value, and a server cannot read one name both as a value and as nested keys; send them under two names',
    'Cannot serialise the query at "filter[id]": item 0 is an object but item 1 is a value, and a server cannot read one name both as a value and as nested keys; send them under two names',
  ]);
  assertEquals(messages.slice(3), messages.slice(0, 3));
  // A list of only lists or only objects, `null`s aside, goes as before.
  assertEquals(await sent({ x: [null, [1, 2], [3]], y: [{ a: 1 }, null] }), [
    [["x[1]", "1"], ["x[1]", "2"], ["x[2]", "3"], ["y[0][a]", "1"]],
    [["x[1]", "1,2"], ["x[2]", "3"], ["y[0][a]", "1"]],
  ]);
});

Deno.test("a value whose reading throws is refused naming where, with the exception as cause", async () => {
  await using server = okJsonApiServer();
  const grab = createGrab(server.url, { retry: 0 });
  const thrown = new RangeError("unreadable");
  class Id {
    toString(): string {
      throw thrown;
    }
  }
  const cases: [Record<string, unknown>, string][] = [
    [{
      filter: {
        get name(): string {
          throw thrown;
        },
      },
    }, "filter[name]"],
    [{
      page: new Proxy({}, {
        ownKeys() {
          throw thrown;
        },
      }),
    }, "page"],
    [{ ids: ["1", new Id()] }, "ids[1]"],
  ];
  for (const [query, where] of cases) {
    const error = await assertRejects(
      () => grab("GET /items", { query }),
      GrabValidationError,
    );
    assertEquals(error.issues, [{
      path: "",
      message:
        `Cannot serialise the query at "${where}": reading it threw (unreadable)`,
    }]);
    assertEquals(error.cause, thrown);
  }
  assertEquals(server.requests.length, 0, "the server saw no request");
});

Deno.test("a nested key that is empty or holds a bracket is refused, not read as a list or a level", async () => {
  const messages = await refusals([
    { filter: { "": 1 } },
    { filter: { "a]b": 1 } },
    { fields: { "x[y]": ["a"] } },
  ]);
  assertEquals(messages.slice(0, 3), [
    'Cannot serialise the query at "filter": it has an empty key, which a server reads as the next item of a list ("filter[]")',
    'Cannot serialise the query at "filter": key "a]b" holds a bracket, which a server reads as one more level of nesting; nest it as an object instead',
    'Cannot serialise the query at "fields": key "x[y]" holds a bracket, which a server reads as one more level of nesting; nest it as an object instead',
  ]);
});

Deno.test("a key with brackets of its own is refused where it names what another key names", async () => {
  const messages = await refusals([
    { "page[size]": 10, page: { size: 20 } },
    { filter: "x", "filter[a]": 1 },
    { "a[b][c]": 1, a: { b: 2 } },
  ]);
  const twice =
    'Cannot serialise the query at "page[size]": two values are written under this name, so the server would read one of them, or both as a list; give each value once';
  const both = (name: string) =>
    `Cannot serialise the query at "${name}": it is written both as a value and as nested keys (with brackets), which a server cannot read as one: give it one or the other`;
  assertEquals(messages, [
    twice,
    both("filter"),
    both("a[b]"),
    twice,
    both("filter"),
    both("a[b]"),
  ]);
  // Names that meet only as nests, one list written under its name more
  // than once, and a name whose other value is not written, go as written.
  const query = {
    "filter[name]": "x",
    filter: { status: "y" },
    "ids[]": [1, 2],
    "n[x]": [null],
    n: { x: 1 },
  };
  assertEquals(await sent(query), [
    [
      ["filter[name]", "x"],
      ["filter[status]", "y"],
      ["ids[]", "1"],
      ["ids[]", "2"],
      ["n[x]", "1"],
    ],
    [
      ["filter[name]", "x"],
      ["filter[status]", "y"],
      ["ids[]", "1,2"],
      ["n[x]", "1"],
    ],
  ]);
});

Deno.test("a parameter named by the endpoint's query and by `query` is refused, not sent twice", async () => {
  await using server = okJsonApiServer();
  const grab = createGrab(`${server.url}/v1?key=k`, {
    retry: 0,
    casing: "camelCase",
    wireCasing: "snake_case",
  });
  const refused = async (
    endpoint: `GET /${string}`,
    query?: Record<string, unknown> | URLSearchParams,
  ) => {
    const error = await assertRejects(
      () => grab(endpoint, query === undefined ? {} : { query }),
      GrabValidationError,
    );
    assertEquals(error.issues.length, 1);
    return error.issues[0]!.message;
  };
  const twice = (name: string) =>
    `Cannot serialise the query at "${name}": the endpoint's query (its target's or its base address's) names it too, so the server would read one of them, or both as a list; give it in one place`;
  assertEquals(await refused("GET /items?page=1", { page: 2 }), twice("page"));
  assertEquals(await refused("GET /items", { key: "x" }), twice("key"));
  assertEquals(
    await refused("GET /items", new URLSearchParams("a=1&key=x")),
    twice("key"),
  );
  // Compared as the server reads them: in the wire's casing, decoded.
  assertEquals(
    await refused("GET /items?page_size=1", { pageSize: 2 }),
    twice("page_size"),
  );
  assertEquals(
    await refused("GET /items?page%5Bsize%5D=1", { page: { size: 2 } }),
    twice("page[size]"),
  );
  assertEquals(
    await refused("GET /items?key=j"),
    'Cannot use the target: its query names "key", which the base address\'s query names too, so the server would read one of them, or both as a list; give it in one place',
  );
  assertEquals(server.requests.length, 0, "the server saw no request");
  // Each name in one place goes; a name repeated within one place is its
  // writer's list, and a value left out (`null`) is not a name sent.
  const [, error] = await grab("GET /items?tag=a&tag=b", {
    query: { key: null, pageSize: 2, tag: undefined },
  });
  assertEquals(error, null);
  assertEquals([...server.requests.at(-1)!.url.searchParams], [
    ["key", "k"],
    ["tag", "a"],
    ["tag", "b"],
    ["page_size", "2"],
  ]);
});
