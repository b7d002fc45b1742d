/**
 * What a logged error shows stays within its budget however the values it
 * shows are made: one object quoted many times over (valibot puts the
 * failed object in every issue's path), a BigInt a schema made of the
 * server's digits, an error's name. And a hook's `Request` sent by a
 * custom `fetch` that is given one more signal besides the deadline's.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import createGrab from "../mod.ts";
import { startServer } from "./_server.ts";
import { assertTransport, settles } from "./_bounds.ts";

/** What `MAX_LOGGED` allows one value, with room for the marks of a cut. */
const VALUE_LIMIT = 110_000;

/** Every form a log takes of an error, and each one's length. */
function assertLogged(error: Error): void {
  const forms = {
    json: JSON.stringify(error).length,
    inspect: Deno.inspect(error, { depth: 10 }).length,
  };
  for (const [form, length] of Object.entries(forms)) {
    assert(length < 4 * VALUE_LIMIT, `${form} is ${length} characters long`);
  }
}

/** A schema that fails with `issues(value)`, as a library's would. */
function failing(issues: (value: unknown) => unknown[]) {
  return {
    "~standard": {
      version: 1 as const,
      vendor: "quoting",
      validate: (value: unknown) => ({ issues: issues(value) }),
    },
  };
}

Deno.test("a logged error counts an object each time it shows it", async () => {
  const members: Record<string, unknown> = { note: "x".repeat(90_000) };
  for (let at = 0; at < 500; at++) members[`k${at}`] = "not a number";
  await using server = startServer(() => Response.json(members));
  // As valibot writes each issue of an object: the object as the `input`
  // of the issue's path item.
  const schema = failing((value) =>
    Object.keys(value as object).slice(1).map((key) => ({
      message: "Expected a number",
      path: [{ type: "object", origin: "value", input: value, key }],
    }))
  );
  const grab = createGrab(server.url, { retry: 0, timeout: 20_000 });
  const error = assertTransport(
    await settles(grab("GET /x", { schema })),
    "schema",
  );
  assertEquals(error.issues!.length, 500);
  assertLogged(error);
});

Deno.test("a logged error cuts a BigInt's digits at its budget", async () => {
  await using server = startServer(() =>
    new Response(JSON.stringify({ amount: "9".repeat(300_000) }), {
      headers: { "content-type": "application/json" },
    })
  );
  // A transform to a BigInt, then a maximum: the issue quotes the BigInt.
  const schema = failing((value) => [{
    message: "Too large",
    input: BigInt((value as { amount: string }).amount),
    path: ["amount"],
  }]);
  const grab = createGrab(server.url, { retry: 0, timeout: 20_000 });
  const error = assertTransport(
    await settles(grab("GET /x", { schema })),
    "schema",
  );
  const issues = JSON.stringify(error.toJSON().issues);
  assert(issues.length < VALUE_LIMIT, `issues are ${issues.length} long`);
  assertStringIncludes(issues, "cut at");
  const shown = Deno.inspect(error, { depth: 10 }).length;
  assert(shown < 4 * VALUE_LIMIT, `inspected, ${shown} characters long`);
});

Deno.test("a logged error cuts the name of an error in its cause", async () => {
  await using server = startServer(() =>
    Response.json({ code: "E".repeat(300_000) }, { status: 503 })
  );
  // A wrapper that rejects with the server's error code for a name, as
  // some SDKs do.
  const wrapped = async (input: RequestInfo | URL, init?: RequestInit) => {
    const response = await fetch(input, init);
    if (response.ok) return response;
    const failure = new Error("upstream failed");
    failure.name = ((await response.json()) as { code: string }).code;
    throw failure;
  };
  const grab = createGrab(server.url, {
    retry: 0,
    timeout: 20_000,
    fetch: wrapped,
  });
  const error = assertTransport(await settles(grab("GET /x")), "network");
  assertEquals((error.cause as Error).name.length, 300_000);
  const cause = JSON.stringify(error.toJSON().cause);
  assert(cause.length < VALUE_LIMIT, `cause is ${cause.length} long`);
  assertLogged(error);
});

Deno.test("a hook's Request keeps its signal with a custom fetch and no timeout", async () => {
  const arrived = Promise.withResolvers<void>();
  const answer = Promise.withResolvers<void>();
  await using server = startServer(async () => {
    arrived.resolve();
    await answer.promise;
    return Response.json({ late: true });
  });
  const gaveUp = new AbortController();
  const grab = createGrab(server.url, {
    retry: 0,
    timeout: false,
    // A wrapper of the platform's, as a tracing library installs.
    fetch: (input: RequestInfo | URL, init?: RequestInit) => fetch(input, init),
    hooks: {
      beforeRequest: (request: Request) =>
        new Request(request, { signal: gaveUp.signal }),
    },
  });
  const pending = grab("GET /x");
  await arrived.promise;
  gaveUp.abort(new Error("the hook gave up"));
  // The server answers only once the hook's signal has aborted: a grab that
  // honoured it has ended by then, as it does with the platform's fetch.
  answer.resolve();
  const [data, error] = await pending;
  assertEquals(data, null);
  assert(error !== undefined, "the grab took the answer its hook gave up on");
});
