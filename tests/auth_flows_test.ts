/**
 * Authentication as programs write it with grab: the README's token refresh
 * against a server that issues short-lived tokens, and what a 401's error
 * shows of the credentials the request carried.
 *
 * @module
 */

import {
  assert,
  assertEquals,
  assertMatch,
  assertStringIncludes,
} from "@std/assert";
import createGrab, { type GrabError, type Hooks } from "../mod.ts";
import { json, startServer } from "./_server.ts";
import { assertHttp, assertOk, settles } from "./_bounds.ts";

/** A promise and the function that resolves it. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * A service whose `POST /token` issues `t1`, `t2`, …, each valid until the
 * next is issued; `paths` answer the other routes for a valid token.
 */
function tokenService(
  paths: Record<
    string,
    (auth: string | null) => Promise<Response | undefined> | undefined
  >,
) {
  const state = { issued: 0, sent: [] as string[] };
  const server = startServer(async (request, seen) => {
    const path = seen.url.pathname;
    if (path === "/token" && request.method === "POST") {
      state.issued++;
      return json({ access_token: `t${state.issued}` });
    }
    const auth = seen.headers.get("authorization");
    state.sent.push(`${path} ${auth}`);
    const answer = await paths[path]?.(auth);
    if (answer !== undefined) return answer;
    return auth === `Bearer t${state.issued}`
      ? json({ path })
      : json({ error: "invalid_token" }, { status: 401 });
  });
  return { server, state };
}

/**
 * The README's recipe ("Auth headers and a token refresh"), as written
 * there, against `base`.
 */
function readmeRecipe(base: string, extra: { retry?: number } = {}) {
  let token = "";
  let refreshing: Promise<string> | undefined;

  // One refresh at a time, however many requests got a 401.
  function refreshToken(): Promise<string> {
    refreshing ??= fetch(`${base}/token`, { method: "POST" })
      .then((response) => response.json())
      .then((body: { access_token: string }) => (token = body.access_token))
      .finally(() => (refreshing = undefined));
    return refreshing;
  }

  const hooks: Hooks = {
    beforeRequest(request) {
      if (token) request.headers.set("authorization", `Bearer ${token}`);
    },
    async afterResponse(request, response) {
      if (response.status !== 401) return;
      await response.body?.cancel();
      // Refresh only the token this request was sent with.
      const current = token ? `Bearer ${token}` : null;
      if (request.headers.get("authorization") === current) {
        await refreshToken();
      }
      const again = new Request(request);
      again.headers.set("authorization", `Bearer ${token}`);
      return fetch(again);
    },
  };
  const api = createGrab(base, { timeout: 10_000, ...extra, hooks });
  return { api, refreshToken };
}

Deno.test("the README's token refresh refreshes once for requests sent with one token", async () => {
  // /b's 401 is held until /a's repeat has arrived with the refreshed token:
  // by then /a's refresh is over, and /b's answer comes after it.
  const repeated = gate();
  const { server, state } = tokenService({
    "/a": (auth) => {
      if (auth === "Bearer t1") repeated.open();
      return undefined;
    },
    "/b": async (auth) => {
      if (auth !== "Bearer t1") await repeated.promise;
      return undefined;
    },
  });
  await using _ = server;
  const { api } = readmeRecipe(server.url);
  const [a, b] = await settles(Promise.all([api("GET /a"), api("GET /b")]));
  assertEquals(assertOk(a), { path: "/a" });
  assertEquals(assertOk(b), { path: "/b" });
  assertEquals(state.issued, 1, "one refresh for both");
});

Deno.test("the README's token refresh sends a retry with the token current then", async () => {
  // The first attempt of /flaky is answered 503 only once the token it
  // carried has been replaced by a refresh.
  const arrived = gate();
  const release = gate();
  let attempts = 0;
  const { server, state } = tokenService({
    "/flaky": async () => {
      if (++attempts > 1) return undefined;
      arrived.open();
      await release.promise;
      return json({ error: "busy" }, {
        status: 503,
        headers: { "retry-after": "0" },
      });
    },
  });
  await using _ = server;
  const { api, refreshToken } = readmeRecipe(server.url, { retry: 1 });
  await refreshToken();
  const pending = api("GET /flaky");
  await settles(arrived.promise, "the first attempt");
  await refreshToken();
  release.open();
  assertEquals(assertOk(await settles(pending)), { path: "/flaky" });
  assertEquals(state.sent, ["/flaky Bearer t1", "/flaky Bearer t2"]);
  assertEquals(state.issued, 2, "no refresh beyond the one made meanwhile");
});

Deno.test("a 401 whose error detail quotes the credentials keeps them out of the message", async (t) => {
  const TOKEN = "tok-3f9a1c77e2b54d08";
  const COOKIE = "sess-8d2e61b0c4a9f317";
  await using server = startServer((_request, seen) =>
    json({
      errors: [{
        status: "401",
        title: `Cookie session ${seen.headers.get("cookie")} is unknown`,
        detail: `${seen.headers.get("authorization")} has expired`,
      }],
    }, {
      status: 401,
      headers: { "content-type": "application/vnd.api+json" },
    })
  );

  for (
    const [where, grab] of [
      [
        "factory headers",
        createGrab(server.url, {
          retry: 0,
          headers: {
            authorization: `Bearer ${TOKEN}`,
            cookie: `sid=${COOKIE}`,
          },
        }),
      ],
      [
        "a beforeRequest hook",
        createGrab(server.url, {
          retry: 0,
          hooks: {
            beforeRequest(request) {
              request.headers.set("authorization", `Bearer ${TOKEN}`);
              request.headers.set("cookie", `sid=${COOKIE}`);
            },
          },
        }),
      ],
    ] as const
  ) {
    await t.step(`set by ${where}`, async () => {
      const error: GrabError = assertHttp(await settles(grab("GET /me")), 401);
      assertStringIncludes(error.message, "has expired");
      for (const text of [error.message, String(error), error.stack ?? ""]) {
        for (const secret of [TOKEN, COOKIE]) {
          assertEquals(text.includes(secret), false, `${secret} in ${text}`);
        }
      }
      // The server's own errors are kept as it sent them.
      assertStringIncludes(error.errors![0]!.detail!, TOKEN);
    });
  }
});

Deno.test("a 401's message keeps the scheme and the cookie's name its server quotes", async () => {
  await using server = startServer(() =>
    json({
      errors: [{
        status: "401",
        detail: "Negotiate failed: sessionid is stale",
      }],
    }, {
      status: 401,
      headers: { "content-type": "application/vnd.api+json" },
    })
  );
  const grab = createGrab(server.url, {
    retry: 0,
    headers: {
      authorization: "Negotiate YIIGhgYGKwYBBQUCoIIGejCCBnagMDAu",
      cookie: "sessionid=8d2e61b0c4a9f317; csrftoken=77e2b54d08aa",
    },
  });
  const error = assertHttp(await settles(grab("GET /me")), 401);
  assertStringIncludes(error.message, "Negotiate failed: sessionid is stale");
});

// sindresorhus/ky#230 ("Body has already been consumed" when a POST is sent
// again), cloudflare/mcp#197 and jonbern/fetch-retry#99 (a retry sends an
// empty body): the README's token refresh repeats the request, body and all.
Deno.test("an afterResponse hook that repeats a 401 sends the request's body again", async (t) => {
  await using server = startServer((request, seen) => {
    if (request.headers.get("authorization") !== "Bearer new") {
      return new Response("expired", { status: 401 });
    }
    return Response.json({
      body: seen.body,
      type: request.headers.get("content-type"),
    });
  });
  const api = createGrab(server.url, {
    retry: 0,
    hooks: {
      beforeRequest(request) {
        request.headers.set("authorization", "Bearer old");
      },
      async afterResponse(request, response) {
        if (response.status !== 401) return;
        await response.body?.cancel();
        const again = new Request(request);
        again.headers.set("authorization", "Bearer new");
        return fetch(again);
      },
    },
  });
  const form = new FormData();
  form.append("name", "Ada");
  const cases: [string, () => unknown, string, RegExp][] = [
    ["a JSON body", () => ({ a: 1 }), '{"a":1}', /^application\/json$/],
    ["a form", () => new URLSearchParams({ a: "1" }), "a=1", /urlencoded/],
    ["bytes", () => new TextEncoder().encode("hi"), "hi", /^$/],
    ["a multipart form", () => form, 'name="name"', /^multipart\/form-data/],
  ];
  for (const [name, body, sent, type] of cases) {
    for (const progress of [false, true]) {
      const how = progress ? ", its upload counted" : "";
      await t.step(`${name}${how}`, async () => {
        const before = server.requests.length;
        const [data, error] = await api<{ body: string; type: string | null }>(
          "POST /things",
          {
            body: body() as never,
            ...(progress ? { onUploadProgress() {} } : {}),
          },
        );
        assertEquals(error, null);
        assert(data!.body.includes(sent), data!.body);
        assertMatch(data!.type ?? "", type);
        assertEquals(server.requests.length - before, 2);
      });
    }
  }
});
