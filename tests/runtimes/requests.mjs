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
 * What the Worker does for one request with its grab: a few grabs at once,
 * JSON and JSON:API, plain and hooked; the outcome of each, `"ok"` or what
 * went wrong.
 *
 * @param {(endpoint: string, options?: object) => Promise<unknown[]>} grab
 * @returns {Promise<string[]>}
 */
export async function inRequest(grab) {
  const outcomes = await Promise.allSettled([
    grab("GET /users/1"),
    grab("GET /users/1"),
    grab("GET /articles/1", { format: "json-api" }),
    grab("GET /users/1", HOOKED),
    grab("GET /users/1", HOOKED),
  ]);
  return outcomes.map((outcome) => {
    if (outcome.status === "rejected") {
      return `rejected: ${outcome.reason?.name}: ${outcome.reason?.message}`;
    }
    const error = outcome.value[1];
    return error === null ? "ok" : `${error.name}: ${error.message}`;
  });
}

/**
 * The cases: `[name, run]`, where `run(send, api)` sends requests with
 * `send(query)` (the query of `/request`) and throws on a failure.
 */
export const REQUEST_CASES = [
  ["requests: grabs of requests at once, one grab for all", async (send) => {
    const query = new URLSearchParams({ timeout: String(LONG_TIMEOUT) });
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`still pending after ${CASE_MS} ms`)),
        CASE_MS,
      );
    });
    const sent = Promise.all(
      Array.from({ length: REQUESTS }, () => send(query)),
    );
    const answers = await Promise.race([sent, late]).finally(() =>
      clearTimeout(timer)
    );
    const outcomes = await Promise.all(
      answers.map(async (answer) => {
        const text = await answer.text();
        if (answer.status !== 200) return `status ${answer.status}: ${text}`;
        const failed = JSON.parse(text).filter((outcome) => outcome !== "ok");
        return failed.length === 0 ? "ok" : failed.join("; ");
      }),
    );
    const failed = outcomes.filter((outcome) => outcome !== "ok");
    if (failed.length > 0) {
      throw new Error(`${failed.length} of ${REQUESTS} requests: ${failed[0]}`);
    }
  }],
];

/** How many results the cases give: each runs on two compatibility dates. */
export const REQUEST_CASE_COUNT = REQUEST_CASES.length * 2;
