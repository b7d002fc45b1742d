/**
 * Run by `tests/undici_fetch_test.ts` in Node, bundled with grab: grabs
 * through the `fetch` of the npm `undici` package (each version whose path
 * `UNDICI_PATHS` lists), which is not Node's own, against the test's server
 * (`GRAB_BASE`), and writes one JSON line of what came of each case.
 *
 * @module
 */

import { createRequire } from "node:module";
import { createGrab } from "../mod.ts";

const require = createRequire(`${process.cwd()}/`);
const base = process.env.GRAB_BASE;
const versions = JSON.parse(process.env.UNDICI_PATHS);
const retry = { limit: 2, backoff: () => 1 };

/** What a grab's result says, in short. */
function told([data, error]) {
  if (error === null) return { data };
  return { kind: error.kind ?? error.statusCode, message: error.message };
}

/** Each case's outcome, for the fetch of `undici`. */
async function cases(undici) {
  const through = (dispatcher) => (input, init) =>
    undici.fetch(input, { ...init, dispatcher });
  const plain = new undici.Agent();
  const small = new undici.Agent({ maxResponseSize: 100 });
  const retrying = new undici.RetryAgent(new undici.Agent(), {
    maxRetries: 1,
    minTimeout: 1,
    maxTimeout: 1,
    statusCodes: [503],
  });
  try {
    const hooks = {
      beforeRequest: (request) => request.headers.set("x-hook", "set"),
      afterResponse: () => {},
    };
    const hooked = createGrab(base, { fetch: undici.fetch, retry, hooks });
    // A wrapper that spreads `init` to add its dispatcher.
    const hookedThrough = createGrab(base, {
      fetch: through(plain),
      retry,
      hooks,
    });
    const capped = createGrab(base, { fetch: through(small), retry });
    return {
      hookedGet: told(await hooked("GET /echo")),
      hookedPost: told(
        await hookedThrough("POST /echo", { body: { a: 1 } }),
      ),
      declaredTooLarge: told(
        await capped("GET /large", { responseType: "text" }),
      ),
      streamedTooLarge: told(
        await capped("GET /streamed", { responseType: "text" }),
      ),
      retriedByAgent: told(
        await createGrab(base, { fetch: through(retrying), retry })(
          "GET /busy",
        ),
      ),
    };
  } finally {
    await plain.close();
    await small.close();
    await retrying.close();
  }
}

const outcomes = {};
for (const [version, path] of Object.entries(versions)) {
  outcomes[version] = await cases(require(path));
}
// deno-lint-ignore no-console
console.log(JSON.stringify(outcomes));
