import {
  assert,
  assertEquals,
  assertFalse,
  assertInstanceOf,
  assertNotStrictEquals,
  assertStrictEquals,
} from "@std/assert";
import createGrab, { GrabError, GrabTransportError } from "../mod.ts";
import { redactCause, redactUrls, safeUrl } from "../src/redact.ts";
import { startServer } from "./_server.ts";
import { settles } from "./_bounds.ts";

/** True when `text` holds no query value or userinfo of the fixtures. */
function clean(text: string | undefined): boolean {
  return text !== undefined && !/token|s3cret|user:pw|k=|q=/.test(text);
}

Deno.test("safeUrl()", async (t) => {
  await t.step("keeps origin and path only", () => {
    assertEquals(
      safeUrl("https://user:pw@api.test:8443/v1/items?token=s3cret#part"),
      "https://api.test:8443/v1/items",
    );
  });

  await t.step("takes a URL object", () => {
    const url = new URL("http://user@api.test/a/b/?q=1");
    assertEquals(safeUrl(url), "http://api.test/a/b/");
    assertEquals(url.href, "http://user@api.test/a/b/?q=1");
  });

  await t.step("an origin alone gets its root path", () => {
    assertEquals(safeUrl("https://api.test"), "https://api.test/");
  });

  const invalid = ["not a url", "", "/relative/path?token=s3cret", "http://"];
  for (const text of invalid) {
    await t.step(`${JSON.stringify(text)} is "<invalid URL>"`, () => {
      assertEquals(safeUrl(text), "<invalid URL>");
    });
  }
});

Deno.test("redactUrls()", async (t) => {
  const cases: [string, string, string][] = [
    [
      "the query is replaced by ?…",
      "GET https://api.test/a?token=s3cret failed",
      "GET https://api.test/a?… failed",
    ],
    [
      "userinfo is removed",
      "to https://user:pw@api.test/a and http://user@b.test/",
      "to https://api.test/a and http://b.test/",
    ],
    [
      "userinfo and query together",
      "url (https://user:pw@api.test:8443/p/q?k=1&token=2)",
      "url (https://api.test:8443/p/q?…)",
    ],
    [
      "several URLs in one text",
      "https://a.test/?k=1 then http://b.test/x?q=2 ws://c.test/s?token=3",
      "https://a.test/?… then http://b.test/x?… ws://c.test/s?…",
    ],
    [
      "a URL inside parentheses",
      "error sending request for url (https://api.test/a?token=s3cret)",
      "error sending request for url (https://api.test/a?…)",
    ],
    [
      "URLs inside quotes and brackets",
      `'https://a.test/?k=1' "https://b.test/?k=2" <https://c.test/?k=3> [https://d.test/?k=4]`,
      `'https://a.test/?…' "https://b.test/?…" <https://c.test/?…> [https://d.test/?…]`,
    ],
    [
      "the query ends at a fragment, which is hidden too",
      "https://api.test/a?token=s3cret#section",
      "https://api.test/a?…#…",
    ],
    [
      "a fragment alone (an OAuth redirect's token)",
      "to https://app.test/cb#access_token=s3cret&state=1.",
      "to https://app.test/cb#….",
    ],
    [
      "a bare # is left as is",
      "see https://api.test/a# and https://api.test/b?#",
      "see https://api.test/a# and https://api.test/b?#",
    ],
    [
      "a password with a raw @",
      "https://user:p@ss@api.test/a and http://a@b@c@d.test/",
      "https://api.test/a and http://d.test/",
    ],
    [
      "a scheme glued to the text before it",
      "%22https://user:pw@api.test/?token=s3cret x_http://b.test/?q=1 9ws://c.test/#k=1",
      "%22https://api.test/?… x_http://b.test/?… 9ws://c.test/#…",
    ],
    [
      "the scheme in any case",
      "HTTPS://API.TEST/A?TOKEN=S3CRET",
      "HTTPS://API.TEST/A?…",
    ],
    [
      "a URL without query or userinfo is unchanged",
      "at https://api.test/v1/items and file:///work/x.ts:1:2",
      "at https://api.test/v1/items and file:///work/x.ts:1:2",
    ],
    [
      "text without URLs is unchanged",
      "Why? Because a=1&token=2 is not a URL.",
      "Why? Because a=1&token=2 is not a URL.",
    ],
    ["an empty text", "", ""],
  ];
  for (const [name, text, expected] of cases) {
    await t.step(name, () => {
      assertEquals(redactUrls(text), expected);
    });
  }

  await t.step("a bare ? after a URL is left as is", () => {
    assertEquals(
      redactUrls("Is the server at https://api.test/health? It timed out."),
      "Is the server at https://api.test/health? It timed out.",
    );
    assertEquals(redactUrls("https://api.test/a?"), "https://api.test/a?");
  });

  await t.step("the result has no query value left", () => {
    const text = "a https://user:pw@x.test/?token=1 b http://y.test/p?q=2";
    assert(clean(redactUrls(text)));
  });
});

Deno.test("redactCause()", async (t) => {
  await t.step("nothing to hide: the same object", () => {
    const cause = new TypeError("connection refused", {
      cause: new Error("at https://api.test/a"),
    });
    assertStrictEquals(redactCause(cause), cause);
    const plain = new Error("no URL here");
    assertStrictEquals(redactCause(plain), plain);
  });

  await t.step(
    "a copy whose message, stack and causes are clean",
    () => {
      const inner = new TypeError(
        "inner https://user:pw@api.test/b?q=1",
      );
      const cause = new TypeError(
        "error sending request for url (https://api.test/a?token=s3cret)",
        { cause: inner },
      );
      const copy = redactCause(cause);
      assertNotStrictEquals(copy, cause);
      assertInstanceOf(copy, Error);
      assertEquals(copy.name, "TypeError");
      assertEquals(
        copy.message,
        "error sending request for url (https://api.test/a?…)",
      );
      assert(clean(copy.stack), copy.stack);
      assert(copy.stack!.includes("https://api.test/a?…"));
      assertInstanceOf(copy.cause, Error);
      assertEquals(copy.cause.name, "TypeError");
      assertEquals(copy.cause.message, "inner https://api.test/b?…");
      assert(clean(copy.cause.stack), copy.cause.stack);
      assert(clean(Deno.inspect(copy)));
      assert(clean(String(copy)));
    },
  );

  await t.step("the original is left unchanged", () => {
    const cause = new Error("at https://api.test/a?token=s3cret");
    const stack = cause.stack;
    redactCause(cause);
    assertEquals(cause.message, "at https://api.test/a?token=s3cret");
    assertStrictEquals(cause.stack, stack);
  });

  await t.step("a secret only in the stack is removed", () => {
    const cause = new Error("failed");
    cause.stack =
      "Error: failed\n    at load (https://api.test/x.js?token=s3cret:1:1)";
    const copy = redactCause(cause);
    assertNotStrictEquals(copy, cause);
    assertInstanceOf(copy, Error);
    assertEquals(copy.message, "failed");
    assertEquals(
      copy.stack,
      "Error: failed\n    at load (https://api.test/x.js?…)",
    );
  });

  await t.step("a secret only in a nested cause: the chain is copied", () => {
    const deepest = new Error("via https://api.test/?k=1");
    const middle = new Error("middle", { cause: deepest });
    const outer = new Error("outer", { cause: middle });
    const copy = redactCause(outer);
    assertNotStrictEquals(copy, outer);
    assertInstanceOf(copy, Error);
    assertEquals(copy.message, "outer");
    assertInstanceOf(copy.cause, Error);
    assertNotStrictEquals(copy.cause, middle);
    assertInstanceOf(copy.cause.cause, Error);
    assertEquals(copy.cause.cause.message, "via https://api.test/?…");
  });

  await t.step("a string cause, alone or nested", () => {
    assertEquals(
      redactCause("see https://user:pw@api.test/?token=s3cret"),
      "see https://api.test/?…",
    );
    assertEquals(redactCause("no URL"), "no URL");
    const copy = redactCause(
      new Error("outer", { cause: "GET https://api.test/?q=1" }),
    );
    assertInstanceOf(copy, Error);
    assertEquals(copy.cause, "GET https://api.test/?…");
  });

  await t.step("an error without a cause gets none", () => {
    const copy = redactCause(new Error("at https://api.test/?k=1"));
    assertInstanceOf(copy, Error);
    assertFalse("cause" in copy);
  });

  await t.step("a cause that refers to itself is cut there, redacted", () => {
    // Each error is looked at once: the copy ends where the loop closes,
    // with a secret to remove or without.
    for (
      const [message, redacted] of [
        ["loop https://api.test/?token=s3cret", "loop https://api.test/?…"],
        ["loop", "loop"],
      ]
    ) {
      const cause = new Error(message);
      cause.cause = cause;
      const copy = redactCause(cause);
      assertInstanceOf(copy, Error);
      assertEquals(copy.message, redacted);
      assertFalse("cause" in copy);
    }
  });

  await t.step("causes deeper than 8 levels are cut off", () => {
    const chain: Error[] = [];
    let next: Error | undefined;
    for (let level = 11; level >= 0; level--) {
      next = new Error(
        `level ${level} https://api.test/?k=${level}`,
        next === undefined ? undefined : { cause: next },
      );
      chain.unshift(next);
    }
    let current: unknown = redactCause(chain[0]);
    for (let level = 0; level <= 8; level++) {
      assertInstanceOf(current, Error);
      assertNotStrictEquals(current, chain[level]);
      assertEquals(current.message, `level ${level} https://api.test/?…`);
      current = current.cause;
    }
    assertStrictEquals(current, undefined);
  });

  const kept: [string, unknown][] = [
    ["undefined", undefined],
    ["null", null],
    ["a number", 42],
    ["an object with nothing to hide", { message: "https://api.test/a" }],
    ["an array with nothing to hide", ["https://api.test/a", 1]],
  ];
  for (const [name, value] of kept) {
    await t.step(`${name} is returned as it is`, () => {
      assertStrictEquals(redactCause(value), value);
    });
  }

  await t.step(
    "an object or an array (what a custom fetch may reject with) is copied clean",
    () => {
      const object = {
        message: "failed",
        url: "https://api.test/a?token=s3cret",
        nested: { href: "https://user:pw@api.test/b" },
        code: 7,
      };
      const copy = redactCause(object);
      assertEquals(copy, {
        message: "failed",
        url: "https://api.test/a?…",
        nested: { href: "https://api.test/b" },
        code: 7,
      });
      assertEquals(object.url, "https://api.test/a?token=s3cret");
      assertEquals(redactCause(["https://api.test/?k=1", 2]), [
        "https://api.test/?…",
        2,
      ]);
      const error = new TypeError("fetch failed", { cause: object });
      const redacted = redactCause(error) as Error;
      assert(clean(Deno.inspect(redacted, { depth: 10 })));
      assert(clean(JSON.stringify(redactCause(object))));
    },
  );

  await t.step("an error's property that is an object is redacted too", () => {
    const error = Object.assign(new Error("failed"), {
      request: { url: "https://api.test/a?token=s3cret" },
    });
    const copy = redactCause(error);
    assertInstanceOf(copy, Error);
    assertEquals((copy as unknown as typeof error).request, {
      url: "https://api.test/a?…",
    });
  });

  await t.step("a value that throws when read is left out", () => {
    const getter = new Error("x");
    Object.defineProperty(getter, "message", {
      get() {
        throw new Error("boom");
      },
    });
    const property = new Error("x");
    Object.defineProperty(property, "detail", {
      enumerable: true,
      get() {
        throw new Error("boom");
      },
    });
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const noMessage = redactCause(getter);
    assertInstanceOf(noMessage, Error);
    assertEquals(noMessage.message, "");
    const noDetail = redactCause(property);
    assertInstanceOf(noDetail, Error);
    assertEquals(noDetail.message, "x");
    assertFalse(Object.hasOwn(noDetail, "detail"));
    assertStrictEquals(redactCause(proxy), undefined);
  });

  await t.step(
    "a URL becomes its redacted text; other objects are left out",
    () => {
      const url = new URL("https://api.test/a?token=s3cret");
      assertEquals(redactCause(url), "https://api.test/a?…");
      const request = new Request("https://api.test/a?token=s3cret", {
        headers: { authorization: "Bearer s3cret" },
      });
      const copy = redactCause({ url, request, headers: request.headers });
      assertEquals(copy, { url: "https://api.test/a?…" });
      const error = Object.assign(new Error("failed"), { request });
      const redacted = redactCause(error);
      assertInstanceOf(redacted, Error);
      assertFalse(Object.hasOwn(redacted, "request"));
      assertStrictEquals(redactCause(new Map([["k", "v"]])), undefined);
    },
  );

  await t.step("an object met twice is looked at once", () => {
    let reads = 0;
    const leaf = {
      get url() {
        reads++;
        return "https://api.test/?token=s3cret";
      },
    };
    // Six levels, each referring twice to the next: 64 paths to the leaf.
    let node: object = leaf;
    for (let level = 0; level < 6; level++) node = { left: node, right: node };
    const copy = redactCause({ cause: node });
    assertEquals(reads, 1);
    assert(clean(JSON.stringify(copy) ?? ""));
  });

  await t.step(
    "keys are redacted; two that one text stands for are numbered",
    () => {
      const cause = {
        "https://api.test/?token=s3cret": 1,
        "https://api.test/?… (2)": 2,
        "https://api.test/?k=2": 3,
        plain: 4,
      };
      // A key left as it is keeps its name; a redacted one takes the next
      // free one.
      assertEquals(redactCause(cause), {
        "https://api.test/?…": 1,
        "https://api.test/?… (2)": 2,
        "https://api.test/?… (3)": 3,
        plain: 4,
      });
      const error = Object.assign(new Error("x"), {
        "https://api.test/?token=s3cret": 1,
      });
      const redacted = redactCause(error) as Record<string, unknown>;
      assertEquals(redacted["https://api.test/?…"], 1);
    },
  );

  await t.step(
    "ten thousand keys that one text stands for: each numbered once",
    () => {
      const keys = Array.from(
        { length: 10_000 },
        (_, i) => `https://a.test/?q=${i}`,
      );
      const copy = redactCause(Object.fromEntries(keys.map((key) => [key, 1])));
      const names = Object.keys(copy as object);
      assertEquals(names.length, 10_000);
      assertEquals(names[0], "https://a.test/?…");
      assertEquals(names[9_999], "https://a.test/?… (10000)");
    },
  );
});

Deno.test("a logged error body marks the objects it leaves out, never showing null for them", async (t) => {
  // 1,200 JSON:API errors of two objects each: more than the 1,000 objects
  // one logged value looks at; and an object nested past 8 levels.
  const errors = Array.from({ length: 1_200 }, (_, at) => ({
    detail: `row ${at} is invalid`,
    source: { pointer: `/data/${at}` },
  }));
  let deep: unknown = { leaf: true };
  for (let level = 0; level < 12; level++) deep = [deep];
  await using server = startServer((request) =>
    new URL(request.url).pathname === "/ok"
      ? Response.json({ ok: true })
      : Response.json(
        new URL(request.url).pathname === "/deep" ? { deep } : { errors },
        { status: 422 },
      )
  );
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  const logged = async (path: `/${string}`) => {
    const [, error] = await settles(grab(`GET ${path}`));
    assertInstanceOf(error, GrabError);
    return JSON.parse(JSON.stringify(error)) as Record<string, unknown>;
  };

  await t.step("past 1,000 objects: the rest counted, not null", async () => {
    const view = await logged("/many");
    for (
      const shown of [view.errors, (view.body as { errors: unknown }).errors]
    ) {
      assert(Array.isArray(shown));
      assertFalse(shown.includes(null));
      assertEquals(shown[0], errors[0]);
      assertEquals(
        shown.at(-1),
        `… (${1_201 - shown.length} more items left out)`,
      );
    }
  });

  await t.step("past 8 levels: the rest counted, not null", async () => {
    const view = await logged("/deep");
    assertFalse(JSON.stringify(view.body).includes("null"));
    assert(JSON.stringify(view.body).includes("(1 more items left out)"));
  });
  await t.step(
    "schema issues past 1,000: each one left out counted",
    async () => {
      const issues = Array.from({ length: 1_500 }, (_, at) => ({
        message: `issue ${at}`,
        path: ["ok", at],
      }));
      const schema = {
        "~standard": {
          version: 1 as const,
          vendor: "test",
          validate: () => ({ issues }),
        },
      };
      const [, error] = await settles(grab("GET /ok", { schema }));
      assertInstanceOf(error, GrabTransportError);
      const shown = JSON.parse(JSON.stringify(error)).issues as unknown[];
      assertFalse(shown.includes(null));
      assertEquals(shown[0], issues[0]);
      assertEquals(
        shown.at(-1),
        `… (${1_500 - (shown.length - 1)} more items left out)`,
      );
    },
  );
});
