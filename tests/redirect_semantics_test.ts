/**
 * Redirects that no retry can follow: a `Location` that is not an http(s)
 * URL, one that is no URL at all (met by a counted upload, which follows its
 * redirects itself), and any redirect under `redirect: "error"`. The server
 * answers each the same way every time, so each is one request, and its
 * message says what happened rather than that the network failed.
 *
 * @module
 */

import { assert, assertEquals, assertMatch, assertNotMatch } from "@std/assert";
import createGrab, { GrabTransportError } from "../mod.ts";
import { json, startServer } from "./_server.ts";

/** Retries that would happen at once, were the failure taken for the network's. */
const RETRY = { limit: 2, backoff: () => 0 };

Deno.test("a redirect no retry can follow is sent once and told", async (t) => {
  await using target = startServer({
    "/landing": (_request, seen) => json({ method: seen.method }),
  });
  // Redirects to `?to=`, with `TARGET` standing for the other origin.
  await using origin = startServer((_request, seen) =>
    new Response(null, {
      status: Number(seen.url.searchParams.get("status") ?? 302),
      headers: {
        location: seen.url.searchParams.get("to")!.replace(
          "TARGET",
          target.url,
        ),
      },
    })
  );
  const grab = createGrab(origin.url, { retry: RETRY, timeout: 10_000 });
  const counted = { body: "hello", onUploadProgress: () => {} };

  const cases = [
    {
      name: "a Location with another scheme",
      endpoint: "DELETE /moved",
      to: "ftp://files.example/report?key=SECRET",
      options: {},
      said: /Location header is not an http\(s\) URL/,
    },
    {
      name: "a data: Location",
      endpoint: "GET /moved",
      to: "data:text/plain,SECRET",
      options: {},
      said: /Location header is not an http\(s\) URL/,
    },
    {
      name: "another scheme, met by a counted upload",
      endpoint: "PUT /moved",
      to: "file:///etc/SECRET",
      options: { ...counted, status: 307 },
      said: /Location header is not an http\(s\) URL/,
    },
    {
      name: "a Location that is no URL, met by a counted upload",
      endpoint: "PUT /moved",
      to: "http://[SECRET",
      options: { ...counted, status: 307 },
      said: /Location header is not a valid URL/,
    },
    {
      name: 'a redirect under redirect: "error"',
      endpoint: "GET /moved",
      to: "TARGET/landing",
      options: { redirect: "error" },
      said: /the server redirected, which redirect "error" refuses/,
    },
    {
      name: 'a counted upload\'s redirect under redirect: "error"',
      endpoint: "PUT /moved",
      to: "TARGET/landing",
      options: { ...counted, status: 307, redirect: "error" },
      said: /the server redirected, which redirect "error" refuses/,
    },
  ] as const;
  for (const { name, endpoint, to, options, said } of cases) {
    await t.step(name, async () => {
      const before = origin.requests.length;
      const { status = 302, ...rest } = options as { status?: number };
      const query = `status=${status}&to=${encodeURIComponent(to)}`;
      const [data, error, meta] = await grab(
        `${endpoint}?${query}` as "GET /moved",
        rest as object,
      );
      assertEquals(data, null);
      assert(error instanceof GrabTransportError);
      assertEquals([error.kind, meta], ["network", { statusCode: 0 }]);
      assertMatch(error.message, said);
      assertNotMatch(error.message, /network failed|SECRET/);
      assertEquals(origin.requests.length - before, 1);
      assertEquals(target.requests.length, 0);
    });
  }
});
