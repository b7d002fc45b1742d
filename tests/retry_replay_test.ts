/**
 * What each retry sends: the request of the first attempt, byte for byte,
 * whatever the caller does with its body once the grab has begun.
 *
 * @module
 */

import { assertEquals } from "@std/assert";
import createGrab, { type Hooks } from "../mod.ts";
import { CHANGED_BODIES } from "./_changes.ts";
import { startFaultServer } from "./_faults.ts";
import { json, startServer } from "./_server.ts";

/** Answers 503 twice per path, then 200; each request's body is kept. */
function flakyServer() {
  const hits = new Map<string, number>();
  return startServer((_request, seen) => {
    const n = (hits.get(seen.url.pathname) ?? 0) + 1;
    hits.set(seen.url.pathname, n);
    return n < 3 ? new Response("busy", { status: 503 }) : json({ n });
  });
}

Deno.test("each retry sends the body the first attempt sent, though the caller changes it meanwhile", async (t) => {
  await using server = flakyServer();
  const grab = createGrab(server.url, { retry: { backoff: () => 0 } });
  const bodiesOf = (path: string) =>
    server.requests.filter((r) => r.url.pathname === path).map((r) => r.body);
  const cases: [string, () => [BodyInit, () => void]][] = [
    ["bytes filled again", () => {
      const bytes = new TextEncoder().encode("AAAA");
      return [bytes, () => bytes.fill(66)];
    }],
    ["a view of part of a buffer", () => {
      const buffer = new TextEncoder().encode("xxAAAAxx");
      const view = new DataView(buffer.buffer, 2, 4);
      return [view, () => buffer.fill(66)];
    }],
    ["an ArrayBuffer transferred away", () => {
      const buffer = new TextEncoder().encode("AAAA").buffer;
      return [buffer, () => void (buffer.detached || buffer.transfer())];
    }],
    ["search parameters set again", () => {
      const params = new URLSearchParams({ a: "AAAA" });
      return [params, () => params.set("a", "BBBB")];
    }],
  ];
  for (const [name, make] of cases) {
    await t.step(name, async () => {
      const [body, change] = make();
      const path = `/${encodeURIComponent(name)}`;
      const [data] = await grab(`PUT ${path}` as "PUT /", {
        body,
        hooks: { beforeRetry: change },
      });
      assertEquals(data, { n: 3 });
      const sent = bodiesOf(path);
      assertEquals(sent.length, 3);
      assertEquals(new Set(sent).size, 1, sent.join(" | "));
    });
  }
  await t.step(
    "a form with an entry added: the same entries, files intact",
    async () => {
      const form = new FormData();
      const bytes = new Uint8Array(300).map((_, i) => i % 128);
      form.append("a", "1");
      form.append("file", new File([bytes], "f.bin"));
      await grab("PUT /form", {
        body: form,
        hooks: { beforeRetry: () => form.append("b", "2") },
      });
      const forms = server.requests.filter((r) => r.url.pathname === "/form");
      assertEquals(forms.length, 3);
      for (const seen of forms) {
        const parsed = await new Response(seen.body, {
          headers: { "content-type": seen.headers.get("content-type")! },
        }).formData();
        assertEquals([...parsed.keys()], ["a", "file"]);
        const file = parsed.get("file") as File;
        assertEquals(file.name, "f.bin");
        assertEquals(new Uint8Array(await file.arrayBuffer()), bytes);
      }
    },
  );
});

Deno.test("a body sent after a header function is the body the grab was given", async (t) => {
  await using server = startServer((_request, seen) =>
    json({ got: seen.body })
  );
  // The header function is waited for before the first attempt: the body
  // the caller changes meanwhile must not be what goes out, retried or not.
  const grab = createGrab(server.url, {
    headers: async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { authorization: "Bearer t" };
    },
  });
  for (const [name, make] of CHANGED_BODIES) {
    for (const method of ["POST", "PUT"] as const) {
      await t.step(`${method}: ${name}`, async () => {
        const [body, change] = make();
        const grabbing = grab(`${method} /echo`, { body });
        change();
        const [data, error] = await grabbing;
        assertEquals(error, null);
        const sent = body instanceof URLSearchParams ? "a=AAAA" : "AAAA";
        assertEquals(data, { got: sent });
      });
    }
  }
});

Deno.test("a factory header function is called once per grab: every retry carries its headers", async () => {
  // An idempotency key must stay the key of the one request it names.
  await using server = flakyServer();
  let calls = 0;
  const grab = createGrab(server.url, {
    headers: () => ({ "idempotency-key": `key-${++calls}` }),
    retry: { backoff: () => 0, methods: ["POST"] },
  });
  const [data, error] = await grab("POST /pay", { body: { cents: 100 } });
  assertEquals(error, null);
  assertEquals(data, { n: 3 });
  assertEquals(calls, 1);
  assertEquals(
    server.requests.map((r) => r.headers.get("idempotency-key")),
    ["key-1", "key-1", "key-1"],
  );
});

Deno.test("beforeRetry is given the failed attempt's request with its body unread", async (t) => {
  const cases: [string, Hooks][] = [
    ["beforeRetry alone", {}],
    ["with a beforeRequest hook", { beforeRequest: () => {} }],
    ["with an afterResponse hook", { afterResponse: () => {} }],
  ];
  for (const [name, hooks] of cases) {
    await t.step(`after a 503, ${name}`, async () => {
      await using server = flakyServer();
      const bodies: unknown[] = [];
      const grab = createGrab(server.url, { retry: { backoff: () => 0 } });
      const [data] = await grab("PUT /items/1", {
        body: { name: "AAAA" },
        hooks: {
          ...hooks,
          beforeRetry: async ({ request }) => {
            bodies.push(await request.json());
          },
        },
      });
      assertEquals(data, { n: 3 });
      assertEquals(bodies, [{ name: "AAAA" }, { name: "AAAA" }]);
    });
  }
  await t.step("after a network failure", async () => {
    await using server = startFaultServer(async () => {});
    const bodies: string[] = [];
    const grab = createGrab(server.url, { retry: { backoff: () => 0 } });
    const [, error] = await grab("PUT /items/1", {
      body: "AAAA",
      hooks: {
        beforeRetry: async ({ request }) => {
          bodies.push(await request.text());
        },
      },
    });
    assertEquals(error?.name, "GrabTransportError");
    assertEquals(server.requests.length, 3);
    assertEquals(bodies, ["AAAA", "AAAA"]);
  });
});
