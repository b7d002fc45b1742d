// Compile-time contract: checked by `deno check` (the `check` task and the
// test run's type check). Each `@ts-expect-error` fails the check when the
// line below it compiles.
import { assertEquals, fail } from "@std/assert";
import createGrab, {
  Call,
  type Endpoint,
  type GrabCallOptions,
  type GrabError,
  type GrabResult,
  GrabTransportError,
  type GrabValidationError,
  orThrow,
  paginate,
} from "../mod.ts";
import { json, startServer } from "./_server.ts";
import { type Row, rowSchema, same } from "./_types.ts";

// @ts-expect-error: lower-case method
const lower: Endpoint = "get /users";
// @ts-expect-error: unknown method
const unknown: Endpoint = "FETCH /users";
// @ts-expect-error: target neither absolute nor /-relative
const bare: Endpoint = "GET users";
// @ts-expect-error: ftp is not http(s)
const ftp: Endpoint = "GET ftp://example.com/file";
const good: Endpoint[] = [
  "GET /users",
  "PATCH https://api.example.com/users/1",
  "DELETE http://localhost/x",
  // White space the parser takes: a column of endpoints, a tab, a trailing space.
  "GET    /users",
  "OPTIONS\thttps://api.example.com",
  "GET /users ",
];

async function compileOnly(): Promise<void> {
  const grab = createGrab("https://api.example.com");
  // @ts-expect-error: options with params are required for :id
  await grab("GET /users/:id");
  // @ts-expect-error: missing param
  await grab("GET /users/:id", { params: {} });
  // @ts-expect-error: misspelt param
  await grab("GET /users/:id", { params: { ud: 1 } });
  // @ts-expect-error: a second param is missing
  await grab("GET /users/:id/posts/:postId", { params: { id: 1 } });
  await grab("GET /users/:id/posts/:postId", {
    params: { id: 1, postId: "a" },
  });
  await grab("GET https://api.example.com:8080/users/:id?x=1", {
    params: { id: 1 },
  });
  // @ts-expect-error: lower-case method
  await grab("post /users");
  // The names are those the parser fills: white space around the target,
  // a fragment holding "?", and a lone ":" segment take no part.
  await grab("GET    /users/:id ", { params: { id: 1 } });
  // @ts-expect-error: "id" is the name, not "id "
  await grab("GET /users/:id ", { params: { "id ": 1 } });
  await grab("GET\t/users/:id#top?x", { params: { id: 1 } });
  // @ts-expect-error: the fragment is no part of the name
  await grab("GET /users/:id#top?x", { params: { "id#top": 1 } });
  await grab("GET /files/:/latest");
  // A backslash ends a segment, as the URL parser reads it in an http(s) path.
  await grab("GET /a/:x\\b\\:y", { params: { x: 1, y: 2 } });
  // @ts-expect-error: "x\\b" is no name
  await grab("GET /a/:x\\b", { params: { "x\\b": 1 } });
  // A literal without :name segments takes no params: the run time refuses
  // one that no segment takes (a query value given as a parameter).
  // @ts-expect-error: no segment takes "q"
  await grab("GET /search", { params: { q: "deno" } });
  // @ts-expect-error: also with a response type
  await grab("GET /search", { responseType: "text", params: { q: "deno" } });
  // @ts-expect-error: also in paginate
  paginate(grab, "GET /search", { params: { q: "deno" } });
  await grab("GET /search", { params: {} });
  // Options typed GrabCallOptions still fit, and so does an endpoint built
  // from a string, which may hold any segment.
  const typedOptions: GrabCallOptions = { timeout: 1_000 };
  await grab("GET /search", typedOptions);
  const resource = String(typedOptions.timeout);
  await grab(`GET /${resource}`);
  await grab(`GET /${resource}`, { params: { id: 1 } });
  // A typed result keeps the endpoint inferred, and its params checked.
  // @ts-expect-error: params missing for :id
  const typed: GrabResult<{ name: string }> = await grab("GET /users/:id");
  void typed;

  const [data, error, meta] = await grab<{ name: string }>("GET /me");
  if (error) {
    const status: number | undefined = error.name === "GrabError"
      ? error.statusCode
      : undefined;
    // @ts-expect-error: data is null when error is set
    data.name;
    return void status;
  }
  const name: string = data.name;
  const code: number = meta.statusCode;
  void name, code;

  const result: GrabResult<number> = await grab<number>("GET /n");
  if (result[1] === null) {
    const n: number = result[0];
    void n;
  } else if (result[1] instanceof GrabTransportError) {
    const zero: 0 = result[2].statusCode;
    void zero;
  } else {
    const empty: GrabError = result[1];
    void empty;
  }
}

// paginate checks path parameters as a grab does, and types its pages from
// a schema or the factory's response type.
async function pages(options: GrabCallOptions): Promise<void> {
  const grab = createGrab("https://api.example.com");
  // @ts-expect-error: options with params are required for :id
  paginate(grab, "GET /users/:id/posts");
  // @ts-expect-error: misspelt param
  paginate(grab, "GET /users/:id/posts", { params: { ud: 1 } });
  // @ts-expect-error: params missing, also with a limit
  paginate(grab, "GET /users/:id/posts", { limit: 2 });
  paginate(grab, "GET /users/:id/posts", { params: { id: 1 }, limit: 2 });
  paginate(grab, "GET /posts", null);
  // `null` options mean none, in a grab and a send as in `paginate`.
  const [none] = await grab<Row>("GET /posts", null);
  same<typeof none, Row | null>(true);
  await new Call("GET /posts", "https://api.example.com").send(null);
  // @ts-expect-error: options with params are required for :id
  await grab("GET /users/:id", null);
  for await (
    const [page] of paginate(grab, "GET /rows", { schema: rowSchema })
  ) {
    same<typeof page, Row>(true);
  }
  const texts = createGrab("https://api.example.com", { responseType: "text" });
  for await (const [page] of paginate(texts, "GET /pages")) {
    same<typeof page, string | null>(true);
  }
  for await (const [page] of paginate<Row[]>(grab, "GET /rows", options)) {
    same<typeof page, Row[]>(true);
  }
  // Options in a variable typed GrabCallOptions, with an explicit data type.
  const [row] = await grab<Row>("GET /rows/1", options);
  same<typeof row, Row | null>(true);
}

// Every optional option takes `undefined` (as none), also with
// exactOptionalPropertyTypes, so optional values can be passed on; lists may
// be readonly.
const ORIGINS = ["https://cdn.example.com"] as const;
const EXTENSIONS = ["https://jsonapi.org/ext/atomic"] as const;
function forwarded(
  base: string,
  given: { signal?: AbortSignal; timeout?: number; limit?: number },
): Promise<GrabResult<unknown>> {
  const grab = createGrab(base, {
    trustedOrigins: ORIGINS,
    jsonApi: { ext: EXTENSIONS, profile: undefined, headers: undefined },
    timeout: given.timeout,
    retry: { limit: given.limit, backoff: undefined },
    hooks: { beforeRequest: undefined },
  });
  return grab("GET /me", { signal: given.signal, timeout: given.timeout });
}

/**
 * A class as another copy of the module (two versions in one program)
 * declares it: the same public members. A private member of its own would
 * make the class nominal, and that copy's errors and results unfit where
 * this copy's are expected.
 */
type FromAnotherCopy<T> = { [K in keyof T]: T[K] };

async function acrossCopies(
  http: FromAnotherCopy<GrabError>,
  transport: FromAnotherCopy<GrabTransportError>,
  validation: FromAnotherCopy<GrabValidationError>,
): Promise<void> {
  const errors: [GrabError, GrabTransportError, GrabValidationError] = [
    http,
    transport,
    validation,
  ];
  const failed: [null, FromAnotherCopy<GrabError>, Record<never, never>] = [
    null,
    http,
    {},
  ];
  await orThrow(Promise.resolve(failed));
  assertEquals(errors.length, 3);
}

Deno.test("types: endpoint and narrowing", async (t) => {
  await t.step("the compile-only function type-checks", () => {
    assertEquals(typeof compileOnly, "function");
    assertEquals(typeof acrossCopies, "function");
    assertEquals(typeof pages, "function");
    assertEquals([lower, unknown, bare, ftp].length, 4);
    assertEquals(good.length, 6);
  });

  await t.step("options given as undefined are none", async () => {
    await using server = startServer(() => json({ name: "Ada" }));
    const [data, error] = await forwarded(server.url, {});
    if (error) fail(error.message);
    assertEquals(data, { name: "Ada" });
  });

  await t.step("the params the types ask for are those filled", async () => {
    await using server = startServer(() => json({}));
    const grab = createGrab(server.url, { retry: 0 });
    const filled = [
      await grab("GET    /users/:id ", { params: { id: 1 } }),
      await grab("GET\t/users/:id#top?x", { params: { id: 2 } }),
      await grab("GET /files/:/latest"),
      await grab("GET /a/:x\\b\\:y", { params: { x: 3, y: 4 } }),
    ];
    for (const [, error] of filled) if (error) fail(error.message);
    assertEquals(
      server.requests.map(({ url }) => url.pathname),
      ["/users/1", "/users/2", "/files/:/latest", "/a/3/b/4"],
    );
  });

  await t.step("narrowing matches the run-time shapes", async () => {
    await using server = startServer(() => json({ name: "Ada" }));
    const grab = createGrab(server.url);
    const [data, error] = await grab<{ name: string }>("GET /me");
    if (error) fail(error.message);
    assertEquals(data.name, "Ada");
  });
});
