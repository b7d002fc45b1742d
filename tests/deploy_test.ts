import assert from "node:assert/strict";
import deploy, { createHandler } from "../examples/deploy.ts";
import { closedPort, json, startServer } from "./_server.ts";

function upstream() {
  return startServer({
    "/users/1": () => json({ id: 1, name: "Ada" }),
    "/users/2": () => json({ message: "no such user" }, { status: 404 }),
    "/users/3": () => json({ message: "down" }, { status: 503 }),
    "/users/4": () => new Response("<html>", { status: 200 }),
    "/users/5": (request) =>
      new Promise<Response>((resolve) =>
        request.signal.addEventListener(
          "abort",
          () => resolve(new Response(null, { status: 499 })),
        )
      ),
  });
}

async function body(response: Response): Promise<unknown> {
  return await response.json();
}

Deno.test("examples/deploy.ts", async (t) => {
  await t.step("exports a Deno.serve default with fetch", () => {
    assert.equal(typeof deploy.fetch, "function");
  });

  await t.step("maps a success to 200 with the user", async () => {
    await using server = upstream();
    const handler = createHandler(server.url, { token: "t0k", retry: 0 });
    const response = await handler(new Request("http://deploy.test/users/1"));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("cache-control"), "max-age=60");
    assert.deepEqual(await body(response), { id: 1, name: "Ada" });
    assert.equal(
      server.requests[0]?.headers.get("authorization"),
      "Bearer t0k",
    );
  });

  await t.step("maps an upstream 404 to 404", async () => {
    await using server = upstream();
    const handler = createHandler(server.url, { retry: 0 });
    const response = await handler(new Request("http://deploy.test/users/2"));
    assert.equal(response.status, 404);
    assert.deepEqual(await body(response), { error: "no such user" });
  });

  await t.step("maps another upstream status to 502", async () => {
    await using server = upstream();
    const handler = createHandler(server.url, { retry: 0 });
    const response = await handler(new Request("http://deploy.test/users/3"));
    assert.equal(response.status, 502);
    assert.deepEqual(await body(response), { error: "upstream answered 503" });
  });

  await t.step("maps a body that is not JSON to 502", async () => {
    await using server = upstream();
    const handler = createHandler(server.url, { retry: 0 });
    const response = await handler(new Request("http://deploy.test/users/4"));
    assert.equal(response.status, 502);
    assert.deepEqual(await body(response), { error: "upstream failed: parse" });
  });

  await t.step("maps an upstream timeout to 504", async () => {
    await using server = upstream();
    const handler = createHandler(server.url, { retry: 0, timeout: 30 });
    const response = await handler(new Request("http://deploy.test/users/5"));
    assert.equal(response.status, 504);
    assert.deepEqual(await body(response), {
      error: "upstream failed: timeout",
    });
  });

  await t.step("maps a refused connection to 502", async () => {
    const handler = createHandler(`http://127.0.0.1:${closedPort()}`, {
      retry: 0,
    });
    const response = await handler(new Request("http://deploy.test/users/1"));
    assert.equal(response.status, 502);
    assert.deepEqual(await body(response), {
      error: "upstream failed: network",
    });
  });

  await t.step("answers 400 and 404 without calling upstream", async () => {
    await using server = upstream();
    const handler = createHandler(server.url);
    const bad = await handler(new Request("http://deploy.test/users/abc"));
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
    const unknown = await handler(new Request("http://deploy.test/posts"));
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();
    const post = await handler(
      new Request("http://deploy.test/users/1", { method: "POST" }),
    );
    assert.equal(post.status, 404);
    await post.body?.cancel();
    assert.equal(server.requests.length, 0);
  });
});
