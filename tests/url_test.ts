import { assert, assertEquals, assertStrictEquals } from "@std/assert";
import { fillUrl } from "../src/fill_url.ts";
import { joinUrl, type UrlTemplate } from "../src/url.ts";

function template(
  base: string | undefined,
  target: string,
): UrlTemplate {
  const result = joinUrl(base, target, !target.startsWith("/"));
  if (Array.isArray(result)) throw new Error(result[0]!.message);
  return result;
}

Deno.test("joinUrl()", async (t) => {
  const cases: [string | undefined, string, string][] = [
    ["https://api.test", "/users", "https://api.test/users"],
    ["https://api.test/", "/users", "https://api.test/users"],
    ["https://api.test/v1", "/users", "https://api.test/v1/users"],
    ["https://api.test/v1/", "/users", "https://api.test/v1/users"],
    ["https://api.test/v1//", "/users", "https://api.test/v1/users"],
    ["https://api.test/v1?k=1#frag", "/users", "https://api.test/v1/users?k=1"],
    [
      "https://api.test/v1/?k=1",
      "/users?active=1",
      "https://api.test/v1/users?k=1&active=1",
    ],
    ["https://api.test/v1?", "/users?a=1", "https://api.test/v1/users?a=1"],
    ["https://api.test/v1?k=1", "https://other.test/x", "https://other.test/x"],
    [
      "https://api.test/v1",
      "/users?active=1",
      "https://api.test/v1/users?active=1",
    ],
    ["https://api.test/v1", "https://other.test/x", "https://other.test/x"],
    [undefined, "http://127.0.0.1:8000/a#b", "http://127.0.0.1:8000/a"],
  ];
  for (const [base, target, href] of cases) {
    await t.step(`${base} + ${target} gives ${href}`, () => {
      assertStrictEquals(template(base, target).url.href, href);
    });
  }

  const bad: [string | undefined, string, string][] = [
    [
      undefined,
      "/users",
      "Cannot resolve the relative target: no base address was given",
    ],
    [
      "",
      "/users",
      'Cannot use the base address: it is empty; write it in full, such as "https://api.example.com"',
    ],
    [
      "not a url",
      "/users",
      'Cannot use the base address: it is not a valid URL; write it in full, such as "https://api.example.com"',
    ],
    [
      // A path, with no page (Deno without --location) to resolve it.
      "/api",
      "/users",
      "Cannot use the base address: it is a path, which only a page's (or worker's) location resolves, and there is none here; write it in full, such as \"https://api.example.com\"",
    ],
    [
      // In full already: only the scheme is wrong.
      "ftp://files.test",
      "/x",
      "Cannot use the base address: only http and https are supported",
    ],
    [
      // A host and port without a scheme parse as the scheme "localhost:".
      "localhost:8000",
      "/x",
      'Cannot use the base address: only http and https are supported; write it in full, such as "https://api.example.com"',
    ],
    [
      "https://u:p@api.test",
      "/x",
      "Cannot use the base address: it holds credentials; send them in a header",
    ],
    [
      undefined,
      "https://u@api.test/x",
      "Cannot use the target: it holds credentials; send them in a header",
    ],
    [
      undefined,
      "http://[bad/x",
      "Cannot use the target: it is not a valid URL",
    ],
  ];
  // No string at all: only options given first are told where they go.
  const given: [unknown, string][] = [
    [null, "not null"],
    [8000, "not 8000"],
    [true, "not true"],
    [
      { baseURL: "https://api.test" },
      "not an object (createGrab takes the options as its second argument)",
    ],
  ];
  for (const [base, told] of given) {
    bad.push([
      base as string,
      "/x",
      `Cannot use the base address: it must be a string or a URL, ${told}`,
    ]);
  }
  for (const [base, target, message] of bad) {
    await t.step(`rejects ${JSON.stringify(base)} + ${target}`, () => {
      const result = joinUrl(base, target, !target.startsWith("/"));
      assertEquals(result, [{ path: "", message }]);
    });
  }
});

Deno.test("fillUrl()", async (t) => {
  await t.step("fills each :name with encodeURIComponent", () => {
    const url = fillUrl(
      template("https://api.test/v1", "/users/:id/files/:name"),
      { id: 7, name: "a b/c?d" },
      "",
    );
    assertEquals(url, "https://api.test/v1/users/7/files/a%20b%2Fc%3Fd");
  });

  await t.step("leaves a port alone", () => {
    const url = fillUrl(template(undefined, "http://h.test:8080/x/:id"), {
      id: 1,
    }, "");
    assertEquals(url, "http://h.test:8080/x/1");
  });

  await t.step("merges extra query after the target's own", () => {
    const t1 = template("https://api.test", "/s?q=1");
    assertEquals(fillUrl(t1, undefined, "x=2"), "https://api.test/s?q=1&x=2");
    const t2 = template("https://api.test", "/s");
    assertEquals(fillUrl(t2, undefined, "x=2"), "https://api.test/s?x=2");
    assertEquals(fillUrl(t2, undefined, ""), "https://api.test/s");
  });

  await t.step(
    "reads the path once for any number of unused parameters",
    () => {
      // Each unused key was looked up in the path split anew: time in the
      // product of the keys and the path's length.
      const filled = template("https://api.test/v1", "/a/:id/b/:name");
      let reads = 0;
      const url = {
        get pathname() {
          reads++;
          return filled.url.pathname;
        },
      } as URL;
      const values: Record<string, unknown> = { id: 1, name: "n" };
      for (let i = 0; i < 1_000; i++) values[`q${i}`] = i;
      const issues = fillUrl({ ...filled, url }, values, "");
      assert(Array.isArray(issues));
      assertEquals(issues.length, 1_000);
      assertEquals(
        issues[0]!.message,
        'Cannot use path parameter "q0": the target has no ":q0" segment (query values go in "query")',
      );
      assertEquals(reads, 1);
    },
  );

  await t.step("a name every object has is missing unless given", () => {
    const filled = template("https://api.test", "/a/:constructor/:toString");
    assertEquals(fillUrl(filled, {}, ""), [
      {
        path: "",
        message: 'Cannot fill path parameter "constructor": value is missing',
      },
      {
        path: "",
        message: 'Cannot fill path parameter "toString": value is missing',
      },
    ]);
    assertEquals(
      fillUrl(filled, { constructor: "c", toString: 2 }, ""),
      "https://api.test/a/c/2",
    );
  });

  await t.step("lists every missing or bad parameter", () => {
    const result = fillUrl(
      template("https://api.test", "/a/:one/b/:two/c/:three"),
      { two: "", three: true } as unknown as Record<string, string>,
      "",
    );
    assertEquals(result, [
      {
        path: "",
        message: 'Cannot fill path parameter "one": value is missing',
      },
      { path: "", message: 'Cannot fill path parameter "two": value is empty' },
      {
        path: "",
        message:
          'Cannot fill path parameter "three": value is true; give a string or a number',
      },
    ]);
  });

  await t.step("says what a value of another type is, null included", () => {
    const result = fillUrl(
      template("https://api.test", "/a/:one/:two/:three"),
      { one: null, two: {}, three: [1] } as unknown as Record<string, string>,
      "",
    );
    const hint = "give a string or a number";
    assertEquals(result, [
      {
        path: "",
        message: `Cannot fill path parameter "one": value is null; ${hint}`,
      },
      {
        path: "",
        message:
          `Cannot fill path parameter "two": value is an object; ${hint}`,
      },
      {
        path: "",
        message:
          `Cannot fill path parameter "three": value is an array; ${hint}`,
      },
    ]);
  });
});

Deno.test("joinUrl() names a parameter as the endpoint spells it", () => {
  // The URL parser percent-encodes `:név`; the caller fills `név`.
  const filled = fillUrl(
    template("https://api.test", "/users/:név/:a{b}"),
    { "név": "x y", "a{b}": 2 },
    "",
  );
  assertEquals(filled, "https://api.test/users/x%20y/2");
});

Deno.test("joinUrl() keeps a parameter name the endpoint spelt encoded", () => {
  const filled = fillUrl(
    template("https://api.test", "/files/:a%20b"),
    { "a%20b": "x" },
    "",
  );
  assertEquals(filled, "https://api.test/files/x");
});

Deno.test("joinUrl() tells a name's spelling by its own segment, not by text elsewhere", () => {
  // The encoded spelling written inside another segment, or in the query,
  // does not make the parameter's name the encoded one: the types read
  // `a{b}` from each of these endpoints, and so does the caller.
  for (const target of ["/v:a%7Bb%7D/:a{b}", "/:a{b}?q=:a%7Bb%7D"]) {
    const filled = fillUrl(
      template("https://api.test", target),
      { "a{b}": 2 },
      "",
    );
    assert(typeof filled === "string", JSON.stringify(filled));
    assert(filled.includes("/2"), filled);
  }
});

Deno.test("joinUrl() tells a name's spelling by the target, not by the base address's path", () => {
  // The base address's `:név` is kept as written, encoded by the URL
  // parser: it does not make the target's `:név` the encoded name.
  const filled = fillUrl(
    template("https://api.test/:név", "/users/:név"),
    { "név": "x" },
    "",
  );
  assertEquals(filled, "https://api.test/:n%C3%A9v/users/x");
});
