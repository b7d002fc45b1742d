/**
 * Grab's errors in the forms programs put them in after the grab: a log
 * line (`JSON.stringify`, `Deno.inspect`), a stack, a structured clone.
 * Each form is bounded in size whatever the server sent, and shows the
 * caller's own line.
 *
 * @module
 */

import { assert, assertEquals, assertStringIncludes } from "@std/assert";
import createGrab, { isGrabHttpError, orThrow } from "../mod.ts";
import { startServer } from "./_server.ts";
import { assertHttp, assertTransport, settles } from "./_bounds.ts";

/** Far more than any log line should hold, far less than the body. */
const LOG_LINE_LIMIT = 1_000_000;

/** Ten million characters: under the default `maxBodyBytes` (64 MiB). */
const BIG = "x".repeat(10_000_000);

/** A JSON object of 300,000 members, about 4 MB: one object, many keys. */
function wideBody(): string {
  const members: string[] = [];
  for (let at = 0; at < 300_000; at++) members.push(`"k${at}":1`);
  return `{${members.join(",")}}`;
}

/** Every form a log takes of an error, and each one's length. */
function logForms(error: Error): Record<string, number> {
  return {
    json: JSON.stringify(error).length,
    inspect: Deno.inspect(error).length,
    inspectDeep: Deno.inspect(error, { depth: 10 }).length,
    string: String(error).length,
  };
}

function assertBounded(error: Error): void {
  for (const [form, length] of Object.entries(logForms(error))) {
    assert(length < LOG_LINE_LIMIT, `${form} is ${length} characters long`);
  }
}

Deno.test("a logged GrabError is bounded in size whatever its body", async (t) => {
  const wide = wideBody();
  await using server = startServer({
    "/text": () => new Response(BIG, { status: 502 }),
    "/json": () => Response.json({ detail: BIG }, { status: 400 }),
    "/wide": () =>
      new Response(wide, {
        status: 400,
        headers: { "content-type": "application/json" },
      }),
    "/items": () =>
      new Response(`[${"1,".repeat(1_000_000)}1]`, {
        status: 400,
        headers: { "content-type": "application/json" },
      }),
  });
  const grab = createGrab(server.url, { retry: 0, timeout: 20_000 });

  await t.step("a 10 MB text body (a proxy's error page)", async () => {
    const error = assertHttp(await settles(grab("GET /text")), 502);
    assertEquals((error.body as string).length, BIG.length);
    assertBounded(error);
    assertStringIncludes(JSON.stringify(error), "cut at");
  });

  await t.step("a 10 MB string inside a JSON body", async () => {
    const error = assertHttp(await settles(grab("GET /json")), 400);
    assertEquals((error.body as { detail: string }).detail.length, BIG.length);
    assertBounded(error);
  });

  await t.step("a JSON object of 300,000 members", async () => {
    const error = assertHttp(await settles(grab("GET /wide")), 400);
    assertEquals(Object.keys(error.body as object).length, 300_000);
    assertBounded(error);
  });

  await t.step("a JSON array of a million items", async () => {
    const error = assertHttp(await settles(grab("GET /items")), 400);
    assertEquals((error.body as unknown[]).length, 1_000_001);
    assertBounded(error);
  });

  await t.step("the same, thrown by orThrow", async () => {
    const error = await orThrow(grab("GET /wide")).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    assert(isGrabHttpError(error));
    assertBounded(error);
  });
});

Deno.test("a logged schema error is bounded in size whatever the issues quote", async () => {
  await using server = startServer(() =>
    Response.json({ name: BIG, n: "not a number" })
  );
  // As valibot writes an issue: the whole failed value as its `input`.
  const schema = {
    "~standard": {
      version: 1 as const,
      vendor: "quoting",
      validate(value: unknown) {
        return {
          issues: [{ message: "Expected a number", input: value, path: ["n"] }],
        };
      },
    },
  };
  const grab = createGrab(server.url, { retry: 0, timeout: 20_000 });
  const error = assertTransport(
    await settles(grab("GET /x", { schema })),
    "schema",
  );
  assertEquals(
    (error.issues![0] as { input: { name: string } }).input.name.length,
    BIG.length,
  );
  assertBounded(error);
});

Deno.test("a grab's error shows the caller's line, and survives structured cloning", async (t) => {
  await using server = startServer({
    "/http": () => Response.json({ detail: "no" }, { status: 500 }),
    "/parse": () => new Response("not json"),
  });
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  // Named, so that the stack can be searched for it.
  async function callerOfGrab(target: "GET /http" | "GET /parse") {
    const [, error] = await grab(target);
    return error!;
  }
  async function callerOfOrThrow(): Promise<Error> {
    try {
      await orThrow(grab("GET /http"));
    } catch (error) {
      return error as Error;
    }
    throw new Error("orThrow resolved on a 500");
  }

  await t.step(
    "the stack names the function that awaited the grab",
    async () => {
      for (
        const error of [
          await callerOfGrab("GET /http"),
          await callerOfGrab("GET /parse"),
        ]
      ) {
        assertStringIncludes(error.stack!, "callerOfGrab");
        assertStringIncludes(error.stack!, "error_forms_test.ts");
      }
      assertStringIncludes((await callerOfOrThrow()).stack!, "callerOfOrThrow");
    },
  );

  await t.step(
    "structuredClone and Error.isError take both kinds",
    async () => {
      for (
        const error of [
          await callerOfGrab("GET /http"),
          await callerOfGrab("GET /parse"),
        ]
      ) {
        const clone = structuredClone(error);
        assertEquals(clone.message, error.message);
        assertEquals(structuredClone(error.toJSON()), error.toJSON());
        assert(Error.isError(error));
      }
    },
  );
});

Deno.test("an abort error whose reason cloning refuses posts as its toJSON()", async () => {
  await using server = startServer(() => Response.json({}));
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  const reasons = [Symbol("left"), { why: "left", undo: () => {} }];
  for (const reason of reasons) {
    const controller = new AbortController();
    controller.abort(reason);
    const error = assertTransport(
      await settles(grab("GET /x", { signal: controller.signal })),
      "abort",
    );
    const posted = structuredClone(error.toJSON());
    assertEquals(posted.kind, "abort");
    assertEquals(posted.name, "GrabTransportError");
  }
});
