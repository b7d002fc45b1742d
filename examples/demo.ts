// deno-lint-ignore-file no-console
/**
 * A walk-through of grab against a server embedded in this script: success,
 * HTTP error, transport error, validation error, orThrow, and JSON:API.
 *
 * Run: deno task demo
 *
 * @module
 */

import createGrab, {
  type GrabResult,
  isGrabValidationError,
  orThrow,
} from "../mod.ts";

const users: Record<string, { id: number; first_name: string }> = {
  "1": { id: 1, first_name: "Ada" },
};

await using server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  (request) => {
    const url = new URL(request.url);
    const user = /^\/users\/(\w+)$/.exec(url.pathname);
    if (user) {
      const found = users[user[1]!];
      return found
        ? Response.json(found)
        : Response.json({ message: "no such user" }, { status: 404 });
    }
    if (url.pathname === "/broken") {
      return new Response("<html>oops</html>", { status: 200 });
    }
    if (url.pathname === "/articles/1") {
      return Response.json({
        data: {
          type: "articles",
          id: "1",
          attributes: { title: "JSON:API in ten lines", word_count: 812 },
          relationships: { author: { data: { type: "people", id: "9" } } },
        },
        included: [{
          type: "people",
          id: "9",
          attributes: { first_name: "Grace" },
        }],
        meta: { generated: "demo" },
      }, { headers: { "content-type": "application/vnd.api+json" } });
    }
    if (url.pathname === "/articles" && request.method === "POST") {
      return request.json().then((document) =>
        Response.json(
          { data: { ...document.data, id: "2" } },
          {
            status: 201,
            headers: { "content-type": "application/vnd.api+json" },
          },
        )
      );
    }
    if (url.pathname === "/chat") {
      // An LLM-style stream: JSON data lines, then a [DONE] sentinel.
      const tokens = ["Hel", "lo", ", ", "world"];
      const lines = tokens.map((token) =>
        `data: ${JSON.stringify({ delta: token })}\n\n`
      );
      return new Response(
        ReadableStream.from([...lines, "data: [DONE]\n\n"])
          .pipeThrough(new TextEncoderStream()),
        { headers: { "content-type": "text/event-stream" } },
      );
    }
    return new Response(null, { status: 404 });
  },
);
const base = `http://127.0.0.1:${server.addr.port}`;
const grab = createGrab(base, { casing: "camelCase", retry: 0 });

function show(title: string, result: GrabResult<unknown>): void {
  const [data, error, meta] = result;
  console.log(`\n▶ ${title}`);
  if (error) {
    console.log(`  error  ${error.name}: ${error.message}`);
    if (error.name === "GrabError") {
      console.log(
        `  status ${error.statusCode}, body ${JSON.stringify(error.body)}`,
      );
    } else {
      console.log(`  kind   ${error.kind}`);
    }
    console.log(`  meta   ${JSON.stringify(meta)}`);
  } else {
    console.log(`  data   ${JSON.stringify(data)}`);
    const document = meta.meta
      ? `, document meta ${JSON.stringify(meta.meta)}`
      : "";
    console.log(`  meta   statusCode ${meta.statusCode}${document}`);
  }
}

console.log("grab walk-through against", base);

show(
  'grab("GET /users/:id", { params: { id: 1 } })  (success; keys camelCased)',
  await grab("GET /users/:id", { params: { id: 1 } }),
);
show(
  'grab("GET /users/:id", { params: { id: 2 } })  (HTTP error)',
  await grab("GET /users/:id", { params: { id: 2 } }),
);
show(
  'grab("GET /broken")  (2xx that is not JSON: transport error)',
  await grab("GET /broken"),
);
// A port that was free a moment ago: nothing listens on it.
const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
const nowhere = `http://127.0.0.1:${closed.addr.port}/` as const;
closed.close();
show(
  `grab("GET ${nowhere}")  (nothing listens: transport error)`,
  await grab(`GET ${nowhere}`),
);

console.log(
  '\n▶ grab("get /users")  (validation error: rejects before any request)',
);
try {
  // @ts-expect-error: the Endpoint type refuses a lower-case method too.
  await grab("get /users");
} catch (error) {
  if (isGrabValidationError(error)) {
    console.log(`  ${error.name}: ${error.message}`);
  }
}

console.log("\n▶ orThrow(grab(...))  (throwing style)");
const [user] = await orThrow(
  grab<{ firstName: string }>("GET /users/:id", { params: { id: 1 } }),
);
console.log(`  resolved: ${user.firstName}`);
try {
  await orThrow(grab("GET /users/:id", { params: { id: 3 } }));
} catch (error) {
  console.log(`  rejected: ${(error as Error).message}`);
}

const api = createGrab(base, { format: "json-api", casing: "camelCase" });
show(
  'JSON:API read: api("GET /articles/1")  (compound document, denormalised)',
  await api("GET /articles/1"),
);
show(
  "JSON:API write: a flat resource, serialised to a document",
  await api("POST /articles", {
    body: {
      type: "articles",
      title: "Fresh",
      wordCount: 3,
      author: { type: "people", id: "9" },
    },
  }),
);
console.log("\n▶ JSON:API write without a type  (validation error)");
try {
  await api("POST /articles", { body: { title: "untyped" } });
} catch (error) {
  if (isGrabValidationError(error)) {
    for (const issue of error.issues) {
      console.log(`  ${JSON.stringify(issue.path)}: ${issue.message}`);
    }
  }
}

console.log('\n▶ grab("GET /chat", { responseType: "sse" })  (a live stream)');
const [events, streamError] = await grab("GET /chat", { responseType: "sse" });
if (streamError) throw streamError;
if (events === null) throw new Error("No stream: the server sent 204");
let reply = "";
for await (const { data } of events) {
  if (data === "[DONE]") break;
  reply += JSON.parse(data).delta;
}
console.log(`  reply  ${reply}  (stream.error ${events.error})`);
