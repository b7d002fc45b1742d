/**
 * The options object itself, whatever its shape: options it inherits are
 * read as its own ones, and options that are no object of options are
 * refused.
 *
 * @module
 */

import { assertEquals } from "@std/assert";
import createGrab, { Call, paginate } from "../mod.ts";
import { json, startServer } from "./_server.ts";
import { assertOk, assertValidation, runChild, settles } from "./_bounds.ts";

Deno.test("options a caller's object inherits are read as its own, in createGrab, a grab, Call.send and paginate", async (t) => {
  await using server = startServer(() => json({ ok: true }));
  const sent = () => server.requests.at(-1)!.headers.get("x-given");
  const defaults = { headers: { "x-given": "inherited" }, retry: 0 };
  class Options {
    get headers() {
      return { "x-given": "getter" };
    }
  }

  await t.step("Object.create(defaults) in a grab", async () => {
    const grab = createGrab(server.url);
    assertOk(await settles(grab("GET /x", Object.create(defaults))));
    assertEquals(sent(), "inherited");
  });

  await t.step("a class whose getter gives an option", async () => {
    const grab = createGrab(server.url);
    assertOk(await settles(grab("GET /x", new Options())));
    assertEquals(sent(), "getter");
  });

  await t.step("Object.create(defaults) in createGrab", async () => {
    const grab = createGrab(server.url, Object.create(defaults));
    assertOk(await settles(grab("GET /x")));
    assertEquals(sent(), "inherited");
  });

  await t.step("Object.create(defaults) in Call.send", async () => {
    const outcome = await settles(
      new Call("GET /x", server.url).send(Object.create(defaults)),
    );
    assertEquals(outcome.ok, true);
    assertEquals(sent(), "inherited");
  });

  await t.step("paginate's limit and options, inherited", async () => {
    const grab = createGrab(server.url);
    const options = Object.create({ ...defaults, limit: 1 });
    const pages = [];
    for await (const page of paginate(grab, "GET /x", options)) {
      pages.push(page);
    }
    assertEquals(pages.length, 1);
    assertEquals(sent(), "inherited");
  });

  await t.step(
    "an inherited value is checked, a misspelt name refused",
    async () => {
      const before = server.requests.length;
      const grab = createGrab(server.url);
      await assertValidation(
        () => grab("GET /x", Object.create({ timeout: -1 })),
        "timeout",
      );
      await assertValidation(
        () => grab("GET /x", Object.create({ timout: 500 })),
        "timout",
      );
      await assertValidation(
        () => createGrab(server.url, Object.create({ retry: -1 })),
        "retry",
      );
      assertEquals(server.requests.length, before);
    },
  );
});

Deno.test("options that are not an object of options are a validation error naming what they are, before any request", async () => {
  await using server = startServer(() => json({ ok: true }));
  const grab = createGrab(server.url);
  const call = new Call("GET /x", server.url);
  // A value each would have been read as no options, or a string as one
  // option per character.
  const wrong: [unknown, string][] = [
    [7, "a number"],
    [true, "a boolean"],
    ["token", "a string"],
    [() => ({ retry: 0 }), "a function"],
    [[], "an array"],
    [Promise.resolve({ retry: 0 }), "Promise"],
    [new Map([["timeout", 5]]), "Map"],
    [new Headers({ "x-given": "1" }), "Headers"],
  ];
  for (const [options, what] of wrong) {
    const sends: (() => unknown)[] = [
      () => grab("GET /x", options as never),
      () => call.send(options as never),
      () => createGrab(server.url, options as never),
      () => paginate(grab, "GET /x", options as never).next(),
    ];
    for (const send of sends) {
      const error = await assertValidation(send, what);
      assertEquals(error.issues.length, 1, error.message);
      if (typeof options === "string") {
        assertEquals(error.message.includes(options), false);
      }
    }
  }
  assertEquals(server.requests.length, 0);
});

Deno.test("the first JSON:API grabs, made while the codec loads, send the caller's values as they were at the call", async () => {
  const { seen, refused } = await runChild<
    { seen: string[]; refused: string[] }
  >(
    "./_codec_wait_child.ts",
    ["--allow-net=127.0.0.1", "--allow-read=."],
  );
  const note = (n: number) =>
    `POST /notes/${n}?page%5Bnumber%5D=${n} ` +
    `{"data":{"type":"notes","attributes":{"n":${n}}}}`;
  assertEquals(seen.sort(), [
    note(1),
    note(2),
    note(3),
    'POST /sent {"data":{"type":"notes","attributes":{"n":4}}}',
    "PUT /raw \u0001\u0002\u0003",
  ]);
  // Refused as without the wait: neither copied (and sent) nor thrown on.
  const problem = (why: string) =>
    `1 problem in the request (Cannot send the body: ${why})`;
  const told = refused.map((message) =>
    message.split(": ").slice(1).join(": ")
  );
  assertEquals(told.sort(), [
    problem("its ArrayBuffer was transferred away (detached)"),
    problem("its bytes are in a SharedArrayBuffer, which fetch does not send"),
  ]);
});
