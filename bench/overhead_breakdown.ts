// deno-lint-ignore-file no-console
/**
 * Where grab's time goes compared with raw `fetch` + `res.json()`: each
 * variant adds one of the things grab does, in process (fake `fetch`) and
 * over loopback. Interleaved rounds, medians, ratios to raw.
 *
 * Run: deno task bench:breakdown
 *
 * @module
 */

import { Call, createGrab } from "../mod.ts";
import { readBody } from "../src/body.ts";
import {
  type Client,
  compare,
  compareAlternating,
  fakeFetch,
  type FetchLike,
} from "./_http.ts";
import { startServer } from "./_spawn.ts";
import { table } from "./_stats.ts";

const CAP = 64 * 1024 * 1024;

/** A signal that never aborts, shared by every call. */
const NEVER = new AbortController().signal;

let window = { slot: -1, signal: NEVER };

/** A 30 s timeout signal shared by the calls that start within 15 ms. */
function sharedTimeout(): AbortSignal {
  const slot = Math.floor(Date.now() / 15);
  if (window.slot !== slot) {
    window = { slot, signal: AbortSignal.timeout(30_015) };
  }
  return window.signal;
}
const ROUNDS = 7;

/**
 * Deadlines linked to the shared timeout signal: one listener on each shared
 * signal for all of them, as grab keeps.
 */
const linkedWaiters = new Set<() => void>();
let listenedTo: AbortSignal | undefined;

function linkedDeadline(): {
  signal: AbortSignal;
  passed: Promise<never>;
  done: () => void;
} {
  const shared = sharedTimeout();
  if (listenedTo !== shared) {
    listenedTo = shared;
    shared.addEventListener("abort", () => {
      for (const pass of linkedWaiters) pass();
      linkedWaiters.clear();
    }, { once: true });
  }
  const controller = new AbortController();
  let pass!: () => void;
  const passed = new Promise<never>((_, reject) => {
    pass = () => {
      controller.abort();
      reject(new Error("timeout"));
    };
  });
  passed.catch(() => {});
  linkedWaiters.add(pass);
  return {
    signal: controller.signal,
    passed,
    done: () => void linkedWaiters.delete(pass),
  };
}

/**
 * What grab promises with a custom `fetch`, written out by hand: a signal of
 * the grab's own that the shared timeout signal aborts (a custom `fetch` may
 * hold listeners on it), a race that bounds a `fetch` which ignores the
 * signal, `accept`, the status, the capped reader loop (a custom `fetch`'s
 * length may lie), the parse and the tuple.
 */
function minimalForCustomFetch(url: string): Client {
  return {
    name: "a minimal client with grab's promises for a custom fetch",
    get: async () => {
      const { signal, passed, done } = linkedDeadline();
      try {
        const response = await Promise.race([
          fakeFetch(url, { headers: { accept: "application/json" }, signal }),
          passed,
        ]);
        const { status, headers } = response;
        if (status < 200 || status > 299) return [null, status, {}];
        const text = await readBody(response, "GET", CAP) as string;
        return [JSON.parse(text), null, { statusCode: status, headers }];
      } catch (error) {
        return [null, error, { statusCode: 0 }];
      } finally {
        done();
      }
    },
  };
}

function variants(base: string, doFetch: FetchLike): Client[] {
  const url = `${base}/item`;
  const isFake = doFetch === fakeFetch;
  const grabOptions = isFake ? { fetch: doFetch } : {};
  const grab = createGrab(base, grabOptions);
  const lean = createGrab(base, { ...grabOptions, timeout: false, retry: 0 });
  const call = new Call("GET /item", base);
  const sendFetch = isFake ? { fetch: doFetch } : {};
  return [
    {
      name: "raw: fetch + res.json()",
      get: async () => (await doFetch(url)).json(),
    },
    {
      name: "+ res.text() + JSON.parse",
      get: async () => JSON.parse(await (await doFetch(url)).text()),
    },
    {
      name: "+ readBody() (reader loop) + JSON.parse",
      get: async () => {
        const text = await readBody(await doFetch(url), "GET", CAP);
        return JSON.parse(text as string);
      },
    },
    {
      // Any init at all: the platform converts the whole dictionary.
      name: '+ init { method: "GET" }',
      get: async () => (await doFetch(url, { method: "GET" })).json(),
    },
    {
      name: "+ response headers and getters read",
      get: async () => {
        const response = await doFetch(url);
        const headers = response.headers;
        headers.get("content-length");
        headers.get("transfer-encoding");
        headers.get("content-encoding");
        void [response.type, response.status, response.statusText];
        return await response.json();
      },
    },
    {
      name: "+ headers record {accept}",
      get: async () =>
        (await doFetch(url, {
          method: "GET",
          headers: { accept: "application/json" },
        })).json(),
    },
    {
      // The floor of any timeout that can abort the request: a signal.
      name: "+ a signal (one for all calls, never aborts)",
      get: async () => (await doFetch(url, { signal: NEVER })).json(),
    },
    {
      name: "+ AbortSignal.timeout(30 s) shared per 15 ms, signal",
      get: async () => (await doFetch(url, { signal: sharedTimeout() })).json(),
    },
    {
      name: "+ AbortController, setTimeout 30 s, signal",
      get: async () => {
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), 30_000);
        try {
          return await (await doFetch(url, { signal: controller.signal }))
            .json();
        } finally {
          clearTimeout(timer);
        }
      },
    },
    {
      // What grab promises on this path, written out by hand and nothing
      // more: the shared timeout signal and `accept`, the status, a body
      // read by the platform only when its length bounds it (else the
      // capped reader loop), the parse and the tuple.
      name: "a minimal client with grab's promises on this path",
      get: async () => {
        try {
          const response = await doFetch(url, {
            headers: { accept: "application/json" },
            signal: sharedTimeout(),
          });
          const { status, headers } = response;
          if (status < 200 || status > 299) return [null, status, {}];
          const length = headers.get("content-length");
          const text = !isFake && length !== null && Number(length) <= CAP &&
              headers.get("content-encoding") === null &&
              headers.get("transfer-encoding") === null
            ? await response.text()
            : await readBody(response, "GET", CAP) as string;
          return [JSON.parse(text), null, { statusCode: status, headers }];
        } catch (error) {
          return [null, error, { statusCode: 0 }];
        }
      },
    },
    ...(isFake ? [minimalForCustomFetch(url)] : []),
    {
      name: "Call.send() defaults",
      get: () => call.send(sendFetch),
    },
    {
      name: "Call.send() timeout false, retry 0",
      get: () => call.send({ ...sendFetch, timeout: false, retry: 0 }),
    },
    {
      name: "grab defaults",
      get: async () => (await grab("GET /item"))[0],
    },
    {
      name: "grab timeout false, retry 0",
      get: async () => (await lean("GET /item"))[0],
    },
  ];
}

async function loop(client: Client, n: number, inFlight: number) {
  let started = 0;
  const worker = async () => {
    while (started < n) {
      started++;
      await client.get();
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  return performance.now() - t0;
}

async function report(
  title: string,
  clients: Client[],
  n: number,
  how: "batches" | "turns" | { inFlight: number },
) {
  // compare() keys ratios on a client named "raw".
  const named = clients.map((c, i) => ({
    name: i === 0 ? "raw" : c.name,
    get: c.get,
  }));
  const result = how === "turns"
    ? await compareAlternating(named, ROUNDS, n)
    : await compare(
      named,
      ROUNDS,
      (c) => loop(c, n, how === "batches" ? 1 : how.inFlight),
    );
  console.log(`\n### ${title}\n`);
  console.log(table(
    ["variant", "median µs/call", "time ÷ raw"],
    clients.map((c, i) => {
      const key = i === 0 ? "raw" : c.name;
      return [
        c.name,
        (result.medianMs[key]! * 1000 / n).toFixed(2),
        `${result.ratioToRaw[key]!.toFixed(2)}×`,
      ];
    }),
  ));
}

await report(
  "In process (fake fetch), 10,000 sequential calls",
  variants("http://127.0.0.1:9", fakeFetch),
  10_000,
  "batches",
);
const server = await startServer();
try {
  const realFetch: FetchLike = (input, init) => fetch(input, init);
  await report(
    "Loopback, 1,000 sequential GETs, the variants taking turns request by request",
    variants(server.base, realFetch),
    1_000,
    "turns",
  );
  await report(
    "Loopback, 10,000 GETs, 64 in flight",
    variants(server.base, realFetch),
    10_000,
    { inFlight: 64 },
  );
} finally {
  await server.stop();
}
