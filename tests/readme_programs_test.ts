/**
 * Five small programs written from the README alone, each against a local
 * server that behaves like the service it stands for.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import createGrab, {
  Call,
  type GrabResult,
  type GrabStream,
  isGrabHttpError,
  isGrabTransportError,
  jsonApiOf,
  orThrow,
  paginate,
  type ServerSentEvent,
} from "../mod.ts";

type Serve = (request: Request) => Response | Promise<Response>;

// Not `startServer`: its handlers get the request already read, and these
// read theirs as a service's code does.

function serve(handler: Serve) {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    handler,
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

// (1) A GitHub-like REST client.
interface Issue {
  number: number;
  title: string;
  state: string;
}

Deno.test("a GitHub-like client pages, posts and reads its failures", async () => {
  const issues: Issue[] = Array.from(
    { length: 5 },
    (_, i) => ({ number: i + 1, title: `Bug ${i + 1}`, state: "open" }),
  );
  const seenAuth: (string | null)[] = [];
  let limited = 0;
  await using server = serve(async (request) => {
    const url = new URL(request.url);
    seenAuth.push(request.headers.get("authorization"));
    if (url.pathname === "/repos/acme/widgets/issues") {
      if (request.method === "POST") {
        const body = await request.json();
        if (!body.title) {
          return Response.json({
            message: "Validation Failed",
            errors: [{
              resource: "Issue",
              field: "title",
              code: "missing_field",
            }],
          }, { status: 422 });
        }
        return Response.json({ number: 6, title: body.title, state: "open" }, {
          status: 201,
        });
      }
      const page = Number(url.searchParams.get("page") ?? "1");
      const perPage = Number(url.searchParams.get("per_page"));
      const slice = issues.slice((page - 1) * perPage, page * perPage);
      const headers = new Headers();
      if (page * perPage < issues.length) {
        const next = new URL(url);
        next.searchParams.set("page", String(page + 1));
        headers.set("link", `<${next}>; rel="next", <${url}>; rel="first"`);
      }
      return Response.json(slice, { headers });
    }
    if (url.pathname === "/rate_limit") {
      return Response.json({ message: "API rate limit exceeded" }, {
        status: 403,
        headers: {
          "x-ratelimit-remaining": "0",
          "x-ratelimit-reset": "1700000000",
        },
      });
    }
    if (url.pathname === "/busy") {
      limited++;
      if (limited === 1) {
        return Response.json({ message: "slow down" }, {
          status: 429,
          headers: { "retry-after": "0" },
        });
      }
      return Response.json({ ok: true });
    }
    return Response.json({ message: "Not Found" }, { status: 404 });
  });

  let token = "t-1";
  const github = createGrab(server.url, {
    headers: () => ({ authorization: `token ${token}` }),
  });

  const titles: string[] = [];
  for await (
    const [page] of paginate<Issue[]>(
      github,
      "GET /repos/:owner/:repo/issues",
      {
        params: { owner: "acme", repo: "widgets" },
        query: { state: "open", labels: ["bug", "ui"], per_page: 2 },
        limit: 10,
      },
    )
  ) {
    titles.push(...page.map((issue) => issue.title));
  }
  assertEquals(titles, issues.map((issue) => issue.title));

  token = "t-2";
  const [created, createError, meta] = await github(
    "POST /repos/:owner/:repo/issues",
    { params: { owner: "acme", repo: "widgets" }, body: { title: "New" } },
  );
  assertEquals(createError, null);
  assertEquals(meta?.statusCode, 201);
  assertEquals((created as Issue).number, 6);
  assertEquals(seenAuth.at(-1), "token t-2");
  assert(seenAuth.slice(0, 3).every((value) => value === "token t-1"));

  const [, invalid] = await github("POST /repos/:owner/:repo/issues", {
    params: { owner: "acme", repo: "widgets" },
    body: {},
  });
  assert(isGrabHttpError(invalid));
  assertEquals(invalid.statusCode, 422);
  assertEquals(invalid.errors, undefined); // GitHub's errors stay on body
  assertEquals(
    (invalid.body as { errors: { field: string }[] }).errors[0]?.field,
    "title",
  );

  const [, missing] = await github("GET /repos/:owner/:repo", {
    params: { owner: "acme", repo: "nope" },
  });
  assert(isGrabHttpError(missing));
  assertEquals(missing.statusCode, 404);

  const [, limitedError] = await github("GET /rate_limit");
  assert(isGrabHttpError(limitedError));
  assertEquals(limitedError.statusCode, 403);
  assertEquals(limitedError.headers.get("x-ratelimit-reset"), "1700000000");

  const [busy, busyError] = await github("GET /busy");
  assertEquals(busyError, null);
  assertEquals(busy, { ok: true });
  assertEquals(limited, 2);
});

// (2) An OpenAI-like chat stream.
function chunk(content: string): string {
  return `data: ${JSON.stringify({ choices: [{ delta: { content } }] })}\n\n`;
}

/** The README's chat loop: the deltas joined, up to `[DONE]`. */
async function replyOf(events: GrabStream<ServerSentEvent>): Promise<string> {
  let reply = "";
  for await (const { data } of events) {
    if (data === "[DONE]") break;
    reply += JSON.parse(data).choices[0]?.delta?.content ?? "";
  }
  return reply;
}

Deno.test("a chat stream cancelled by the caller releases the server's stream", async () => {
  const encoder = new TextEncoder();
  const { promise: cancelled, resolve: onCancel } = Promise.withResolvers<
    void
  >();
  await using server = serve(() => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // Three chunks, then it keeps the connection open as a slow model does.
        if (sent < 3) controller.enqueue(encoder.encode(chunk(`w${sent++} `)));
        else return new Promise(() => {});
      },
      cancel() {
        onCancel();
      },
    });
    return new Response(body, {
      headers: { "content-type": "text/event-stream" },
    });
  });
  const openai = createGrab(server.url, {
    headers: { authorization: "Bearer sk-test" },
  });
  const controller = new AbortController();
  const [events, error] = await openai("POST /chat/completions", {
    body: {
      model: "m",
      stream: true,
      messages: [{ role: "user", content: "Hi" }],
    },
    responseType: "sse",
    attemptTimeout: 120_000,
    signal: controller.signal,
  });
  if (error) throw error;
  if (events === null) throw new Error("No stream: the server sent 204");
  let reply = "";
  for await (const { data } of events) {
    if (data === "[DONE]") break;
    reply += JSON.parse(data).choices[0]?.delta?.content ?? "";
    if (reply.split(" ").length > 2) controller.abort(); // the user pressed stop
  }
  assertEquals(reply, "w0 w1 ");
  assert(isGrabTransportError(events.error));
  assertEquals(events.error.kind, "abort");
  await cancelled;
});

Deno.test("a chat stream that breaks off mid-way ends with a network error", async () => {
  const encoder = new TextEncoder();
  await using server = serve(() => {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent < 2) controller.enqueue(encoder.encode(chunk(`w${sent++} `)));
        else controller.error(new Error("upstream model crashed"));
      },
    });
    return new Response(body, {
      headers: { "content-type": "text/event-stream" },
    });
  });
  const openai = createGrab(server.url);
  const [events, error] = await openai("POST /chat/completions", {
    body: { stream: true },
    responseType: "sse",
    attemptTimeout: 120_000,
  });
  if (error) throw error;
  if (events === null) throw new Error("No stream: the server sent 204");
  const reply = await replyOf(events);
  assertEquals(reply, "w0 w1 ");
  assert(isGrabTransportError(events.error));
  assertEquals(events.error.kind, "network");
  assert(events.error.message.includes("broke off"), events.error.message);
});

Deno.test("a chat stream ended by the caller's break reports no error", async () => {
  const encoder = new TextEncoder();
  await using server = serve(() =>
    new Response(
      encoder.encode(chunk("a") + chunk("b") + "data: [DONE]\n\n" + chunk("c")),
      { headers: { "content-type": "text/event-stream" } },
    )
  );
  const openai = createGrab(server.url);
  const [events, error] = await openai("POST /chat/completions", {
    body: { stream: true },
    responseType: "sse",
  });
  if (error) throw error;
  if (events === null) throw new Error("No stream");
  const reply = await replyOf(events);
  assertEquals(reply, "ab");
  assertEquals(events.error, null);
});

// (3) A download with progress and a cap, then uploads with progress.
Deno.test("a download reports progress and a cap ends one too large", async () => {
  const file = new Uint8Array(200_000).fill(7);
  const uploads: { type: string; length: number; chunked: boolean }[] = [];
  await using server = serve(async (request) => {
    const url = new URL(request.url);
    if (request.method === "GET" && url.pathname === "/datasets/big.bin") {
      return new Response(file, {
        headers: { "content-length": String(file.byteLength) },
      });
    }
    if (request.method === "GET") {
      // No length: chunked, as a generated export is.
      return new Response(
        ReadableStream.from([file.slice(0, 100_000), file.slice(100_000)]),
      );
    }
    const bytes = await request.bytes();
    uploads.push({
      type: request.headers.get("content-type") ?? "",
      length: bytes.byteLength,
      chunked: request.headers.get("transfer-encoding") === "chunked",
    });
    return Response.json({ saved: bytes.byteLength }, { status: 201 });
  });
  const files = createGrab(server.url);

  const seen: { loaded: number; total: number | undefined }[] = [];
  const [bytes, error] = await files("GET /datasets/:name", {
    params: { name: "big.bin" },
    responseType: "bytes",
    onDownloadProgress: (progress) => seen.push(progress),
  });
  assertEquals(error, null);
  assertEquals(bytes?.byteLength, file.byteLength);
  assertEquals(seen.at(-1), {
    loaded: file.byteLength,
    total: file.byteLength,
  });

  const [capped, tooLarge] = await files("GET /datasets/:name", {
    params: { name: "export.bin" },
    responseType: "bytes",
    maxBodyBytes: 150_000,
  });
  assertEquals(capped, null);
  assert(isGrabTransportError(tooLarge));
  assertEquals(tooLarge.kind, "too-large");

  const form = new FormData();
  form.append("title", "Holiday");
  form.append("photo", new Blob([file], { type: "image/png" }), "photo.png");
  const formProgress: number[] = [];
  const [photo, photoError] = await files("POST /photos", {
    body: form,
    onUploadProgress: ({ loaded }) => formProgress.push(loaded),
  });
  assertEquals(photoError, null);
  assertEquals(
    uploads[0]?.type.startsWith("multipart/form-data; boundary="),
    true,
  );
  assertEquals(photo, { saved: uploads[0]?.length });
  assertEquals(formProgress.at(-1), uploads[0]?.length);

  const streamProgress: { loaded: number; total: number | undefined }[] = [];
  const [raw, rawError] = await files("PUT /reports/:id", {
    params: { id: 3 },
    body: ReadableStream.from([file.slice(0, 50_000), file.slice(50_000)]),
    headers: { "content-type": "application/octet-stream" },
    onUploadProgress: (progress) => streamProgress.push(progress),
  });
  assertEquals(rawError, null);
  assertEquals(raw, { saved: file.byteLength });
  assertEquals(uploads[1]?.type, "application/octet-stream");
  assertEquals(streamProgress.at(-1)?.loaded, file.byteLength);
});

// (4) A JSON:API client in camelCase.
const JSON_API = "application/vnd.api+json";

Deno.test("a JSON:API client reads compound documents and shows form errors", async () => {
  const writes: { url: URL; type: string | null; body: unknown }[] = [];
  const reads: URL[] = [];
  await using server = serve(async (request) => {
    const url = new URL(request.url);
    if (request.method === "GET") reads.push(url);
    if (request.method === "POST") {
      const body = await request.json();
      writes.push({ url, type: request.headers.get("content-type"), body });
      if (body.data.attributes.title === "") {
        return Response.json({
          errors: [
            {
              status: "422",
              source: { pointer: "/data/attributes/title" },
              detail: "can't be blank",
            },
            {
              status: "422",
              source: { pointer: "/data/attributes/body_text" },
              detail: "is too short",
            },
          ],
        }, { status: 422, headers: { "content-type": JSON_API } });
      }
      return new Response(null, { status: 204 });
    }
    const document = {
      links: { self: url.href },
      data: [{
        type: "articles",
        id: "1",
        attributes: { title: "Hi", body_text: "Hello" },
        relationships: {
          author: { data: { type: "people", id: "9" } },
          comments: { data: [{ type: "comments", id: "5" }] },
        },
        links: { self: "/articles/1" },
      }],
      included: [
        { type: "people", id: "9", attributes: { first_name: "Ada" } },
        {
          type: "comments",
          id: "5",
          attributes: { body_text: "Nice" },
          relationships: { author: { data: { type: "people", id: "9" } } },
        },
      ],
      meta: { total_pages: 1 },
    };
    return Response.json(document, { headers: { "content-type": JSON_API } });
  });
  const api = createGrab(server.url, {
    format: "json-api",
    casing: "camelCase",
  });

  interface Person {
    type: "people";
    id: string;
    firstName: string;
  }
  interface Article {
    type: "articles";
    id: string;
    title: string;
    bodyText: string;
    author: Person;
    comments: { id: string; bodyText: string; author: Person }[];
  }
  const [articles, error, meta]: GrabResult<Article[]> = await api(
    "GET /articles",
    {
      query: {
        include: ["author", "comments.author"],
        // Field names are values: written in the server's casing.
        fields: { articles: ["title", "body_text", "author", "comments"] },
      },
    },
  );
  if (error) throw error;
  const article = articles[0]!;
  assertEquals(article.bodyText, "Hello");
  assertEquals(article.author.firstName, "Ada");
  assertEquals(article.comments[0]?.author, article.author);
  assertEquals(jsonApiOf(article)?.links?.self, "/articles/1");
  assertEquals(meta.meta, { total_pages: 1 });

  const [, formError] = await api("POST /articles", {
    body: { type: "articles", id: "4b6c", title: "", bodyText: "x" },
  });
  assert(isGrabHttpError(formError));
  const byField = Object.fromEntries(
    (formError.errors ?? []).map((e) => [e.field, e.detail]),
  );
  assertEquals(byField, { title: "can't be blank", bodyText: "is too short" });

  const [created, createError, createMeta] = await api("POST /articles", {
    body: {
      type: "articles",
      id: "4b6d",
      title: "Hi",
      bodyText: "Long enough",
    },
  });
  assertEquals(createError, null);
  assertEquals(created, null);
  assertEquals(createMeta?.statusCode, 204);

  assertEquals(
    reads[0]?.search,
    "?include=author%2Ccomments.author&fields%5Barticles%5D=title%2Cbody_text%2Cauthor%2Ccomments",
  );
  assertEquals(writes[1]?.type, JSON_API);
  assertEquals(writes[1]?.body, {
    data: {
      type: "articles",
      id: "4b6d",
      attributes: { title: "Hi", body_text: "Long enough" },
    },
  });
});

// (5) A worker-like loop.
Deno.test("a worker loop of concurrent grabs, retries, timeouts and one abort", async () => {
  const attempts = new Map<string, number>();
  let hung = 0;
  // Held until the test ends, as a stuck backend holds a request.
  const { promise: release, resolve: releaseAll } = Promise.withResolvers<
    void
  >();
  await using server = serve((request) => {
    const id = new URL(request.url).pathname.split("/").pop()!;
    const count = (attempts.get(id) ?? 0) + 1;
    attempts.set(id, count);
    const n = Number(id);
    if (n % 5 === 0 && count === 1) {
      return Response.json({ error: "busy" }, {
        status: 503,
        headers: { "retry-after": "0" },
      });
    }
    if (n % 7 === 0) {
      // Never answers while the test runs.
      hung++;
      return release.then(() => new Response(null, { status: 504 }));
    }
    return Response.json({ id: n, done: true });
  });
  // Disposed before the server, which waits for its handlers to answer.
  using _released = { [Symbol.dispose]: () => releaseAll() };
  const logged: string[] = [];
  const worker = createGrab(server.url, {
    retry: { limit: 2 },
    hooks: {
      beforeRetry: ({ attempt, statusCode, delay }) => {
        logged.push(`retry ${attempt} after ${statusCode} in ${delay} ms`);
      },
    },
  });
  interface Job {
    id: number;
    done: boolean;
  }
  const ids = Array.from({ length: 20 }, (_, i) => i + 1);
  const results = await Promise.all(ids.map(async (id) => {
    try {
      const [job] = await orThrow(
        worker<Job>("GET /jobs/:id", { params: { id }, timeout: 200 }),
      );
      return job.id;
    } catch (error) {
      if (isGrabTransportError(error)) return error.kind;
      throw error;
    }
  }));
  assertEquals(
    results,
    ids.map((id) => id % 7 === 0 ? "timeout" : id),
  );
  assertEquals(logged.length, 4);
  assert(
    logged.every((line) => line.startsWith("retry 1 after 503")),
    logged.join(),
  );

  // One AbortController for the whole batch: stopping the worker ends all.
  const stop = new AbortController();
  const batch = [14, 21, 28].map((id) =>
    worker("GET /jobs/:id", {
      params: { id },
      signal: stop.signal,
      timeout: 60_000,
    })
  );
  // Bounded (about the hang guard's 10 s), so that requests that never
  // reach the server fail the test rather than hang it.
  for (let wait = 0; hung < 2 + 3 && wait < 2_000; wait++) {
    await new Promise((r) => setTimeout(r, 5));
  }
  assertEquals(hung, 2 + 3, "the hung requests the server saw");
  stop.abort();
  for (const [, error] of await Promise.all(batch)) {
    assert(isGrabTransportError(error));
    assertEquals(error.kind, "abort");
  }

  // One Call, sent many times.
  const health = new Call("GET /jobs/:id", server.url);
  for (const id of [1, 2, 3]) {
    const outcome = await health.send({
      params: { id },
      retry: 0,
      timeout: 2_000,
    });
    assert(outcome.ok);
    assertEquals(outcome.status, 200);
    assertEquals(outcome.body, { id, done: true });
  }
});

// A filter object typed by an interface, as a codebase declares it.
interface IssueFilters {
  state: "open" | "closed" | "all";
  labels?: string[];
  "per_page": number;
}

class SearchFilters {
  q = "is:open";
  sort: "created" | "updated" = "updated";
}

Deno.test("a query typed by an interface or a class compiles and is sent", async () => {
  await using server = serve((request) =>
    Response.json(new URL(request.url).search)
  );
  const github = createGrab(server.url);
  const filters: IssueFilters = {
    state: "open",
    labels: ["bug"],
    "per_page": 2,
  };
  const [search, error] = await github("GET /repos/:owner/:repo/issues", {
    params: { owner: "acme", repo: "widgets" },
    query: filters,
  });
  assertEquals(error, null);
  assertEquals(search, "?state=open&labels=bug&per_page=2");
  const pages: unknown[] = [];
  for await (
    const [page] of paginate(github, "GET /search/issues", {
      query: new SearchFilters(),
    })
  ) pages.push(page);
  assertEquals(pages, ["?q=is%3Aopen&sort=updated"]);

  // What grab refuses at run time still does not compile. Never called.
  const _refused = async () => {
    // @ts-expect-error an array
    await github("GET /x", { query: ["a"] });
    // @ts-expect-error a Map
    await github("GET /x", { query: new Map([["a", "b"]]) });
    // @ts-expect-error a Promise not awaited
    await github("GET /x", { query: Promise.resolve(filters) });
    // @ts-expect-error a Date
    await github("GET /x", { query: new Date() });
    // @ts-expect-error a function
    await github("GET /x", { query: () => filters });
  };
});
