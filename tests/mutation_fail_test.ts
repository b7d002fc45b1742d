/**
 * Promises about telling failures apart and reading options that no other
 * test held: each test here fails when one line of the option reading,
 * option naming or network failure code is changed.
 *
 * @module
 */

import { assert, assertEquals, assertRejects } from "@std/assert";
import createGrab, {
  type GrabCallOptions,
  GrabValidationError,
  isGrabTransportError,
} from "../mod.ts";
import { runChild } from "./_bounds.ts";
import { startServer } from "./_server.ts";

/** Options the types refuse, as a caller without types (or a cast) gives them. */
const untyped = (options: unknown) => options as GrabCallOptions;

Deno.test("a misspelt option guesses only within two edits", async (t) => {
  await using server = startServer(() => Response.json({ ok: true }));
  const grab = createGrab(server.url);

  await t.step("two letters swapped count as one edit", async () => {
    // Five letters allow one edit: "qeury" is "query" with "e" and "u"
    // swapped, two edits without the swap.
    const error = await assertRejects(
      () => grab("GET /x", untyped({ qeury: { page: 2 } })),
      GrabValidationError,
    );
    assertEquals(error.issues.map((issue) => issue.message), [
      'Cannot use the option "qeury": there is no such option (did you mean "query"?)',
    ]);
  });

  await t.step(
    "a name three edits from the nearest gets no guess",
    async () => {
      // Ten letters, three more than "timeout": past the two edits allowed.
      const error = await assertRejects(
        () => grab("GET /x", untyped({ timeoutXYZ: 1 })),
        GrabValidationError,
      );
      assertEquals(error.issues.map((issue) => issue.message), [
        'Cannot use the option "timeoutXYZ": there is no such option',
      ]);
    },
  );
  assertEquals(server.requests.length, 0);
});

Deno.test("an array as a call's options says a body goes in { body }", async () => {
  await using server = startServer(() => Response.json({ ok: true }));
  const grab = createGrab(server.url);
  const error = await assertRejects(
    () => grab("POST /rows", untyped([{ id: 1 }])),
    GrabValidationError,
  );
  assertEquals(error.issues.map((issue) => issue.message), [
    "Cannot use the options: they must be an object such as { query: { page: 2 } }, not an array; a body goes in { body }",
  ]);
  assertEquals(server.requests.length, 0);
});

Deno.test("an unknown option's name of 100,000 characters is quoted short in its issue", async () => {
  await using server = startServer(() => Response.json({ ok: true }));
  const grab = createGrab(server.url);
  const name = "x".repeat(100_000);
  const error = await assertRejects(
    () => grab("GET /x", untyped({ [name]: 1 })),
    GrabValidationError,
  );
  // The issue is shown to users as the message is: neither quotes it whole.
  assertEquals(error.issues.length, 1);
  const [issue] = error.issues;
  assert(issue!.message.length < 10_000, `${issue!.message.length} characters`);
  assert(error.message.length < 10_000, `${error.message.length} characters`);
  assertEquals(server.requests.length, 0);
});

/**
 * A `fetch` that connects to `server` first, then fails with `cause`, as
 * a runtime's own fetch does (Deno says these words only of an HTTP/2
 * server that breaks the protocol, which `Deno.serve` never does).
 */
function failingAs(server: { url: string }, cause: Error) {
  return async () => {
    const response = await fetch(new URL("/", server.url));
    await response.body?.cancel();
    throw new TypeError("fetch failed", { cause });
  };
}

Deno.test("an HTTP/2 answer that breaks the protocol says to turn HTTP/2 off", async () => {
  await using server = startServer(() => new Response("ok"));
  const cause = new Error(
    "connection error detected: unspecific protocol error detected",
  );
  const grab = createGrab(server.url, {
    fetch: failingAs(server, cause),
    retry: 0,
  });
  const [, error] = await grab("GET /x");
  assert(isGrabTransportError(error), String(error));
  assert(
    error.message.includes("a custom fetch whose HttpClient has http2: false"),
    error.message,
  );
});

Deno.test("live bodies dropped unread take their waiting off a signal that lives on", async () => {
  // The signal has one listener for all that wait on it: a body collected
  // must take its waiting off, or that listener stays for good.
  const { opened, left, listeners } = await runChild<
    { opened: number; left: number; listeners: number }
  >(
    "./_signal_waiters_child.ts",
    ["--allow-net=127.0.0.1", "--v8-flags=--expose-gc"],
  );
  assertEquals(opened, 20);
  assert(left < opened, `${left} of ${opened} bodies left`);
  // A body still held may keep the listener; none held keeps none.
  assert(
    listeners <= Math.min(left, 1),
    `${listeners} abort listeners left for ${left} bodies`,
  );
});
