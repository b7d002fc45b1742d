/**
 * Every text grab writes into a validation error stays bounded, whatever
 * the size of the caller's input it quotes: a key, an option name or a
 * thrown message of a megabyte, or ten thousand problems. `issues` keeps
 * every problem, and each `path` keeps the key whole.
 *
 * @module
 */

import { assert, assertEquals, assertRejects } from "@std/assert";
import createGrab, { GrabValidationError } from "../mod.ts";
import { startServer } from "./_server.ts";

const MEGABYTE = 1_000_000;
/** Far above the 2,000 characters a message quotes, far below the input. */
const BOUND = 10_000;
const big = "k".repeat(MEGABYTE);

/** A server that answers every request with 200 `{}`; none should reach it. */
function okServer() {
  return startServer(() => Response.json({}));
}

/** Asserts that every text of `error` is bounded, `String(error)` too. */
function assertBounded(error: GrabValidationError, issues: number): void {
  assertEquals(error.issues.length, issues);
  assert(error.message.length < BOUND, `message: ${error.message.length}`);
  assert(String(error).length < BOUND, `String: ${String(error).length}`);
  for (const issue of error.issues) {
    assert(issue.message.length < BOUND, `issue: ${issue.message.length}`);
  }
}

Deno.test("a body of 10,000 values JSON cannot carry: a bounded message, every issue kept", async () => {
  await using server = okServer();
  const grab = createGrab(server.url);
  const body = Array.from({ length: 10_000 }, () => NaN);
  const error = await assertRejects(
    () => grab("POST /things", { body }),
    GrabValidationError,
  );
  assertBounded(error, 10_000);
  assert(error.message.includes("10000 problems"), error.message);
  assertEquals(error.issues[9_999]!.path, "/9999");
  assertEquals(server.requests.length, 0);
});

Deno.test("a body key of a megabyte: the issue's message is cut, its path kept whole", async () => {
  await using server = okServer();
  const grab = createGrab(server.url);
  const error = await assertRejects(
    () => grab("POST /things", { body: { [big]: NaN } }),
    GrabValidationError,
  );
  assertBounded(error, 1);
  assertEquals(error.issues[0]!.path, `/${big}`);
  assert(error.issues[0]!.message.includes("(cut at 2000"));
  assertEquals(server.requests.length, 0);
});

Deno.test("a misspelt option of a megabyte: a bounded message, per call and per factory", async () => {
  await using server = okServer();
  const grab = createGrab(server.url);
  const options = { [big]: 1 } as Record<string, unknown>;
  const error = await assertRejects(
    () => grab("GET /things", options),
    GrabValidationError,
  );
  assertBounded(error, 1);
  const member = await assertRejects(
    () => grab("GET /things", { retry: { [big]: 1 } as { limit: number } }),
    GrabValidationError,
  );
  assertBounded(member, 1);
  try {
    createGrab(server.url, options);
    assert(false, "createGrab took an unknown option");
  } catch (thrown) {
    assert(thrown instanceof GrabValidationError);
    assertBounded(thrown, 1);
  }
  assertEquals(server.requests.length, 0);
});

Deno.test("a trusted origin of a megabyte: a bounded message", async () => {
  await using server = okServer();
  try {
    createGrab(server.url, { trustedOrigins: [`h${big}`] });
    assert(false, "createGrab took a bad trusted origin");
  } catch (thrown) {
    assert(thrown instanceof GrabValidationError);
    assertBounded(thrown, 1);
  }
});

Deno.test("10,000 header pairs the platform refuses: a bounded message", async () => {
  await using server = okServer();
  const grab = createGrab(server.url);
  const headers = Array.from(
    { length: 10_000 },
    (_, i): [string, string] => [`x-${i}`, "a\nb"],
  );
  const error = await assertRejects(
    () => grab("GET /things", { headers }),
    GrabValidationError,
  );
  assertBounded(error, 10_000);
  assertEquals(server.requests.length, 0);
});

Deno.test("a query getter, a param getter or a toJSON that throws a megabyte: a bounded message, the exception kept as cause", async () => {
  await using server = okServer();
  const grab = createGrab(server.url);
  const thrown = new Error(big);
  const query = {
    get page(): string {
      throw thrown;
    },
  };
  const params = {
    get id(): string {
      throw thrown;
    },
  };
  const body = {
    a: {
      toJSON() {
        throw thrown;
      },
    },
  };
  for (
    const send of [
      () => grab("GET /things", { query }),
      () => grab("GET /things/:id", { params }),
      () => grab("POST /things", { body }),
    ]
  ) {
    const error = await assertRejects(send, GrabValidationError);
    assertBounded(error, 1);
    assertEquals(error.cause, thrown);
  }
  assertEquals(server.requests.length, 0);
});

Deno.test("a cut never splits a surrogate pair, and a URL's query is taken out before the cut", async () => {
  await using server = okServer();
  const grab = createGrab(server.url);
  for (const pad of ["", "x"]) {
    const key = pad + "😀".repeat(MEGABYTE / 2);
    const secret = `https://h.test/?token=SECRET${"s".repeat(3_000)}`;
    const thrown = new Error(`${"x".repeat(1_900)} ${secret}`);
    const query = {
      get page(): string {
        throw thrown;
      },
    };
    const error = await assertRejects(
      () => grab("POST /things", { body: { [key]: NaN } }),
      GrabValidationError,
    );
    assertBounded(error, 1);
    for (const text of [error.message, error.issues[0]!.message]) {
      assert(text.isWellFormed(), "a lone surrogate");
    }
    const quoting = await assertRejects(
      () => grab("GET /things", { query }),
      GrabValidationError,
    );
    assert(!quoting.message.includes("SECRET"), quoting.message);
    assert(!quoting.message.includes("token="), quoting.message);
  }
});
