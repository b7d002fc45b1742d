/**
 * Trust follows the origin: factory headers and factory hooks reach only the
 * base origin and `trustedOrigins` (everything when there is no base
 * address); call hooks always run; `paginate` follows a next link on another
 * origin without the factory's or the call's headers and hooks; a
 * `trustedOrigins` entry must be exactly an origin.
 *
 * Two fixture servers on different ports are two origins.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import createGrab, { type GrabOptions, type Hooks, paginate } from "../mod.ts";
import { json, type SeenRequest, startServer } from "./_server.ts";
import { assertHttp, assertOk, assertValidation, settles } from "./_bounds.ts";
import { anotherCopy } from "./_another_copy.ts";

const SECRET_HEADERS = [
  "authorization",
  "x-api-key",
  "x-session",
  "x-factory-hook",
  "x-call-hook",
];

/** The secret headers a request carried, by name. */
function secrets(request: SeenRequest): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of SECRET_HEADERS) {
    const value = request.headers.get(name);
    if (value !== null) found[name] = value;
  }
  return found;
}

/** A server that answers 401 unless the request carries `Bearer fresh`. */
function authServer() {
  return startServer((_request, seen) =>
    seen.headers.get("authorization") === "Bearer fresh"
      ? json({ me: "ok" })
      : json({ error: "unauthorised" }, { status: 401 })
  );
}

/**
 * The README's token-refresh recipe: a header function with the current
 * token, an `afterResponse` that refreshes on a 401 and repeats the request,
 * and a `beforeRequest` that adds a session header.
 */
function refreshingFactory(
  base: string | undefined,
  extra: Pick<GrabOptions, "trustedOrigins"> = {},
) {
  const state = { token: "old", refreshes: 0, factoryHooks: 0 };
  const grab = createGrab(base, {
    ...extra,
    retry: 0,
    timeout: 10_000,
    headers: () => ({ authorization: `Bearer ${state.token}` }),
    hooks: {
      beforeRequest(request) {
        state.factoryHooks++;
        request.headers.set("x-session", "SESSION-SECRET");
      },
      async afterResponse(request, response) {
        if (response.status !== 401) return;
        await response.body?.cancel();
        state.refreshes++;
        state.token = "fresh";
        const again = new Request(request);
        again.headers.set("authorization", `Bearer ${state.token}`);
        return fetch(again);
      },
    },
  });
  return { grab, state };
}

Deno.test("factory headers and hooks stay on the trusted origins", async (t) => {
  await using a = authServer();
  await using b = authServer();

  await t.step(
    "a grab on another origin gets neither the token nor the factory hooks",
    async () => {
      const { grab, state } = refreshingFactory(a.url);
      const before = b.requests.length;
      const result = await settles(grab(`GET ${b.url}/me`));
      assertHttp(result, 401);
      const seen = b.requests.slice(before);
      assertEquals(seen.length, 1, "no repeat of the request by the hook");
      assertEquals(secrets(seen[0]!), {});
      assertEquals(state.refreshes, 0, "afterResponse did not run");
      assertEquals(state.factoryHooks, 0, "beforeRequest did not run");
    },
  );

  await t.step(
    "the same factory on its own origin refreshes and repeats (control)",
    async () => {
      const { grab, state } = refreshingFactory(a.url);
      const before = a.requests.length;
      assertEquals(assertOk(await settles(grab("GET /me"))), { me: "ok" });
      const seen = a.requests.slice(before);
      assertEquals(seen.length, 2);
      assertEquals(secrets(seen[0]!), {
        authorization: "Bearer old",
        "x-session": "SESSION-SECRET",
      });
      assertEquals(seen[1]!.headers.get("authorization"), "Bearer fresh");
      assertEquals(state.refreshes, 1);
    },
  );

  for (const entry of ["exact", "with a trailing slash"]) {
    await t.step(
      `a trusted origin (${entry}) gets the headers and the hooks`,
      async () => {
        const origin = entry === "exact" ? b.url : `${b.url}/`;
        const { grab, state } = refreshingFactory(a.url, {
          trustedOrigins: [origin],
        });
        const before = b.requests.length;
        assertOk(await settles(grab(`GET ${b.url}/me`)));
        const seen = b.requests.slice(before);
        assertEquals(seen[0]!.headers.get("authorization"), "Bearer old");
        assertEquals(seen[0]!.headers.get("x-session"), "SESSION-SECRET");
        assertEquals(state.refreshes, 1);
      },
    );
  }

  await t.step(
    "a factory without a base address sends its headers and hooks everywhere",
    async () => {
      const { grab, state } = refreshingFactory(undefined);
      const before = b.requests.length;
      assertOk(await settles(grab(`GET ${b.url}/me`)));
      const seen = b.requests.slice(before);
      assertEquals(seen[0]!.headers.get("x-session"), "SESSION-SECRET");
      assertEquals(state.factoryHooks, 1);
      assertEquals(state.refreshes, 1);
    },
  );

  for (const trust of ["untrusted", "trusted"]) {
    await t.step(
      `a call hook's request to ${
        trust === "trusted" ? "a" : "an"
      } ${trust} origin: the factory's afterResponse runs only where trusted`,
      async () => {
        const { grab, state } = refreshingFactory(a.url, {
          trustedOrigins: trust === "trusted" ? [b.url] : [],
        });
        const before = b.requests.length;
        const result = await settles(
          grab("GET /me", {
            hooks: { beforeRequest: () => new Request(`${b.url}/me`) },
          }),
        );
        const seen = b.requests.slice(before);
        assertEquals(secrets(seen[0]!), {}, "the hook's request sent bare");
        if (trust === "trusted") {
          assertEquals(assertOk(result), { me: "ok" });
          assertEquals(seen[1]!.headers.get("authorization"), "Bearer fresh");
          return;
        }
        assertHttp(result, 401);
        assertEquals(seen.length, 1, "no repeat with the fresh token");
        assertEquals(state.refreshes, 0, "afterResponse did not run");
      },
    );
  }

  await t.step(
    "a call hook's request to another origin: the factory's beforeRetry is not called",
    async () => {
      await using home = startServer(() => json({}, { status: 503 }));
      await using away = startServer(() => json({}, { status: 503 }));
      const retries: string[] = [];
      const grab = createGrab(home.url, {
        retry: { limit: 1, backoff: () => 0 },
        hooks: { beforeRetry: ({ request }) => void retries.push(request.url) },
      });
      assertHttp(await settles(grab("GET /")), 503);
      const result = await settles(
        grab("GET /", {
          hooks: { beforeRequest: () => new Request(`${away.url}/`) },
        }),
      );
      assertHttp(result, 503);
      assertEquals(away.requests.length, 2, "retried once");
      assertEquals(retries, [`${home.url}/`], "called at home only");
    },
  );

  await t.step(
    "a factory's own beforeRequest sends every request to a gateway: its afterResponse and beforeRetry run there, not where a call hook sends it",
    async () => {
      await using gateway = authServer();
      await using away = startServer(() => json({}, { status: 401 }));
      const seen = { after: 0, retries: 0 };
      const grab = createGrab(a.url, {
        retry: { limit: 1, statusCodes: [401], backoff: () => 0 },
        timeout: 10_000,
        hooks: {
          beforeRequest: (request) =>
            new Request(
              `${gateway.url}${new URL(request.url).pathname}`,
              request,
            ),
          afterResponse() {
            seen.after++;
          },
          beforeRetry() {
            seen.retries++;
          },
        },
      });
      assertHttp(await settles(grab("GET /me")), 401);
      assertEquals(gateway.requests.length, 2, "retried at the gateway");
      assertEquals(seen, { after: 2, retries: 1 }, "run at the gateway");
      seen.after = seen.retries = 0;
      const moved = await settles(
        grab("GET /me", {
          hooks: { beforeRequest: () => new Request(`${away.url}/me`) },
        }),
      );
      assertHttp(moved, 401);
      assertEquals(away.requests.length, 2, "retried away");
      assertEquals(seen, { after: 0, retries: 0 }, "not run away");
    },
  );

  await t.step("call headers and call hooks reach any origin", async () => {
    const { grab, state } = refreshingFactory(a.url);
    let callHooks = 0;
    const before = b.requests.length;
    const result = await settles(
      grab(`GET ${b.url}/me`, {
        headers: { "x-api-key": "CALL-KEY" },
        hooks: {
          beforeRequest(request) {
            callHooks++;
            request.headers.set("x-call-hook", "yes");
          },
        },
      }),
    );
    assertHttp(result, 401);
    const seen = b.requests.slice(before);
    assertEquals(secrets(seen[0]!), {
      "x-api-key": "CALL-KEY",
      "x-call-hook": "yes",
    });
    assertEquals(callHooks, 1);
    assertEquals(state.factoryHooks, 0);
  });
});

/** Factory and call options that mark every request they touch. */
function marked(base: string) {
  const counts = { factoryHooks: 0, callHooks: 0 };
  const grab = createGrab(base, {
    headers: { authorization: "Bearer FACTORY-TOKEN" },
    retry: 0,
    timeout: 10_000,
    hooks: {
      beforeRequest(request) {
        counts.factoryHooks++;
        request.headers.set("x-factory-hook", "yes");
      },
    },
  });
  const hooks: Hooks = {
    beforeRequest(request) {
      counts.callHooks++;
      request.headers.set("x-call-hook", "yes");
    },
  };
  const call = {
    headers: { "X-Api-Key": "CALL-KEY", Authorization: "Bearer CALL-TOKEN" },
    hooks,
  };
  return { grab, call, counts };
}

const ALL_MARKS = {
  authorization: "Bearer CALL-TOKEN",
  "x-api-key": "CALL-KEY",
  "x-factory-hook": "yes",
  "x-call-hook": "yes",
};

Deno.test("paginate() keeps secrets on the origin they were meant for", async (t) => {
  await using other = startServer({
    "/items": (_request, seen) =>
      // Page 2, elsewhere, links back home for page 3.
      seen.url.searchParams.get("back") === null ? json([2]) : json([2], {
        headers: { link: `<${seen.url.searchParams.get("back")}>; rel="next"` },
      }),
    "/search": () => json([2]),
    "/articles": () =>
      json({ data: [{ type: "articles", id: "2" }] }, {
        headers: { "content-type": "application/vnd.api+json" },
      }),
  });
  await using home = startServer({
    "/items": (_request, seen) => {
      const page = seen.url.searchParams.get("page");
      const next = seen.url.searchParams.get("next");
      if (page === "2") return json([2]);
      if (page === "3") return json([1]);
      const back = encodeURIComponent(`${home.url}/items?page=3`);
      const link = next === "other"
        ? `<${other.url}/items?page=2>; rel="next"`
        : next === "other-and-back"
        ? `<${other.url}/items?page=2&back=${back}>; rel="next"`
        : `</items?page=2>; rel="next"`;
      return json([1], { headers: { link } });
    },
    "/search": () =>
      json([1], {
        headers: { link: `<${other.url}/search?page=2>; rel="next"` },
      }),
    "/articles": (_request, seen) => {
      const page = seen.url.searchParams.get("page");
      const next = seen.url.searchParams.get("next");
      if (page === "2") {
        return json({ data: [{ type: "articles", id: "2" }] }, {
          headers: { "content-type": "application/vnd.api+json" },
        });
      }
      return json({
        data: [{ type: "articles", id: "1" }],
        links: {
          next: next === "other"
            ? `${other.url}/articles?page=2`
            : { href: `${seen.url.origin}/articles?page=2` },
        },
      }, { headers: { "content-type": "application/vnd.api+json" } });
    },
  });

  await t.step(
    "JSON mode: a Link next on another origin is fetched bare",
    async () => {
      const { grab, call, counts } = marked(home.url);
      const pages: unknown[] = [];
      for await (
        const [data] of paginate(grab, "GET /items", {
          ...call,
          query: { next: "other" },
          limit: 5,
        })
      ) {
        pages.push(data);
      }
      assertEquals(pages, [[1], [2]]);
      assertEquals(secrets(home.requests.at(-1)!), ALL_MARKS);
      assertEquals(other.requests.length, 1);
      assertEquals(secrets(other.requests[0]!), {});
      assertEquals(counts, { factoryHooks: 1, callHooks: 1 });
    },
  );

  await t.step(
    "a link back home from a page elsewhere is fetched bare too",
    async () => {
      const { grab, call } = marked(home.url);
      const before = home.requests.length;
      const pages: unknown[] = [];
      for await (
        const [data] of paginate(grab, "GET /items", {
          ...call,
          query: { next: "other-and-back" },
          limit: 5,
        })
      ) {
        pages.push(data);
      }
      assertEquals(pages, [[1], [2], [1]]);
      const atHome = home.requests.slice(before);
      assertEquals(atHome.length, 2);
      assertEquals(secrets(atHome[0]!), ALL_MARKS);
      // The other server chose this URL: it gets no token.
      assertEquals(secrets(atHome[1]!), {});
    },
  );

  await t.step(
    "JSON:API mode: a links.next on another origin is fetched bare",
    async () => {
      const { grab, call, counts } = marked(home.url);
      const before = other.requests.length;
      const ids: string[] = [];
      for await (
        const [data] of paginate<{ id: string }[]>(grab, "GET /articles", {
          ...call,
          format: "json-api",
          query: { next: "other" },
          limit: 5,
        })
      ) {
        ids.push(...data.map((article) => article.id));
      }
      assertEquals(ids, ["1", "2"]);
      const seen = other.requests.slice(before);
      assertEquals(seen.length, 1);
      assertEquals(secrets(seen[0]!), {});
      assertEquals(counts, { factoryHooks: 1, callHooks: 1 });
    },
  );

  await t.step(
    "a POST search's body stays on its origin",
    async () => {
      const { grab, call } = marked(home.url);
      const before = other.requests.length;
      const pages: unknown[] = [];
      for await (
        const [data] of paginate(grab, "POST /search", {
          ...call,
          body: { secret: "CALL-BODY" },
          credentials: "include",
          limit: 5,
        })
      ) {
        pages.push(data);
      }
      assertEquals(pages, [[1], [2]]);
      assertEquals(home.requests.at(-1)!.body, '{"secret":"CALL-BODY"}');
      const seen = other.requests.slice(before);
      assertEquals(seen.length, 1);
      assertEquals(seen[0]!.body, "");
      assertEquals(secrets(seen[0]!), {});
    },
  );

  await t.step(
    "same-origin next links keep the headers and hooks (control)",
    async () => {
      for (const endpoint of ["GET /items", "GET /articles"] as const) {
        const { grab, call, counts } = marked(home.url);
        const before = home.requests.length;
        let pages = 0;
        for await (
          const _page of paginate(grab, endpoint, {
            ...call,
            format: endpoint === "GET /items" ? "json" : "json-api",
            limit: 5,
          })
        ) {
          pages++;
        }
        assertEquals(pages, 2);
        const seen = home.requests.slice(before);
        assertEquals(seen.length, 2);
        for (const request of seen) assertEquals(secrets(request), ALL_MARKS);
        assertEquals(counts, { factoryHooks: 2, callHooks: 2 });
      }
    },
  );
});

Deno.test("paginate() keeps a factory's headers home with a grab of another copy of the module", async () => {
  const copy = await anotherCopy();
  assert(copy.paginate !== paginate && copy.createGrab !== createGrab);
  await using other = startServer(() => json([2]));
  await using home = startServer(() =>
    json([1], { headers: { link: `<${other.url}/items?page=2>; rel="next"` } })
  );
  // No base address: the factory's headers go wherever its grabs are sent,
  // but not where a server's next link leads.
  const pairs = [
    [paginate, copy.createGrab],
    [copy.paginate, createGrab],
  ] as const;
  for (const [pages, create] of pairs) {
    const grab = create(undefined, {
      headers: { authorization: "Bearer FACTORY-TOKEN" },
      retry: 0,
    });
    const read: unknown[] = [];
    for await (const [data] of pages(grab, `GET ${home.url}/items`)) {
      read.push(data);
    }
    assertEquals(read, [[1], [2]]);
    assertEquals(secrets(home.requests.at(-1)!), {
      authorization: "Bearer FACTORY-TOKEN",
    });
    assertEquals(secrets(other.requests.at(-1)!), {});
  }
  assertEquals(other.requests.length, 2);
});

Deno.test("createGrab() takes only origins as trustedOrigins", async (t) => {
  for (
    const entry of [
      "https://cdn.example.com/assets",
      "https://cdn.example.com/x?y",
      "https://cdn.example.com#top",
      "ftp://x",
      "not a url",
      "https://user:pw@cdn.example.com",
      "",
    ]
  ) {
    await t.step(`${JSON.stringify(entry)} is refused`, async () => {
      await assertValidation(() =>
        createGrab("https://api.example.com", { trustedOrigins: [entry] })
      );
    });
  }

  for (
    const entry of [
      "https://cdn.example.com",
      "https://cdn.example.com/",
      "http://127.0.0.1:8080",
      "http://127.0.0.1:8080/",
    ]
  ) {
    await t.step(`${JSON.stringify(entry)} is accepted`, () => {
      createGrab("https://api.example.com", { trustedOrigins: [entry] });
    });
  }

  for (const entry of ["https://*.cdn.example.com", "https://cdn*.example"]) {
    // The URL parser takes the host as spelt: trusted, it would match no
    // host the wildcard means, and the headers would go nowhere unsaid.
    await t.step(
      `${JSON.stringify(entry)} is refused as a wildcard`,
      async () => {
        const error = await assertValidation(() =>
          createGrab("https://api.example.com", { trustedOrigins: [entry] })
        );
        assertStringIncludes(error.message, "wildcard");
      },
    );
  }

  await t.step("every bad entry is reported, not just the first", async () => {
    const error = await assertValidation(() =>
      createGrab("https://api.example.com", {
        trustedOrigins: [
          "https://ok.example.com",
          "https://cdn.example.com/assets",
          "ftp://x",
        ],
      })
    );
    assertEquals(error.issues.length >= 2, true, JSON.stringify(error.issues));
  });

  // The URL parser reads userinfo without "://" too: `https:user:pw@host`
  // is https://user:pw@host/.
  for (
    const entry of [
      "https:user:SECRET@cdn.example.com",
      "https:/user:SECRET@cdn.example.com",
      "https:\\\\user:SECRET@cdn.example.com",
      "https://user:SECRET@cdn.example.com",
      // A raw "?" or "#" in the password ends the userinfo for redaction.
      "https://user:SECRET?x@cdn.example.com",
      "https://user:SECRET#x@cdn.example.com",
      "cdn.example.com?key=SECRET",
      "https://cdn.example.com/?key=SECRET#SECRET",
    ]
  ) {
    await t.step(
      `${JSON.stringify(entry)} is refused without its secret`,
      async () => {
        const error = await assertValidation(() =>
          createGrab("https://api.example.com", { trustedOrigins: [entry] })
        );
        for (const text of [error.message, JSON.stringify(error)]) {
          assert(!text.includes("SECRET"), text);
        }
      },
    );
  }

  await t.step("an entry without secrets is quoted as given", async () => {
    const error = await assertValidation(() =>
      createGrab("https://api.example.com", {
        trustedOrigins: ["https://cdn.example.com/assets"],
      })
    );
    assertStringIncludes(error.message, '"https://cdn.example.com/assets"');
  });

  await t.step(
    "a list that throws as it is read is refused, its error the cause",
    async () => {
      const thrown = new Error("no entries");
      const { proxy: revoked, revoke } = Proxy.revocable([] as string[], {});
      revoke();
      const getter: string[] = [];
      Object.defineProperty(getter, 0, {
        enumerable: true,
        get() {
          throw thrown;
        },
      });
      const trapped = new Proxy(["https://cdn.example.com"], {
        get() {
          throw thrown;
        },
      });
      for (const entries of [revoked, getter, trapped]) {
        const error = await assertValidation(() =>
          createGrab("https://api.example.com", { trustedOrigins: entries })
        );
        assertStringIncludes(error.message, '"trustedOrigins"');
        assertEquals(error.issues.length, 1);
        assertEquals(error.issues[0]!.path, "/trustedOrigins");
        if (entries !== revoked) assertEquals(error.cause, thrown);
      }
    },
  );
});
