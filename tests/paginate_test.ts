import {
  assert,
  assertEquals,
  assertRejects,
  assertStrictEquals,
  fail,
} from "@std/assert";
import createGrab, {
  GrabError,
  GrabTransportError,
  GrabValidationError,
  type Hooks,
  paginate,
} from "../mod.ts";
import { json, startServer } from "./_server.ts";

const JSON_API = { "content-type": "application/vnd.api+json" };

/** A JSON:API page of one article. */
function articlePage(n: number, next: unknown): Response {
  const links: Record<string, unknown> = { self: `/articles?page=${n}` };
  if (next !== undefined) links["next"] = next;
  return json({
    data: [{ type: "articles", id: String(n), attributes: { title: `A${n}` } }],
    links,
    meta: { page: n },
  }, { headers: JSON_API });
}

/** A JSON page with an optional `Link` header (or several). */
function linkPage(n: number, ...link: string[]): Response {
  const headers = new Headers({ "content-type": "application/json" });
  for (const value of link) headers.append("link", value);
  return new Response(JSON.stringify([n]), { headers });
}

const page = (url: URL) => Number(url.searchParams.get("page") ?? "1");

function pagingServer() {
  return startServer({
    // links.next as a relative string; 3 pages.
    "/jsonapi/string": (_request, { url }) => {
      const n = page(url);
      return articlePage(n, n < 3 ? `/jsonapi/string?page=${n + 1}` : null);
    },
    // links.next as a link object with an absolute href; 3 pages.
    "/jsonapi/object": (_request, { url }) => {
      const n = page(url);
      return articlePage(
        n,
        n < 3
          ? { href: `${url.origin}/jsonapi/object?page=${n + 1}`, meta: {} }
          : undefined,
      );
    },
    // Every page links to itself.
    "/jsonapi/self": (_request, { url }) => articlePage(1, url.href),
    // Page 3 links back to page 1 as the first request sent it.
    "/jsonapi/cycle": (_request, { url }) => {
      const n = page(url);
      return articlePage(n, `/jsonapi/cycle?page=${n === 3 ? 1 : n + 1}`);
    },
    // Links in bracket form: page 2 back to page 1, which grab's query
    // sent as page%5Bnumber%5D=1.
    "/jsonapi/brackets": (_request, { url }) => {
      const n = Number(url.searchParams.get("page[number]") ?? "1");
      return articlePage(
        n,
        `/jsonapi/brackets?page[number]=${n === 2 ? 1 : 2}`,
      );
    },
    // Page 2 fails.
    "/jsonapi/broken": (_request, { url }) => {
      const n = page(url);
      if (n === 2) {
        return json({ errors: [{ title: "Boom" }] }, { status: 500 });
      }
      return articlePage(n, `/jsonapi/broken?page=${n + 1}`);
    },
    // An endless list.
    "/jsonapi/endless": (_request, { url }) =>
      articlePage(page(url), `/jsonapi/endless?page=${page(url) + 1}`),
    // Link header, relative next; 3 pages.
    "/link/relative": (_request, { url }) => {
      const n = page(url);
      return n < 3
        ? linkPage(n, `<?page=${n + 1}>; rel="next", <?page=3>; rel="last"`)
        : linkPage(n, `<?page=1>; rel="first"`);
    },
    // Link header, absolute next, first and next in two headers, rel="next last".
    "/link/absolute": (_request, { url }) => {
      const n = page(url);
      if (n === 1) {
        return linkPage(
          1,
          `<${url.origin}/link/absolute?page=1>; rel="first"`,
          `<${url.origin}/link/absolute?page=2>; title="a, b; c"; rel="next last"`,
        );
      }
      return linkPage(n);
    },
    // A Link header whose next is the page itself.
    "/link/self": () => linkPage(1, '</link/self>; rel="next"'),
    // A JSON:API last page (links.next null) that also sends a Link header.
    "/jsonapi/both": (_request, { url }) => {
      const n = page(url);
      const response = articlePage(
        n,
        n < 2 ? `/jsonapi/both?page=${n + 1}` : null,
      );
      // The header disagrees with the document on every page.
      response.headers.set("link", `</jsonapi/both?page=9>; rel="next"`);
      return response;
    },
    // Page 2 is not JSON.
    "/link/unparseable": (_request, { url }) =>
      page(url) === 1
        ? linkPage(1, '<?page=2>; rel="next"')
        : new Response("<html>", { headers: { "content-type": "text/html" } }),
  });
}

Deno.test("paginate()", async (t) => {
  await using server = pagingServer();
  const jsonApi = createGrab(server.url, { format: "json-api", retry: 0 });
  const plain = createGrab(server.url, { retry: 0 });
  const requested = (path: string) =>
    server.requests
      .filter((request) => request.url.pathname === path)
      .map((request) => request.url.search);

  await t.step("follows JSON:API links.next given as a string", async () => {
    const titles: string[] = [];
    const pages: unknown[] = [];
    for await (
      const [data, meta] of paginate<{ title: string }[]>(
        jsonApi,
        "GET /jsonapi/string",
      )
    ) {
      titles.push(...data.map((article) => article.title));
      pages.push(meta.meta?.["page"]);
      assertEquals(meta.statusCode, 200);
    }
    assertEquals(titles, ["A1", "A2", "A3"]);
    assertEquals(pages, [1, 2, 3]);
    assertEquals(requested("/jsonapi/string"), ["", "?page=2", "?page=3"]);
  });

  await t.step(
    "follows JSON:API links.next given as a link object",
    async () => {
      const ids: string[] = [];
      for await (
        const [data] of paginate<{ id: string }[]>(
          jsonApi,
          "GET /jsonapi/object",
        )
      ) {
        ids.push(...data.map((article) => article.id));
      }
      assertEquals(ids, ["1", "2", "3"]);
      assertEquals(requested("/jsonapi/object"), [
        "",
        "?page=2",
        "?page=3",
      ]);
    },
  );

  await t.step(
    "the first request uses the query, later ones the link",
    async () => {
      const before = requested("/jsonapi/string").length;
      let count = 0;
      for await (
        const _ of paginate(jsonApi, "GET /jsonapi/string", {
          query: { page: 2, filter: { tag: "deno" } },
        })
      ) count++;
      assertEquals(count, 2);
      assertEquals(requested("/jsonapi/string").slice(before), [
        "?page=2&filter%5Btag%5D=deno",
        "?page=3",
      ]);
    },
  );

  await t.step("stops after limit pages", async () => {
    let count = 0;
    for await (
      const _ of paginate(jsonApi, "GET /jsonapi/endless", { limit: 4 })
    ) count++;
    assertEquals(count, 4);
    assertEquals(requested("/jsonapi/endless"), [
      "",
      "?page=2",
      "?page=3",
      "?page=4",
    ]);
  });

  await t.step("limit 0 sends nothing", async () => {
    for await (
      const _ of paginate(jsonApi, "GET /jsonapi/endless", { limit: 0 })
    ) {
      fail("yielded a page");
    }
    assertEquals(requested("/jsonapi/endless").length, 4);
  });

  await t.step(
    "a limit that is not a count is refused before any request",
    async () => {
      const before = server.requests.length;
      for (const limit of [NaN, -1, 2.5, "2", true, {}, -Infinity]) {
        const error = await assertRejects(
          async () => {
            for await (
              const _ of paginate(jsonApi, "GET /jsonapi/endless", {
                limit: limit as number,
              })
            ) fail("yielded a page");
          },
          GrabValidationError,
        );
        assertEquals(error.issues[0]?.path, "/limit");
        assert(error.message.includes("limit"), error.message);
      }
      assertEquals(server.requests.length, before);
    },
  );

  await t.step(
    "null means no limit, as null options mean none",
    async () => {
      let count = 0;
      for await (
        const _ of paginate(jsonApi, "GET /jsonapi/string", { limit: null })
      ) count++;
      assertEquals(count, 3);
      count = 0;
      for await (const _ of paginate(jsonApi, "GET /jsonapi/string", null)) {
        count++;
      }
      assertEquals(count, 3);
    },
  );

  await t.step(
    "a JSON:API document's links.next decides, null too, over a Link header",
    async () => {
      let count = 0;
      for await (const _ of paginate(jsonApi, "GET /jsonapi/both")) count++;
      assertEquals(count, 2);
      assertEquals(requested("/jsonapi/both"), ["", "?page=2"]);
    },
  );

  await t.step("stops at a page that links to itself", async () => {
    let count = 0;
    for await (const _ of paginate(jsonApi, "GET /jsonapi/self")) count++;
    assertEquals(count, 1);
    assertEquals(requested("/jsonapi/self").length, 1);
  });

  await t.step(
    "a link back to the first page in another spelling of its query is that page",
    async () => {
      const pages: unknown[] = [];
      for await (
        const [data] of paginate(jsonApi, "GET /jsonapi/brackets", {
          query: { page: { number: 1 } },
        })
      ) pages.push((data as { id: string }[])[0]!.id);
      assertEquals(pages, ["1", "2"]);
      assertEquals(requested("/jsonapi/brackets"), [
        "?page%5Bnumber%5D=1",
        "?page[number]=2",
      ]);
    },
  );

  await t.step("stops at a link back to the first page", async () => {
    let count = 0;
    for await (
      const _ of paginate(jsonApi, "GET /jsonapi/cycle", { query: { page: 1 } })
    ) count++;
    assertEquals(count, 3);
    assertEquals(requested("/jsonapi/cycle"), [
      "?page=1",
      "?page=2",
      "?page=3",
    ]);
  });

  await t.step(
    "a link back to a first page sent without the query is followed once",
    async () => {
      // "/jsonapi/cycle" and "/jsonapi/cycle?page=1" are different links: page 1
      // is fetched again, and its next link, already followed, ends the walk.
      const before = requested("/jsonapi/cycle").length;
      const ids: string[] = [];
      for await (
        const [data] of paginate<{ id: string }[]>(
          jsonApi,
          "GET /jsonapi/cycle",
        )
      ) {
        ids.push(data[0]!.id);
      }
      assertEquals(ids, ["1", "2", "3", "1"]);
      assertEquals(requested("/jsonapi/cycle").slice(before), [
        "",
        "?page=2",
        "?page=3",
        "?page=1",
      ]);
    },
  );

  await t.step("throws the first failure as a GrabError", async () => {
    const seen: unknown[] = [];
    const error = await assertRejects(async () => {
      for await (const [data] of paginate(jsonApi, "GET /jsonapi/broken")) {
        seen.push(data);
      }
    }, GrabError);
    assertEquals(error.statusCode, 500);
    assertEquals(error.message, "Boom");
    assertEquals(seen.length, 1);
    assertEquals(requested("/jsonapi/broken"), ["", "?page=2"]);
  });

  await t.step(
    "refuses a next link with credentials, saying so, not that JSON failed",
    async () => {
      await using sneaky = startServer(() =>
        json([1], {
          headers: { link: '<http://user:pw@127.0.0.1:9/p2>; rel="next"' },
        })
      );
      const grab = createGrab(sneaky.url, { retry: 0 });
      const error = await assertRejects(async () => {
        for await (const _ of paginate(grab, "GET /p1")) {
          // The first page is served; the link after it is refused.
        }
      }, GrabTransportError);
      assertEquals(error.kind, "parse");
      // The page that carried the link failed, as with a link not http(s).
      assertEquals(
        error.message,
        `Cannot follow the next link: it holds credentials: GET ${sneaky.url}/p1`,
      );
      assertEquals(error.url, `${sneaky.url}/p1`);
      assert(!error.message.includes("pw"), error.message);
    },
  );

  await t.step("follows a relative Link header in JSON mode", async () => {
    const pages: unknown[] = [];
    for await (const [data] of paginate(plain, "GET /link/relative")) {
      pages.push(data);
    }
    assertEquals(pages, [[1], [2], [3]]);
    assertEquals(requested("/link/relative"), ["", "?page=2", "?page=3"]);
  });

  await t.step("follows an absolute next from two Link headers", async () => {
    const pages: unknown[] = [];
    for await (const [data, meta] of paginate(plain, "GET /link/absolute")) {
      pages.push(data);
      assert(meta.headers instanceof Headers);
    }
    assertEquals(pages, [[1], [2]]);
    assertEquals(requested("/link/absolute"), ["", "?page=2"]);
  });

  await t.step("stops at a Link header naming the page itself", async () => {
    let count = 0;
    for await (const _ of paginate(plain, "GET /link/self")) count++;
    assertEquals(count, 1);
    assertEquals(requested("/link/self").length, 1);
  });

  await t.step("throws a transport failure", async () => {
    const error = await assertRejects(async () => {
      for await (const _ of paginate(plain, "GET /link/unparseable")) {
        // Drain.
      }
    }, GrabTransportError);
    assertEquals(error.kind, "parse");
    assertEquals(requested("/link/unparseable"), ["", "?page=2"]);
  });

  await t.step("keeps the caller's afterResponse hook", async () => {
    const statuses: number[] = [];
    let count = 0;
    for await (
      const _ of paginate(plain, "GET /link/relative", {
        hooks: {
          afterResponse: (_request, response) =>
            void statuses.push(response.status),
        },
      })
    ) count++;
    assertEquals(count, 3);
    assertEquals(statuses, [200, 200, 200]);
  });

  await t.step("a page the caller stops reading sends no more", async () => {
    const before = requested("/jsonapi/endless").length;
    for await (const _ of paginate(jsonApi, "GET /jsonapi/endless")) break;
    assertStrictEquals(requested("/jsonapi/endless").length, before + 1);
  });
});

Deno.test("paginate() keeps cursors of bytes that are no UTF-8 apart", async () => {
  // Opaque cursors, percent-encoded bytes: %80A and %81A are two pages,
  // though both decode to U+FFFD followed by A.
  const cursors = ["", "%80A", "%81A", "%2BA", "+A"];
  await using server = startServer((request) => {
    const raw = /cursor=([^&]*)/.exec(new URL(request.url).search)?.[1] ?? "";
    const n = cursors.indexOf(raw);
    const next = cursors[n + 1];
    const headers: Record<string, string> = next === undefined
      ? {}
      : { link: `</items?cursor=${next}>; rel="next"` };
    return json([n], { headers });
  });
  const grab = createGrab(server.url);
  const pages: unknown[] = [];
  for await (const [data] of paginate(grab, "GET /items")) pages.push(data);
  assertEquals(pages, [[0], [1], [2], [3], [4]]);
});

Deno.test("paginate() follows a Link header with more relation types than a call takes", async () => {
  // A server's header: about 300 kB, within what fetch accepts.
  const rels = "a ".repeat(150_000);
  await using server = startServer((request) => {
    const page = new URL(request.url).searchParams.get("page") ?? "1";
    const headers: Record<string, string> = page === "1"
      ? { link: `</items?page=2>; rel="${rels}next"` }
      : {};
    return json([Number(page)], { headers });
  });
  const grab = createGrab(server.url, { retry: 0 });
  const pages: unknown[] = [];
  for await (const [data] of paginate(grab, "GET /items")) pages.push(data);
  assertEquals(pages, [[1], [2]]);
});

Deno.test("paginate() takes the call's hooks as a grab does", async (t) => {
  await using server = startServer((request) => {
    const n = page(new URL(request.url));
    const headers = n < 2 ? { link: `</items?page=${n + 1}>; rel="next"` } : {};
    return json([request.headers.get("x-signed")], { headers });
  });
  const grab = createGrab(server.url, { retry: 0 });

  await t.step("a hook keeps its object as this", async () => {
    class Signer {
      #secret = "yes";
      beforeRequest(request: Request): void {
        request.headers.set("x-signed", this.#secret);
      }
    }
    const pages: unknown[] = [];
    const hooks = new Signer();
    for await (const [data] of paginate(grab, "GET /items", { hooks })) {
      pages.push(data);
    }
    assertEquals(pages, [["yes"], ["yes"]]);
  });

  await t.step("a hook set to null is none", async () => {
    const pages: unknown[] = [];
    const hooks = { beforeRequest: null, afterResponse: null };
    for await (
      const [data] of paginate(grab, "GET /items", {
        hooks: hooks as unknown as Hooks,
      })
    ) pages.push(data);
    assertEquals(pages, [[null], [null]]);
  });

  await t.step("a hook that is no function is refused", async () => {
    const hooks = { afterResponse: "log" } as unknown as Hooks;
    const error = await assertRejects(
      () => paginate(grab, "GET /items", { hooks }).next(),
      GrabValidationError,
    );
    assertEquals(error.issues.length, 1);
    assert(error.issues[0]!.message.includes("afterResponse"));
  });
  assertEquals(server.requests.length, 4);
});

Deno.test("paginate() stops at a link to a page it read through a redirect", async () => {
  await using server = startServer((_request, { url }) => {
    // The first page moved; the last page links back to where it was asked.
    if (url.pathname === "/old") {
      return Response.redirect(`${url.origin}/items?page=1`, 302);
    }
    const n = page(url);
    return linkPage(
      n,
      n === 1 ? '<?page=2>; rel="next"' : '</old>; rel="next"',
    );
  });
  const grab = createGrab(server.url, { retry: 0 });
  const pages: unknown[] = [];
  for await (const [data] of paginate(grab, "GET /old", { limit: 10 })) {
    pages.push(data);
  }
  assertEquals(pages, [[1], [2]]);
  assertEquals(
    server.requests.map(({ url }) => url.pathname + url.search),
    ["/old", "/items?page=1", "/items?page=2"],
  );
});

Deno.test("paginate() refuses a stream body before any request: every page is asked with it", async () => {
  await using server = startServer((_request, { url, body }) => {
    const n = page(url);
    const headers = n < 2
      ? { link: `</search?page=${n + 1}>; rel="next"` }
      : {};
    return json([n, body], { headers });
  });
  const grab = createGrab(server.url, { retry: 0 });
  const stream = () => new Blob(["term"]).stream();
  const error = await assertRejects(
    () => paginate(grab, "POST /search", { body: stream() }).next(),
    GrabValidationError,
  );
  assertEquals(error.issues.length, 1);
  assert(error.message.includes("ReadableStream"), error.message);
  // With a bad limit too, both are listed.
  const both = await assertRejects(
    () => paginate(grab, "POST /search", { body: stream(), limit: -1 }).next(),
    GrabValidationError,
  );
  assertEquals(both.issues.map((issue) => issue.path), ["/limit", ""]);
  assertEquals(server.requests.length, 0);
  // The same search as bytes is sent with each page.
  const pages: unknown[] = [];
  for await (
    const [data] of paginate(grab, "POST /search", {
      body: new TextEncoder().encode("term"),
    })
  ) pages.push(data);
  assertEquals(pages, [[1, "term"], [2, "term"]]);
});

Deno.test("paginate() tells pages apart by long links as by short ones", async (t) => {
  // Cursors of 4 KiB that differ only at their end; the last page links
  // back to the second, spelled with its escapes in another form.
  const cursor = (n: number) => `${"c".repeat(4096)}%2a${n}`;
  const links = ["", cursor(2), cursor(3), cursor(2).replace("%2a", "*")];
  await using server = startServer((request) => {
    const raw = /cursor=([^&]*)/.exec(new URL(request.url).search)?.[1] ?? "";
    const n = raw === "" ? 1 : Number(raw.slice(-1));
    const next = links[n];
    const headers: Record<string, string> = next === undefined
      ? {}
      : { link: `</items?cursor=${next}>; rel="next"` };
    return json([n], { headers });
  });
  const grab = createGrab(server.url, { retry: 0 });

  await t.step(
    "each page is read once, and a link back ends the loop",
    async () => {
      const pages: unknown[] = [];
      for await (const [data] of paginate(grab, "GET /items")) pages.push(data);
      assertEquals(pages, [[1], [2], [3]]);
    },
  );
});

Deno.test("paginate() ends at a next link redirected to a page already read, not yielding it again", async (t) => {
  await using server = startServer((_request, { url }) => {
    const n = page(url);
    // Past the end, the server sends the caller back to page 2.
    if (n === 4) return Response.redirect(`${url.origin}/items?page=2`, 302);
    // "/moved" is at "/items" now.
    if (url.pathname === "/moved") {
      return Response.redirect(`${url.origin}/items?page=${n}`, 301);
    }
    const next = url.pathname === "/start" ? "/moved" : "/items";
    return new Response(`[${n}]\n`, {
      headers: {
        "content-type": "application/json",
        link: `<${next}?page=${n + 1}>; rel="next"`,
      },
    });
  });
  const grab = createGrab(server.url, { retry: 0 });
  const asked = () =>
    server.requests.map(({ url }) => url.pathname + url.search);

  await t.step(
    "three pages, the fourth link is the second page again",
    async () => {
      const pages: unknown[] = [];
      for await (const [data] of paginate(grab, "GET /items")) pages.push(data);
      assertEquals(pages, [[1], [2], [3]]);
      assertEquals(asked().slice(-2), ["/items?page=4", "/items?page=2"]);
    },
  );

  await t.step("a redirect to a page not read yet is that page", async () => {
    const pages: unknown[] = [];
    for await (
      const [data] of paginate(grab, "GET /start", { limit: 2 })
    ) pages.push(data);
    assertEquals(pages, [[1], [2]]);
    assertEquals(asked().slice(-2), ["/moved?page=2", "/items?page=2"]);
  });

  await t.step(
    "a custom fetch that asks every page of one URL reads every page",
    async () => {
      // A proxy at "/proxy" fetches the page named in a header: every
      // response comes from that one URL, unredirected.
      await using proxy = startServer(async (request) => {
        const target = request.headers.get("x-target")!;
        const response = await fetch(target, { redirect: "manual" });
        const n = page(new URL(target));
        const link = n < 3
          ? `<${server.url}/items?page=${n + 1}>; rel=next`
          : "";
        return new Response(response.body, {
          headers: { "content-type": "application/json", link },
        });
      });
      const proxied = createGrab(server.url, {
        retry: 0,
        fetch: (input) =>
          fetch(`${proxy.url}/proxy`, {
            headers: { "x-target": new Request(input).url },
          }),
      });
      const pages: unknown[] = [];
      for await (const [data] of paginate(proxied, "GET /items")) {
        pages.push(data);
      }
      assertEquals(pages, [[1], [2], [3]]);
    },
  );

  await t.step(
    "the body of the page read again is not read, nor left open",
    async () => {
      const texts: string[] = [];
      const values: unknown[] = [];
      for (const responseType of ["stream", "ndjson", "text"] as const) {
        for await (
          const [data] of paginate(grab, "GET /items", { responseType })
        ) {
          if (data instanceof ReadableStream) {
            texts.push(await new Response(data).text());
          } else if (typeof data === "string") texts.push(data);
          else for await (const value of data!) values.push(value);
        }
      }
      assertEquals(texts, [
        "[1]\n",
        "[2]\n",
        "[3]\n",
        "[1]\n",
        "[2]\n",
        "[3]\n",
      ]);
      assertEquals(values, [[1], [2], [3]]);
    },
  );
});
