/**
 * Time as the event loop gives it: a loop kept busy by the caller's own
 * synchronous code past a grab's `timeout`. A timer that fires late cannot
 * end anything before it fires, so what the grab starts once the loop is
 * free must be held to the clock, not to the timers: no retry, no hook and
 * no `fetch` for a grab whose time is up.
 *
 * No test asserts how fast anything is: a busy loop makes sure the time has
 * passed, and {@linkcode settles} only turns a hang into a failure.
 *
 * @module
 */

import { assertEquals } from "@std/assert";
import createGrab from "../mod.ts";
import { startServer } from "./_server.ts";
import { assertTransport, settles } from "./_bounds.ts";

/** Keeps the event loop busy for `ms`: no timer and no I/O runs meanwhile. */
function block(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    // Busy, as a long computation of the caller's would be.
  }
}

Deno.test("a retry whose backoff timer fires after the timeout passed is not made", async () => {
  await using server = startServer(() => new Response("{}", { status: 503 }));
  const sent: boolean[] = [];
  let fetched = 0;
  let blocked = false;
  const grab = createGrab(server.url, {
    fetch: (input, init) => {
      fetched++;
      return fetch(input, init);
    },
    hooks: {
      beforeRequest: (request) => void sent.push(request.signal.aborted),
    },
  });
  const result = await settles(grab("GET /", {
    timeout: 400,
    retry: {
      limit: 3,
      backoff: () => {
        // The loop is busy while the backoff waits, past the timeout: the
        // backoff's timer and the timeout's fire late, together.
        if (!blocked) setTimeout(() => block(700), 10);
        blocked = true;
        return 100;
      },
    },
  }));
  assertTransport(result, "timeout");
  assertEquals(sent, [false], "no hook runs for a retry past the timeout");
  assertEquals(fetched, 1, "no fetch is made for a retry past the timeout");
  assertEquals(server.requests.length, 1);
});

Deno.test("a grab whose timeout passed while the caller kept the loop busy calls no fetch", async () => {
  await using server = startServer(() => new Response("{}"));
  let fetched = 0;
  let hooked = 0;
  const grab = createGrab(server.url, {
    fetch: (input, init) => {
      fetched++;
      return fetch(input, init);
    },
    // Runs at once, in time: the request it lets go is sent a turn later.
    hooks: { beforeRequest: () => void hooked++ },
  });
  const grabbing = grab("GET /", { timeout: 200 });
  // The caller's code runs on between starting the grab and awaiting it.
  block(500);
  assertTransport(await settles(grabbing), "timeout");
  assertEquals(hooked, 1);
  assertEquals(fetched, 0, "no fetch is made once the timeout passed");
  assertEquals(server.requests.length, 0);
});

Deno.test("a grab whose timeout passed while its header function was awaited calls no fetch", async () => {
  await using server = startServer(() => new Response("{}"));
  let fetched = 0;
  const grab = createGrab(server.url, {
    fetch: (input, init) => {
      fetched++;
      return fetch(input, init);
    },
    // Resolved in time; the code that resolved it runs on past the timeout
    // before the grab goes on, a microtask later.
    headers: () =>
      new Promise((resolve) =>
        setTimeout(() => {
          resolve({ "x-token": "t" });
          block(500);
        }, 0)
      ),
  });
  assertTransport(await settles(grab("GET /", { timeout: 200 })), "timeout");
  assertEquals(fetched, 0, "no fetch is made once the timeout passed");
  assertEquals(server.requests.length, 0);
});
