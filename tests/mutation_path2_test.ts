/**
 * Promises of how an answer becomes `[data, error, meta]` that no other test
 * held: each test here fails when one line of the code that keeps the
 * promise is changed (a comparison flipped, a `!` dropped, a line left out).
 *
 * @module
 */

import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import createGrab, { GrabError, GrabTransportError } from "../mod.ts";
import { startServer } from "./_server.ts";
import { settles } from "./_bounds.ts";
import { shortBody, startFaultServer } from "./_faults.ts";

Deno.test("a schema's message leaves out the credential a 2xx body echoed, when nothing but fetch ran", async () => {
  const token = "s3cr3t-token-0123456789";
  await using server = startServer((request) =>
    Response.json({ echoed: request.headers.get("authorization") })
  );
  const schema = {
    "~standard": {
      version: 1 as const,
      vendor: "test",
      // A validator that quotes the value it refused, as many do.
      validate: (value: unknown) => ({
        issues: [{ message: `refused ${JSON.stringify(value)}` }],
      }),
    },
  };
  // No hook, no attempt timeout: the first answer is read on its short path.
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  const [data, error] = await settles(grab("GET /me", {
    headers: { authorization: `Bearer ${token}` },
    schema,
  }));
  assertEquals(data, null);
  assert(error !== null);
  assert(error.message.includes("refused"), error.message);
  assert(!error.message.includes(token), error.message);
});

Deno.test("a 5xx body broken off names what broke it as the cause of the body's loss", async () => {
  // A raw server: a 500 that declares more bytes than it sends, then closes.
  await using server = startFaultServer(shortBody("500 Internal Server Error"));
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  const [data, error] = await settles(grab("GET /broken"));
  assertEquals(data, null);
  assertInstanceOf(error, GrabError);
  assertEquals(error.statusCode, 500);
  assertEquals(error.body, null);
  assertInstanceOf(error.cause, GrabTransportError);
  assertEquals(error.cause.kind, "network");
  // Not the deadline's reason, which has none: the read's own failure.
  assertInstanceOf(error.cause.cause, Error);
});

Deno.test("a logged error body shows a text that fills the character budget whole, and cuts one more", async (t) => {
  await using server = startServer((request) => {
    const length = Number(new URL(request.url).searchParams.get("length"));
    return new Response("x".repeat(length), {
      status: 422,
      headers: { "content-type": "text/plain" },
    });
  });
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  const loggedBody = async (length: number) => {
    const [, error] = await settles(grab(`GET /text?length=${length}`));
    assertInstanceOf(error, GrabError);
    assertEquals(error.body, "x".repeat(length));
    return error.toJSON().body;
  };
  await t.step("100,000 characters: shown whole", async () => {
    assertEquals(await loggedBody(100_000), "x".repeat(100_000));
  });
  await t.step("100,001 characters: cut at 100,000", async () => {
    assertEquals(
      await loggedBody(100_001),
      `${"x".repeat(100_000)}… (cut at 100000 characters)`,
    );
  });
});

Deno.test("a logged error body shows none of a value met once its characters ran out", async () => {
  // The key alone outruns the budget: the value after it shows nothing.
  const key = "k".repeat(100_000);
  await using server = startServer(() =>
    Response.json({ [key]: "value" }, { status: 422 })
  );
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  const [, error] = await settles(grab("GET /wide"));
  assertInstanceOf(error, GrabError);
  const body = error.toJSON().body as Record<string, unknown>;
  assertEquals(Object.values(body), ["… (cut at 0 characters)"]);
});

/** What a logged `GrabError` shows of a 400 whose text body is `text`. */
async function loggedText(text: string): Promise<unknown> {
  await using server = startServer(() =>
    new Response(text, {
      status: 400,
      headers: { "content-type": "text/plain" },
    })
  );
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  const [, error] = await settles(grab("GET /logged"));
  assertInstanceOf(error, GrabError);
  return error.toJSON().body;
}

Deno.test("a logged error body keeps the text after a URL whose query is only a `?`", async () => {
  // The closing parenthesis and the punctuation belong to the text.
  assertEquals(
    await loggedText("moved (https://api.test/x?) and (https://api.test/y?.,)"),
    "moved (https://api.test/x?…) and (https://api.test/y?….,)",
  );
});

Deno.test("a logged error body keeps a parenthesis its URL's query did not open, and only that", async () => {
  assertEquals(
    await loggedText("(see https://api.test/x?p=(1))"),
    "(see https://api.test/x?…)",
  );
});

Deno.test("a 2xx body refused as no event stream is let go of, though it never ends", async () => {
  let cancelled!: () => void;
  const letGo = new Promise<void>((resolve) => cancelled = resolve);
  let body: ReadableStreamDefaultController<Uint8Array> | undefined;
  await using server = startServer(() =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          body = controller;
          controller.enqueue(new TextEncoder().encode('{"a":'));
        },
        cancel() {
          cancelled();
        },
      }),
      { headers: { "content-type": "application/json" } },
    )
  );
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  const [stream, error] = await settles(
    grab("GET /events", { responseType: "sse" }),
  );
  assertEquals(stream, null);
  assertInstanceOf(error, GrabTransportError);
  assertEquals(error.kind, "parse");
  try {
    // The server's body is cancelled: the grab holds nothing of it.
    await settles(letGo, "the server body's cancel");
  } finally {
    // Else the server's shutdown would wait for the body's end.
    try {
      body?.close();
    } catch {
      // Cancelled already.
    }
  }
});

Deno.test("a logged error body shows as many items as its characters allow, one each", async (t) => {
  await using server = startServer((request) => {
    const length = Number(new URL(request.url).searchParams.get("length"));
    return Response.json(Array(length).fill(""), { status: 422 });
  });
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  const loggedBody = async (length: number) => {
    const [, error] = await settles(grab(`GET /items?length=${length}`));
    assertInstanceOf(error, GrabError);
    return error.toJSON().body as unknown[];
  };
  await t.step("100,000 empty strings: each shown", async () => {
    const shown = await loggedBody(100_000);
    assertEquals(shown.length, 100_000);
    assertEquals(shown.at(-1), "");
  });
  await t.step("100,001 empty strings: the last left out", async () => {
    const shown = await loggedBody(100_001);
    assertEquals(shown.length, 100_001);
    assertEquals(shown.at(-2), "");
    assertEquals(shown.at(-1), "… (1 more items left out)");
  });
});

Deno.test("a logged error body says which members it left out, though it showed the others whole", async () => {
  // "a" and its value use every character: "b" is left out.
  const body = { a: "x".repeat(99_998), b: 1 };
  await using server = startServer(() => Response.json(body, { status: 422 }));
  const grab = createGrab(server.url, { retry: 0, timeout: 10_000 });
  const [, error] = await settles(grab("GET /members"));
  assertInstanceOf(error, GrabError);
  assertEquals(error.body, body);
  assertEquals(error.toJSON().body, {
    a: body.a,
    "…": "(1 more members left out)",
  });
});
