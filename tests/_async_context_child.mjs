/**
 * Run by `tests/async_context_test.ts` in Node, bundled with grab: grabs
 * started at once from contexts of their own (`AsyncLocalStorage`) against
 * the test's server (`GRAB_BASE`), whose hooks and custom `fetch` note
 * every context they see that is not their grab's. Writes one JSON line of
 * those, and of the grabs' outcomes.
 *
 * @module
 */

import { AsyncLocalStorage } from "node:async_hooks";
import { createGrab } from "../mod.ts";

const als = new AsyncLocalStorage();
const wrong = [];
const see = (where, id) => {
  const store = als.getStore();
  if (store !== id) wrong.push(`${where} in ${id} saw ${store}`);
};

const base = process.env.GRAB_BASE;
const retry = { limit: 1, backoff: () => 0 };
// A custom fetch that listens to the signal it is given, as one that
// ends a request of its own on abort does.
const fetch = (input, init) => {
  const id = als.getStore();
  init?.signal?.addEventListener(
    "abort",
    () => see("the fetch's abort listener", id),
  );
  return globalThis.fetch(input, init).then((response) => {
    see("the custom fetch", id);
    return response;
  });
};
const grab = createGrab(base, { fetch, retry });

async function one(id) {
  const hooks = {
    beforeRequest(request) {
      see("beforeRequest", id);
      request.signal.addEventListener(
        "abort",
        () => see("the hook's abort listener", id),
      );
    },
    afterResponse: () => see("afterResponse", id),
    beforeRetry: () => see("beforeRetry", id),
  };
  const outcomes = [];
  // Started together, so that their deadlines share a timeout signal.
  const [, error] = await grab("GET /never", { hooks, timeout: 300, retry: 0 });
  outcomes.push(error?.kind);
  see("after a timeout", id);
  const [busy] = await grab("GET /busy/:id", { params: { id }, hooks });
  outcomes.push(busy?.id === id ? "retried" : "not retried");
  see("after a Retry-After", id);
  return outcomes;
}

const outcomes = await Promise.all(
  Array.from(
    { length: 16 },
    (_, at) => als.run(`ctx${at}`, () => one(`ctx${at}`)),
  ),
);
// deno-lint-ignore no-console
console.log(JSON.stringify({ wrong, outcomes: [...new Set(outcomes.flat())] }));
