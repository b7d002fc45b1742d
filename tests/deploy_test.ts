import { assertEquals } from "@std/assert";
import { STATUS_CODE } from "@std/http/status";
import { FakeTime } from "@std/testing/time";
import deploy, { createHandler } from "../examples/deploy.ts";
import { closedPort, json, startServer } from "./_server.ts";
import { settle, until, watch } from "./_time.ts";

/** nginx's status for a client that went away; HTTP has no name for it. */
const CLIENT_CLOSED = 499;

function upstream() {
  return startServer({
    "/users/1": () => json({ id: 1, name: "Ada" }),
    "/users/2": () =>
      json({ message: "no such user" }, { status: STATUS_CODE.NotFound }),
    "/users/3": () =>
      json({ message: "down" }, { status: STATUS_CODE.ServiceUnavailable }),
    "/users/4": () => new Response("<html>", { status: STATUS_CODE.OK }),
    "/users/5": (request) =>
      new Promise<Response>((resolve) =>
        request.signal.addEventListener(
          "abort",
          () => resolve(new Response(null, { status: CLIENT_CLOSED })),
        )
      ),
  });
}

async function body(response: Response): Promise<unknown> {
  return await response.json();
}

Deno.test("examples/deploy.ts", async (t) => {
  await t.step("exports a Deno.serve default with fetch", () => {
    assertEquals(typeof deploy.fetch, "function");
  });

  await t.step("maps a success to 200 with the user", async () => {
    await using server = upstream();
    const handler = createHandler(server.url, { token: "t0k", retry: 0 });
    const response = await handler(new Request("http://deploy.test/users/1"));
    assertEquals(response.status, STATUS_CODE.OK);
    assertEquals(response.headers.get("cache-control"), "max-age=60");
    assertEquals(await body(response), { id: 1, name: "Ada" });
    assertEquals(
      server.requests[0]?.headers.get("authorization"),
      "Bearer t0k",
    );
  });

  await t.step("maps an upstream 404 to 404", async () => {
    await using server = upstream();
    const handler = createHandler(server.url, { retry: 0 });
    const response = await handler(new Request("http://deploy.test/users/2"));
    assertEquals(response.status, STATUS_CODE.NotFound);
    assertEquals(await body(response), { error: "no such user" });
  });

  await t.step("maps another upstream status to 502", async () => {
    await using server = upstream();
    const handler = createHandler(server.url, { retry: 0 });
    const response = await handler(new Request("http://deploy.test/users/3"));
    assertEquals(response.status, STATUS_CODE.BadGateway);
    assertEquals(await body(response), { error: "upstream answered 503" });
  });

  await t.step("maps a body that is not JSON to 502", async () => {
    await using server = upstream();
    const handler = createHandler(server.url, { retry: 0 });
    const response = await handler(new Request("http://deploy.test/users/4"));
    assertEquals(response.status, STATUS_CODE.BadGateway);
    assertEquals(await body(response), { error: "upstream failed: parse" });
  });

  await t.step("maps an upstream timeout to 504", async () => {
    await using server = upstream();
    using time = new FakeTime();
    const handler = createHandler(server.url, { retry: 0, timeout: 30 });
    const pending = watch(handler(new Request("http://deploy.test/users/5")));
    await until(time, () => server.requests.length === 1, "the request");
    await time.tickAsync(29);
    assertEquals(pending.settled, false);
    await time.tickAsync(1);
    const response = await settle(time, pending);
    assertEquals(response.status, STATUS_CODE.GatewayTimeout);
    assertEquals(await body(response), {
      error: "upstream failed: timeout",
    });
  });

  await t.step("maps a refused connection to 502", async () => {
    const handler = createHandler(`http://127.0.0.1:${closedPort()}`, {
      retry: 0,
    });
    const response = await handler(new Request("http://deploy.test/users/1"));
    assertEquals(response.status, STATUS_CODE.BadGateway);
    assertEquals(await body(response), {
      error: "upstream failed: network",
    });
  });

  await t.step("answers 400 and 404 without calling upstream", async () => {
    await using server = upstream();
    const handler = createHandler(server.url);
    const bad = await handler(new Request("http://deploy.test/users/abc"));
    assertEquals(bad.status, STATUS_CODE.BadRequest);
    await bad.body?.cancel();
    const unknown = await handler(new Request("http://deploy.test/posts"));
    assertEquals(unknown.status, STATUS_CODE.NotFound);
    await unknown.body?.cancel();
    const post = await handler(
      new Request("http://deploy.test/users/1", { method: "POST" }),
    );
    assertEquals(post.status, STATUS_CODE.NotFound);
    await post.body?.cancel();
    assertEquals(server.requests.length, 0);
  });
});
