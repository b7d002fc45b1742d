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

import createGrab, { Call, orThrow, paginate } from "../mod.ts";
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
  broken: "network",
  failed: { error: new Error("polluted"), ok: false },
  passed: "timeout",
  issues: [{ message: "polluted" }],
  error: new Error("polluted"),
  value: "polluted",
  ok: true,
  data: { type: "people", id: "9" },
  links: { self: "/polluted" },
  meta: { polluted: true },
  action: "Polluted",
  cause: new Error("polluted"),
  included: [{ type: "people", id: "9", attributes: { name: "polluted" } }],
  relationships: { author: { data: { type: "people", id: "9" } } },
  attributes: { polluted: true },
  type: "polluted",
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

const api = createGrab(url, { format: "json-api" });
/** A Standard Schema that takes any value as it is. */
const anything = {
  "~standard": {
    version: 1 as const,
    vendor: "test",
    validate: (value: unknown) => ({ value }),
  },
};

/** What a stream served: its items, its last event id and its error. */
async function drained(stream: unknown): Promise<unknown> {
  const items: unknown[] = [];
  const live = stream as AsyncIterable<unknown> & {
    error: Error | null;
    lastEventId?: string;
  };
  for await (const item of live) items.push(item);
  return [items, live.lastEventId ?? "", live.error?.message ?? null];
}

/**
 * How one grab ended, in words the test compares: `"ok"` for a success
 * whose data (made into JSON by `shown`) is `expected`, or what differs.
 */
async function outcome(
  grabbing: () => Promise<unknown>,
  expected?: string,
  shown: (data: unknown) => unknown = (data) => data,
): Promise<string> {
  try {
    const result = await grabbing();
    if (Array.isArray(result)) {
      const error = result[1] as
        | { name: string; kind?: string; message: string; cause?: unknown }
        | null;
      if (error !== null) {
        return `${error.name} ${error.kind ?? ""} ${error.message}`;
      }
      if (expected === undefined) return "ok";
      const data = JSON.stringify(await shown(result[0]));
      return data === expected ? "ok" : `data ${data}`;
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
  sse: await outcome(
    () => grab("GET /sse", { responseType: "sse" }),
    '[[{"event":"message","data":"a","id":"1"},{"event":"message","data":"b","id":"2"}],"2",null]',
    drained,
  ),
  sseSchema: await outcome(
    () => grab("GET /sse-json", { responseType: "sse", schema: anything }),
    '[[{"event":"message","data":{"n":1},"id":""}],"",null]',
    drained,
  ),
  ndjson: await outcome(
    () => grab("GET /ndjson", { responseType: "ndjson", schema: anything }),
    '[[{"n":1},{"n":2}],"",null]',
    drained,
  ),
  schema: await outcome(
    () => grab("GET /schema", { schema: anything }),
    '{"ok":true}',
  ),
  read: await outcome(
    () => api("GET /articles/1"),
    '{"type":"articles","id":"1","title":"Hi"}',
  ),
  write: await outcome(() =>
    api("POST /articles", {
      body: { type: "articles", title: "Hi", tags: { name: "x" } },
    })
  ),
  orThrow: await outcome(async () => {
    const [data] = await orThrow(grab("GET /or-throw"));
    return [data, null];
  }, '{"ok":true}'),
  notResult: await outcome(async () => {
    try {
      await orThrow(Promise.resolve({}) as never);
    } catch (error) {
      const { message } = error as Error;
      return [null, message.includes("Call.send") ? new Error(message) : null];
    }
    return [null, new TypeError("orThrow took {}")];
  }),
  invalid: await outcome(async () => {
    const [, error] = await grab("GET /never", { nonsense: 1 } as never).then(
      (result) => result,
      (error: Error) => [null, error],
    );
    // Its message and cause are grab's: an error's cause is its own.
    const { message } = error as Error;
    return message.startsWith("Cannot send GET") &&
        !Object.hasOwn(error as Error, "cause") &&
        !JSON.stringify(error).includes('"cause"')
      ? [null, null]
      : [null, error];
  }),
  sendJsonApi: await outcome(() =>
    new Call("GET /articles/1", url).send({ format: "json-api" })
  ),
};
delete (Object.prototype as Record<string, unknown>)[key];
await report({ outcomes, ran });
