/**
 * A base address that is a path, in a page (or worker, or Deno with
 * `--location`): resolved against the page's location, as `fetch` there
 * resolves one.
 *
 * @module
 */

import { assertEquals, assertThrows } from "@std/assert";
import createGrab, { Call, GrabValidationError } from "../mod.ts";
import { json, startServer } from "./_server.ts";
import { assertOk, settles } from "./_bounds.ts";

/** Runs `run` with `globalThis.location` at `href`, then puts it back. */
async function onPage(href: string, run: () => Promise<void>): Promise<void> {
  const before = Object.getOwnPropertyDescriptor(globalThis, "location");
  const url = new URL(href);
  Object.defineProperty(globalThis, "location", {
    configurable: true,
    get: () => ({ href: url.href, origin: url.origin }),
  });
  try {
    await run();
  } finally {
    if (before === undefined) {
      delete (globalThis as { location?: unknown }).location;
    } else Object.defineProperty(globalThis, "location", before);
  }
}

Deno.test("a base address that is a path is resolved against the page's location", async () => {
  await using server = startServer(() => json({ ok: true }));
  await onPage(`${server.url}/app/settings?tab=1#top`, async () => {
    const grab = createGrab("/api/v1/", {
      headers: { "x-token": "t" },
      retry: 0,
    });
    assertOk(await settles(grab("GET /users/:id", { params: { id: 7 } })));
    const seen = server.requests.at(-1)!;
    assertEquals(seen.url.pathname, "/api/v1/users/7");
    assertEquals(seen.url.search, "");
    // The page's origin is the factory's: its headers go there.
    assertEquals(seen.headers.get("x-token"), "t");

    const call = new Call("POST /notes", "/api");
    assertEquals(call.url.href, `${server.url}/api/notes`);
    const outcome = await settles(call.send({ body: { a: 1 }, retry: 0 }));
    assertEquals(outcome.ok, true);
    assertEquals(server.requests.at(-1)!.url.pathname, "/api/notes");
  });
  assertEquals(server.requests.length, 2);
});

Deno.test("a base address that is a path, with no page, or another kind of relative one, is still refused", async () => {
  await using server = startServer(() => json({ ok: true }));
  const told = (base: string) =>
    assertThrows(() => createGrab(base), GrabValidationError).message;
  assertEquals(told("/api").includes("it is a path"), true);
  await onPage(`${server.url}/app/`, () => {
    // Relative to the page's path, which changes as the page does.
    assertEquals(told("api").includes("not a valid URL"), true);
    return Promise.resolve();
  });
  await onPage("file:///home/app/index.html", () => {
    assertEquals(told("/api").includes("only http and https"), true);
    return Promise.resolve();
  });
  assertEquals(server.requests.length, 0);
});
