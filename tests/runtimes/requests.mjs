// deno-lint-ignore-file explicit-module-boundary-types -- plain JavaScript, shared with runtimes that run no TypeScript
/**
 * Cases only workerd runs: requests sent to a Worker at once, each served by
 * the one grab the Worker made (see `worker_driver.mjs`), as a Worker
 * program serves them. workerd ties what a request makes (a timer, an abort
 * signal, a promise) to that request: its `fetch` refuses a signal made
 * while handling another request, and a finished request's timers are
 * cancelled. So no grab may hand one request what another made.
 *
 * @module
 */

/**
 * A timeout so long that its deadlines share a window of about 16 minutes:
 * grabs of requests sent together would all meet in one.
 */
const LONG_TIMEOUT = 1_999_000_000;

/**
 * A compatibility date before 2022-03-21, when Workers had no `navigator`:
 * the cases run there too.
 */
export const OLD_COMPATIBILITY_DATE = "2021-11-03";

/** How many requests are sent at once. */
const REQUESTS = 4;

/** The most the requests of a case may take. */
const CASE_MS = 10_000;

/** A hook that does nothing: a hooked grab's signal is one of its own. */
const HOOKED = { hooks: { beforeRequest: () => {} } };

/**
 * A hook that returns a `Request` of its own, which a Worker of the old
 * date makes with no `Symbol.toStringTag`.
 */
const REPLACED = {
  hooks: {
    beforeRequest: (request) =>
      new Request(request, { headers: { "x-hooked": "1" } }),
  },
};

/** A signal one request made, kept for another, as a careless Worker does. */
let kept;

/**
 * What the Worker does for one request with its grab, as `query` asks: a
 * few grabs at once, JSON and JSON:API, plain and hooked; or (`keep`) one
 * with a signal the first such request made. The outcome of each, `"ok"` or
 * what went wrong.
 *
 * @param {(endpoint: string, options?: object) => Promise<unknown[]>} grab
 * @param {URLSearchParams} query
 * @returns {Promise<string[]>}
 */
export async function inRequest(grab, query) {
  const keep = query.get("keep") !== null;
  if (keep && kept === undefined) {
    kept = new AbortController().signal;
    return ["ok"];
  }
  const outcomes = await Promise.allSettled(
    keep ? [grab("GET /users/1", { signal: kept })] : [
      grab("GET /users/1"),
      grab("GET /users/1"),
      grab("GET /articles/1", { format: "json-api" }),
      grab("GET /users/1", HOOKED),
      grab("GET /users/1", HOOKED),
      grab("GET /users/1", REPLACED),
    ],
  );
  return outcomes.map((outcome) => {
    if (outcome.status === "rejected") {
      return `rejected: ${outcome.reason?.name}: ${outcome.reason?.message}`;
    }
    const error = outcome.value[1];
    return error === null ? "ok" : `${error.name}: ${error.message}`;
  });
}

/** The outcomes a request was answered with (`string[]`), within `CASE_MS`. */
async function answered(sending) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`still pending after ${CASE_MS} ms`)),
      CASE_MS,
    );
  });
  const read = sending.then(async (answer) => {
    const text = await answer.text();
    if (answer.status !== 200) return [`status ${answer.status}: ${text}`];
    return JSON.parse(text);
  });
  return await Promise.race([read, late]).finally(() => clearTimeout(timer));
}

/**
 * The cases: `[name, run]`, where `run(send, api)` sends requests with
 * `send(query)` (the query of `/request`) and throws on a failure.
 */
export const REQUEST_CASES = [
  ["requests: grabs of requests at once, one grab for all", async (send) => {
    const query = () => new URLSearchParams({ timeout: String(LONG_TIMEOUT) });
    const outcomes = await Promise.all(
      Array.from({ length: REQUESTS }, () => answered(send(query()))),
    );
    const failed = outcomes.flat().filter((outcome) => outcome !== "ok");
    if (failed.length > 0) {
      throw new Error(`${failed.length} grabs failed: ${failed[0]}`);
    }
  }],
  ["requests: a signal another request made is refused", async (send) => {
    // workerd throws when the signal is read: a GrabValidationError, not
    // its Error rejecting the grab, nor a request sent.
    const query = () => new URLSearchParams({ timeout: "10000", keep: "" });
    await answered(send(query()));
    const [outcome] = await answered(send(query()));
    if (
      !/^rejected: GrabValidationError: .*"signal".*one made while handling it/
        .test(outcome)
    ) {
      throw new Error(`expected a GrabValidationError, got ${outcome}`);
    }
  }],
];

/** How many results the cases give: each runs on two compatibility dates. */
export const REQUEST_CASE_COUNT = REQUEST_CASES.length * 2;
