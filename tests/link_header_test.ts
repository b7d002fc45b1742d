import { assertEquals } from "@std/assert";
import { parseLinkHeader } from "../src/link_header.ts";

const BASE = "https://api.test/v1/items?page=1";

Deno.test("parseLinkHeader()", async (t) => {
  const cases: [string, string | null, Record<string, string>][] = [
    ["no header", null, {}],
    ["an empty header", "", {}],
    [
      "a relative target, resolved against the base",
      '<?page=2>; rel="next"',
      { next: "https://api.test/v1/items?page=2" },
    ],
    [
      "a path-relative target",
      '<items?page=2>; rel="next"',
      { next: "https://api.test/v1/items?page=2" },
    ],
    [
      "a root-relative target",
      "</v2/items?page=2>; rel=next",
      { next: "https://api.test/v2/items?page=2" },
    ],
    [
      "a dot-segment target (RFC 3986)",
      '<../other?page=2>; rel="next"',
      { next: "https://api.test/other?page=2" },
    ],
    [
      "an absolute target",
      '<https://cdn.test/items?page=2>; rel="next"',
      { next: "https://cdn.test/items?page=2" },
    ],
    [
      "several link values in one header",
      '<?page=1>; rel="first", <?page=2>; rel="next", <?page=9>; rel="last"',
      {
        first: "https://api.test/v1/items?page=1",
        next: "https://api.test/v1/items?page=2",
        last: "https://api.test/v1/items?page=9",
      },
    ],
    [
      "two headers joined by Headers.get",
      new Headers([
        ["link", '<?page=2>; rel="next"'],
        ["link", '<?page=9>; rel="last"'],
      ]).get("link"),
      {
        next: "https://api.test/v1/items?page=2",
        last: "https://api.test/v1/items?page=9",
      },
    ],
    [
      "several relation types in one rel",
      '<?page=2>; rel="next last"',
      {
        next: "https://api.test/v1/items?page=2",
        last: "https://api.test/v1/items?page=2",
      },
    ],
    [
      "commas and semicolons inside quoted parameters",
      '<?page=0>; title="a, b; c"; rel="prev", <?page=2>; title="x;y,z"; rel="next"',
      {
        prev: "https://api.test/v1/items?page=0",
        next: "https://api.test/v1/items?page=2",
      },
    ],
    [
      "a quoted parameter holding a <target> and rel=next",
      '<?page=0>; title="<?page=5>; rel=next", <?page=2>; rel=next',
      { next: "https://api.test/v1/items?page=2" },
    ],
    [
      "an escaped quote inside a quoted parameter",
      '<?page=0>; title="say \\"hi\\", ok"; rel=prev, <?page=2>; rel=next',
      {
        prev: "https://api.test/v1/items?page=0",
        next: "https://api.test/v1/items?page=2",
      },
    ],
    [
      "upper-case names and values, no spaces",
      "<?page=2>;REL=NEXT;type=x",
      { next: "https://api.test/v1/items?page=2" },
    ],
    [
      "extra white space and tabs",
      '  <?page=2> \t;\t rel = "next" ,  <?page=9>;rel=last  ',
      {
        next: "https://api.test/v1/items?page=2",
        last: "https://api.test/v1/items?page=9",
      },
    ],
    [
      "the first link of a relation wins",
      "<?page=2>; rel=next, <?page=3>; rel=next",
      { next: "https://api.test/v1/items?page=2" },
    ],
    [
      "only the first rel parameter counts",
      "<?page=2>; rel=next; rel=last",
      { next: "https://api.test/v1/items?page=2" },
    ],
    [
      "only the first rel parameter counts, an empty one too",
      '<?page=9>; rel=""; rel=next, <?page=8>; REL; rel=next, <?page=7>; rel=" "; rel=next, <?page=2>; rel=next',
      { next: "https://api.test/v1/items?page=2" },
    ],
    [
      "a link without rel is skipped",
      '<?page=2>; title="no rel", <?page=3>; rel=next',
      { next: "https://api.test/v1/items?page=3" },
    ],
    [
      "a target that does not resolve is listed as written",
      "<http://[bad>; rel=next, <?page=3>; rel=last",
      { next: "http://[bad", last: "https://api.test/v1/items?page=3" },
    ],
    [
      "a target that resolves wins over an earlier one that does not",
      "<http://[bad>; rel=next, <?page=3>; rel=next",
      { next: "https://api.test/v1/items?page=3" },
    ],
    ["a target without a closing >", '<?page=2; rel="next"', {}],
    ["text that is not a link", "not a link header", {}],
  ];
  for (const [name, value, expected] of cases) {
    await t.step(name, () => {
      assertEquals(
        Object.fromEntries(parseLinkHeader(value, BASE)),
        expected,
      );
    });
  }
});

Deno.test("parseLinkHeader() leaves out a link anchored to another resource", () => {
  const links = parseLinkHeader(
    '<?page=2>; rel="next"; anchor="https://other.test/", <?page=3>; rel="last"; anchor="' +
      BASE + '"',
    BASE,
  );
  assertEquals(Object.fromEntries(links), {
    last: "https://api.test/v1/items?page=3",
  });
  // An anchor to a fragment of the page is about the page.
  const fragment = parseLinkHeader(
    '<?page=2>; rel="next"; anchor="#top"',
    BASE,
  );
  assertEquals(fragment.get("next"), "https://api.test/v1/items?page=2");
  // An anchor that spells the page another way is about the page: escapes
  // in one form, the query's parameters in another order.
  const page = "https://api.test/v1/items%40all?filter%5Btag%5D=a&size=10";
  for (
    const anchor of [
      "https://api.test/v1/items@all?filter[tag]=a&size=10",
      "/v1/items%40all?size=10&filter%5btag%5d=a",
    ]
  ) {
    const links = parseLinkHeader(
      `<?page=2>; rel="next"; anchor="${anchor}"`,
      page,
    );
    assertEquals(links.get("next"), "https://api.test/v1/items%40all?page=2");
  }
});

Deno.test("parseLinkHeader() reads a link with any number of relation types", () => {
  // More relation types than a function call can take as arguments.
  const many = "a ".repeat(300_000);
  const links = parseLinkHeader(`<?page=2>; rel="${many}next"`, BASE);
  assertEquals(links.get("next"), "https://api.test/v1/items?page=2");
  assertEquals(links.size, 2);
});

Deno.test("parseLinkHeader() spells the base once however many links are anchored", () => {
  // A server that links to a page with a long query, then lists many
  // anchored links: spelling the base for each would sort its query's
  // parameters as many times (a minute of work in a header of thousands).
  // The work is counted, not timed: each spelling of a query sorts it once.
  const query = Array.from({ length: 100 }, (_, i) => `k${99 - i}=${i}`);
  const base = `https://api.test/v1/items?${query.join("&")}`;
  const header = Array.from(
    { length: 99 },
    (_, i) => `</z${i}>; rel="item"; anchor="/y${i}"`,
  ).join(", ") + ', <?page=2>; rel="next"';
  const sort = Array.prototype.sort;
  let sorts = 0;
  Array.prototype.sort = function (this: unknown[], ...args) {
    sorts++;
    return sort.apply(this, args as Parameters<typeof sort>);
  };
  let links;
  try {
    links = parseLinkHeader(header, base);
  } finally {
    Array.prototype.sort = sort;
  }
  assertEquals(links.get("next"), "https://api.test/v1/items?page=2");
  assertEquals(links.size, 1);
  assertEquals(sorts, 1);
});

/** What `run` returns, and how many URLs it made. */
function countingUrls<T>(run: () => T): [T, number] {
  const Platform = URL;
  let made = 0;
  globalThis.URL = class extends Platform {
    constructor(url: string | URL, base?: string | URL) {
      made++; // Before the platform may throw: a URL refused counts too.
      super(url, base);
    }
  };
  try {
    return [run(), made];
  } finally {
    globalThis.URL = Platform;
  }
}

Deno.test("parseLinkHeader() resolves no link of another type than the one asked for", () => {
  // A server may list thousands of links, each of its own type and each
  // anchored: resolving each against a long base is work nobody asked for.
  // The work is counted, not timed: each resolution makes a URL.
  const base = `https://api.test/v1/items?${"k=v&".repeat(100)}`;
  const header = Array.from(
    { length: 1_000 },
    (_, i) => `</z${i}>; rel="item${i}"; anchor="/y${i}"`,
  ).join(", ") + ', <?page=2>; rel="next", <?page=3>; rel="next"';
  const [links, made] = countingUrls(() =>
    parseLinkHeader(header, base, "next")
  );
  assertEquals([...links], [["next", "https://api.test/v1/items?page=2"]]);
  assertEquals(made, 1);
});

Deno.test("parseLinkHeader() resolves at most 100 links of a header", () => {
  // Next links each about another page, or each no URL, would each be
  // resolved against a base as long as a URL may be: seconds of work in one
  // header of a few hundred KB, which no timer can interrupt.
  const base = `https://api.test/v1/items?${"k=v&".repeat(100)}`;
  const cases: [(i: number) => string, string | undefined][] = [
    // About other pages: none is this page's next link.
    [(i) => `</z${i}>; rel=next; anchor="/y${i}"`, undefined],
    // No URL: the first is listed as written, for paginate to refuse.
    [(i) => `<http://[${i}>; rel=next`, "http://[0"],
  ];
  for (const [spell, next] of cases) {
    const header = Array.from({ length: 1_000 }, (_, i) => spell(i))
      .join(", ") + ", </last>; rel=next";
    const [links, made] = countingUrls(() =>
      parseLinkHeader(header, base, "next")
    );
    assertEquals(links.get("next"), next);
    assertEquals(made <= 100, true, `${made} URLs made`);
  }
});
