/**
 * What a 401's message shows of the credentials in the forms a server's
 * detail may quote them (URL-encoded, a Basic credential decoded);
 * `paginate`'s own option in a realm where a dependency has put a key of
 * that name on `Object.prototype`; a call's `idleTimeout` of `null`.
 *
 * @module
 */

import { assertEquals, assertStringIncludes } from "@std/assert";
import createGrab, { type GrabError } from "../mod.ts";
import { json, startServer } from "./_server.ts";
import { assertHttp, runChild, settles } from "./_bounds.ts";

/** A token with the characters of base64 that a URL encodes. */
const TOKEN = "dG9rLTNm+OWExYzc3/ZTJiNTRkMDg=";

/** A server whose 401 detail is what `quote` makes of the Authorization. */
function refusing(quote: (authorization: string) => string) {
  return startServer((_request, seen) =>
    json({
      errors: [{
        status: "401",
        detail: quote(seen.headers.get("authorization") ?? ""),
      }],
    }, {
      status: 401,
      headers: { "content-type": "application/vnd.api+json" },
    })
  );
}

function assertHidden(error: GrabError, secret: string): void {
  for (const text of [error.message, String(error), error.stack ?? ""]) {
    assertEquals(text.includes(secret), false, `${secret} in ${text}`);
  }
}

Deno.test("a 401 whose detail quotes the token URL-encoded keeps it out of the message", async () => {
  await using server = refusing((authorization) =>
    `token ${encodeURIComponent(authorization.split(" ")[1]!)} is revoked`
  );
  const grab = createGrab(server.url, {
    retry: 0,
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  const error = assertHttp(await settles(grab("GET /me")), 401);
  assertStringIncludes(error.message, "is revoked");
  assertHidden(error, encodeURIComponent(TOKEN));
});

Deno.test("a 401 whose detail quotes a Basic credential decoded keeps the password out of the message", async () => {
  await using server = refusing((authorization) =>
    `wrong password in ${atob(authorization.split(" ")[1]!)}`
  );
  const grab = createGrab(server.url, {
    retry: 0,
    headers: { authorization: `Basic ${btoa("alice:correct-horse-9")}` },
  });
  const error = assertHttp(await settles(grab("GET /me")), 401);
  assertStringIncludes(error.message, "wrong password");
  assertHidden(error, "correct-horse-9");
});

for (const key of ["limit", "body"]) {
  Deno.test(`paginate reads no ${key} a dependency put on Object.prototype`, async () => {
    await using server = startServer((_request, seen) => {
      const page = Number(seen.url.searchParams.get("page") ?? 1);
      const next = `</items?page=${page + 1}>; rel="next"`;
      return json([page], { headers: page < 3 ? { link: next } : {} });
    });
    const pages = await runChild<unknown[]>(
      "./_page_limit_child.ts",
      ["--allow-net=127.0.0.1", "--allow-read=."],
      { args: [server.url, key] },
    );
    assertEquals(pages, [[1], [2], [3]]);
  });
}

Deno.test("a call's idleTimeout of null is none, with a whole body too", async () => {
  await using server = startServer(() => json({ ok: true }));
  const grab = createGrab(server.url, { retry: 0 });
  const options = { idleTimeout: null } as unknown as { idleTimeout: false };
  const [data, error] = await settles(grab("GET /whole", options));
  assertEquals([data, error], [{ ok: true }, null]);
});
