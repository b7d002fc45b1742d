/**
 * A JSON body JSON would write changed is refused where it is, in every
 * format: what a `toJSON` returns is written by its own keys (a `Date` or a
 * `URL` as `{}`), a `Number` object as its value (`NaN` as `null`), an
 * `Error` with keys added to it without its message; an object that cannot
 * be read is named where it is.
 *
 * @module
 */

import { assertEquals, assertStringIncludes } from "@std/assert";
import createGrab, { type GrabOptions } from "../mod.ts";
import { json, startServer } from "./_server.ts";
import { assertOk, assertValidation, settles } from "./_bounds.ts";

const MODES: [string, GrabOptions][] = [
  ["json", {}],
  ["json, snake_case on the wire", {
    casing: "camelCase",
    wireCasing: "snake_case",
  }],
  ["json-api", { format: "json-api" }],
];

class Stamped {
  constructor(readonly at: Date | URL) {}
  // Returns an object whose own toJSON JSON never calls.
  toJSON(): Date | URL {
    return this.at;
  }
}

function countingNumber(value: number, reads: { count: number }): object {
  const boxed = new Number(1);
  boxed.valueOf = () => {
    reads.count++;
    return value;
  };
  return boxed;
}

function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

/** [label, body, path, what the message says]. */
function changedBodies(): [string, Record<string, unknown>, string, string][] {
  return [
    [
      "a toJSON that returns a Date",
      {
        type: "notes",
        at: new Stamped(new Date(0)),
      },
      "/at",
      "a Date, which JSON writes as {}",
    ],
    [
      "a toJSON that returns an invalid Date",
      {
        type: "notes",
        at: new Stamped(new Date(NaN)),
      },
      "/at",
      "Date",
    ],
    [
      "a toJSON that returns a URL",
      {
        type: "notes",
        link: new Stamped(new URL("https://api.test/x")),
      },
      "/link",
      "a URL, which JSON writes as {}",
    ],
    [
      "a Number object holding NaN",
      {
        type: "notes",
        score: new Number(NaN),
      },
      "/score",
      "value is NaN",
    ],
    [
      "a Number object holding Infinity, in an array",
      {
        type: "notes",
        scores: [1, new Number(Infinity)],
      },
      "/scores/1",
      "value is Infinity",
    ],
    [
      "a Number object whose valueOf gives NaN",
      {
        type: "notes",
        score: countingNumber(NaN, { count: 0 }),
      },
      "/score",
      "value is NaN",
    ],
    [
      "an Error with a key added to it",
      {
        type: "notes",
        error: Object.assign(new Error("disk full"), { code: "ENOSPC" }),
      },
      "/error",
      "an Error, which JSON writes without its message",
    ],
    [
      "a revoked Proxy",
      {
        type: "notes",
        meta: revoked(),
      },
      "/meta",
      "an object that cannot be read",
    ],
    [
      "a Proxy whose keys cannot be listed",
      {
        type: "notes",
        meta: new Proxy({}, {
          ownKeys() {
            throw new Error("no keys");
          },
        }),
      },
      "/meta",
      "an object whose keys cannot be listed (no keys)",
    ],
  ];
}

Deno.test("a body JSON would write changed is refused where it is", async (t) => {
  await using server = startServer(() => json({ ok: true }));
  for (const [label, body, path, what] of changedBodies()) {
    for (const [mode, factory] of MODES) {
      await t.step(`${label} (${mode})`, async () => {
        const grab = createGrab(server.url, { ...factory, retry: 0 });
        const error = await assertValidation(() =>
          grab("POST /notes", { body })
        );
        assertEquals(error.issues.map((issue) => issue.path), [path]);
        assertStringIncludes(error.issues[0]!.message, what);
      });
    }
  }
  await t.step("nothing reached the server", () => {
    assertEquals(server.requests.length, 0);
  });
});

Deno.test("a body JSON writes in full is sent as JSON writes it (control)", async (t) => {
  await using server = startServer(() => json({ ok: true }));
  const grab = createGrab(server.url, { retry: 0 });
  const sent = async (body: unknown): Promise<unknown> => {
    assertOk(await settles(grab("POST /notes", { body })));
    return JSON.parse(server.requests.at(-1)!.body);
  };

  await t.step("a toJSON that returns a Date's JSON form", async () => {
    const at = new Date(0);
    assertEquals(await sent({ at: { toJSON: () => at.toJSON() } }), {
      at: "1970-01-01T00:00:00.000Z",
    });
  });
  await t.step("a toJSON that returns its own object with fields", async () => {
    class Self {
      id = 7;
      toJSON(): this {
        return this;
      }
    }
    assertEquals(await sent({ item: new Self() }), { item: { id: 7 } });
  });
  await t.step(
    "a Number object: its value, its valueOf read once",
    async () => {
      const reads = { count: 0 };
      assertEquals(
        await sent({ a: new Number(5), b: countingNumber(2, reads) }),
        { a: 5, b: 2 },
      );
      assertEquals(reads.count, 1);
    },
  );
  await t.step("an Error with a toJSON says what it is", async () => {
    const error = Object.assign(new Error("disk full"), {
      code: "ENOSPC",
      toJSON(this: Error & { code: string }) {
        return { message: this.message, code: this.code };
      },
    });
    assertEquals(await sent({ error }), {
      error: { message: "disk full", code: "ENOSPC" },
    });
  });
});
