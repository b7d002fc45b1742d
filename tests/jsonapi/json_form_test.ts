import {
  assert,
  assertEquals,
  assertRejects,
  assertStrictEquals,
} from "@std/assert";
import createGrab, { GrabValidationError } from "../../mod.ts";
import { jsonForm, TOO_LARGE, UNREADABLE } from "../../src/json_form.ts";
import { startServer } from "../_server.ts";

const JSON_API = { "content-type": "application/vnd.api+json" };

/** Money as its own API writes it: cents under a camelCase key. */
class Money {
  constructor(readonly cents: number) {}
  toJSON(): unknown {
    return { amountCents: this.cents, currencyCode: "EUR" };
  }
}

Deno.test("jsonForm() is the body as JSON writes it, read once", async (t) => {
  await t.step("toJSON results in place, called with their key", () => {
    const keys: string[] = [];
    const at = {
      toJSON(key: string) {
        keys.push(key);
        return "then";
      },
    };
    assertEquals(jsonForm({ a: at, list: [at] }), {
      a: "then",
      list: ["then"],
    });
    assertEquals(keys, ["a", "0"]);
  });

  await t.step("what the checks must name is kept as it is", () => {
    const invalid = new Date(NaN);
    const map = new Map([[1, 2]]);
    const form = jsonForm({ invalid, map, n: 1n }) as Record<string, unknown>;
    assertStrictEquals(form.invalid, invalid);
    assertStrictEquals(form.map, map);
    assertStrictEquals(form.n, 1n);
  });

  await t.step("shared objects stay shared, cycles stay cycles", () => {
    const shared = { x: 1 };
    const cyclic: Record<string, unknown> = { y: 2 };
    cyclic.self = cyclic;
    const form = jsonForm({ a: shared, b: shared, c: cyclic }) as Record<
      string,
      Record<string, unknown>
    >;
    assertStrictEquals(form.a, form.b);
    assertStrictEquals(form.c!.self, form.c);
  });

  await t.step(
    "what a toJSON returns is written by its own keys, its toJSON never called",
    () => {
      class K {
        v = 1;
        toJSON(): string {
          return "K";
        }
      }
      const body = { b: { toJSON: () => new K() } };
      const form = jsonForm(body);
      assertEquals(JSON.stringify(form), JSON.stringify(body));
      assertEquals(JSON.stringify(form), '{"b":{"v":1}}');
      // A Date so written is {}, its time lost: the caller's body is
      // checked as it is instead, which names it.
      assertStrictEquals(
        jsonForm({ a: { toJSON: () => new Date(0) } }),
        UNREADABLE,
      );
    },
  );

  await t.step("without end or too large: TOO_LARGE", () => {
    // Each toJSON makes a new object that leads back to a new one.
    class Node {
      toJSON(): unknown {
        return { next: new Node() };
      }
    }
    assertStrictEquals(jsonForm({ head: new Node() }), TOO_LARGE);
    const sparse: unknown[] = [];
    sparse.length = 20_000_000;
    assertStrictEquals(jsonForm({ sparse }), TOO_LARGE);
  });

  await t.step("a getter or toJSON that throws: unreadable", () => {
    const body = {
      get x(): number {
        throw new Error("no");
      },
    };
    assertStrictEquals(jsonForm(body), UNREADABLE);
  });
});

Deno.test("JSON:API writes are checked as they are sent", async (t) => {
  await using server = startServer(() =>
    new Response(JSON.stringify({ data: { type: "notes", id: "1" } }), {
      headers: JSON_API,
    })
  );
  const api = createGrab(server.url, {
    format: "json-api",
    casing: "camelCase",
    retry: 0,
  });
  const sent = () => JSON.parse(server.requests.at(-1)!.body).data;

  await t.step(
    "what a toJSON returns is renamed, as in JSON mode",
    async () => {
      await api("POST /notes", {
        body: { type: "notes", unitPrice: new Money(5) },
      });
      assertEquals(sent().attributes, {
        unit_price: { amount_cents: 5, currency_code: "EUR" },
      });
      await api("POST /notes", {
        body: { type: "notes", attributes: { unitPrice: new Money(7) } },
      });
      assertEquals(sent().attributes, {
        unit_price: { amount_cents: 7, currency_code: "EUR" },
      });
    },
  );

  await t.step("and checked: a reserved member inside is refused", async () => {
    const sneaky = { toJSON: () => ({ links: { self: "/x" } }) };
    const error = await assertRejects(
      () => api("POST /notes", { body: { type: "notes", extra: sneaky } }),
      GrabValidationError,
    );
    assertEquals(error.issues.map((issue) => issue.path), ["/extra/links"]);
  });

  await t.step(
    "a getter is read once: what passed is what is sent",
    async () => {
      let reads = 0;
      const body = {
        type: "notes",
        get title(): unknown {
          reads++;
          // A different answer on any later read.
          return reads === 1 ? "first" : 1n;
        },
      };
      const [, error] = await api("POST /notes", { body });
      assertStrictEquals(error, null);
      assertStrictEquals(reads, 1);
      assertEquals(sent().attributes, { title: "first" });
    },
  );

  await t.step("a toJSON that throws is named at its path", async () => {
    const before = server.requests.length;
    const error = await assertRejects(
      () =>
        api("POST /notes", {
          body: {
            type: "notes",
            when: {
              toJSON() {
                throw new Error("no date");
              },
            },
          },
        }),
      GrabValidationError,
    );
    assert(error.issues.some((issue) => issue.path === "/when"));
    assertStrictEquals(server.requests.length, before);
  });

  await t.step("a body nested without end is refused, not a hang", async () => {
    class Node {
      toJSON(): unknown {
        return { next: new Node() };
      }
    }
    const error = await assertRejects(
      () => api("POST /notes", { body: { type: "notes", head: new Node() } }),
      GrabValidationError,
    );
    assertEquals(error.issues.map((issue) => issue.path), [""]);
  });
});
