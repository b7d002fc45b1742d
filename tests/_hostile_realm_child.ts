/**
 * Child process of hostile_realm_test.ts: loads grab, then puts one key on
 * `Object.prototype`, as a dependency with a prototype-pollution bug would,
 * and runs grabs of every kind against the test's servers. It runs in its
 * own process so that the pollution never reaches the test runner.
 *
 * Arguments: the server URL, another origin's URL, the key, and
 * `enumerable` or `hidden` (how the key is defined).
 *
 * Writes one JSON line: each grab's outcome (`"ok"`, an error's name and
 * kind, or what it threw), and whether a polluted hook or `fetch` ran.
 *
 * @module
 */

import createGrab, { Call, paginate } from "../mod.ts";
import { report } from "./_memory.ts";

const [url = "", other = "", key = "", how = "hidden"] = Deno.args;

const ran: string[] = [];
const POLLUTION: Record<string, unknown> = {
  headers: { "x-polluted": "1" },
  query: { polluted: "1" },
  params: { id: "9" },
  hooks: { beforeRequest: () => void ran.push("hook") },
  beforeRequest: () => void ran.push("beforeRequest"),
  afterResponse: () => void ran.push("afterResponse"),
  trustedOrigins: [other],
  retry: true,
  method: "DELETE",
  body: "polluted",
  fetch: () => {
    ran.push("fetch");
    return Promise.resolve(Response.json({ polluted: true }));
  },
  id: "9",
};

const grab = createGrab(url, {
  headers: { authorization: "Bearer t" },
  retry: { limit: 0 },
});
const hooked = createGrab(url, {
  headers: { authorization: "Bearer t" },
  hooks: { afterResponse: (_request, response) => response },
});

Object.defineProperty(Object.prototype, key, {
  value: POLLUTION[key],
  enumerable: how === "enumerable",
  writable: true,
  configurable: true,
});

/** How one grab ended, in words the test compares. */
async function outcome(grabbing: () => Promise<unknown>): Promise<string> {
  try {
    const result = await grabbing();
    if (Array.isArray(result)) {
      const error = result[1] as { name: string; kind?: string } | null;
      return error === null ? "ok" : `${error.name} ${error.kind ?? ""}`;
    }
    return (result as { ok: boolean }).ok ? "ok" : "failed";
  } catch (error) {
    return `threw ${String(error).slice(0, 160)}`;
  }
}

const outcomes = {
  plain: await outcome(() => grab("GET /plain")),
  param: await outcome(() => grab("GET /items/:n", { params: { n: 1 } })),
  call: await outcome(() => grab("GET /call", { query: { q: "1" } })),
  hooked: await outcome(() => hooked("GET /hooked")),
  foreign: await outcome(() => grab(`GET ${other}/foreign` as "GET /x")),
  send: await outcome(() => new Call("GET /send", url).send({})),
  pages: await outcome(async () => {
    for await (const _page of paginate(grab, "GET /pages", { limit: 1 })) {
      // One page is enough.
    }
    return [null, null];
  }),
};
delete (Object.prototype as Record<string, unknown>)[key];
await report({ outcomes, ran });
