/**
 * A program written from the README, type-checked by the matrix with the
 * oldest and the newest TypeScript grab supports against the `.d.ts` files
 * JSR's npm layer serves, as a browser project (`"dom"`) and as a Node
 * project (`@types/node`, no `"dom"`) would; and by `deno task check`
 * against the source. Never run.
 *
 * @module
 */

import createGrab, {
  Call,
  type GrabCallOptions,
  type GrabOptions,
  type GrabResult,
  type GrabStream,
  isGrabHttpError,
  isGrabTransportError,
  jsonApiOf,
  orThrow,
  paginate,
  type ServerSentEvent,
} from "@grab/grab";

interface User {
  id: number;
  name: string;
}

/** Exact equality of two types: `true` only when `A` and `B` are the same. */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends
  (<T>() => T extends B ? 1 : 2) ? true : false;

/** A Standard Schema, as zod or valibot hands one over. */
const userSchema = {
  "~standard": {
    version: 1,
    vendor: "consumer",
    validate: (value: unknown) => ({ value: value as User }),
    types: undefined as unknown as { input: unknown; output: User },
  },
} as const;

export async function rest(base: string, token: string): Promise<string> {
  const options: GrabOptions = {
    headers: () => ({ authorization: `Bearer ${token}` }),
    redirect: "manual",
    credentials: "include",
    retry: 0,
  };
  const grab = createGrab(base, options);
  const headers = new Headers({ "x-trace": "1" });
  const [user, error, meta] = await grab<User>("GET /users/:id", {
    params: { id: 7 },
    query: { fields: ["id", "name"] },
    headers,
  });
  const typed: Equals<typeof user, User | null> = true;
  if (error) {
    if (isGrabHttpError(error)) return `${error.statusCode}`;
    return error.kind;
  }
  const [same] = await orThrow(grab<User>("GET /users/1", {
    headers: [["x-trace", "2"]],
  }));
  const [checked] = await grab("GET /users/1", { schema: userSchema });
  const validated: Equals<typeof checked, User | null> = true;
  const result: GrabResult<User> = await grab("GET /users/:id", {
    params: { id: 7 },
  });
  const call: GrabCallOptions = { headers: { "x-trace": undefined } };
  await grab("GET /users/1", call);
  let names = "";
  for await (
    const [page] of paginate<User[]>(grab, "GET /orgs/:org/users", {
      params: { org: "deno" },
      limit: 2,
    })
  ) names += page.map((one) => one.name).join();
  return [meta.statusCode, same.name, typed, validated, result[1]?.name, names]
    .join();
}

export async function streams(base: string): Promise<string> {
  const grab = createGrab(base);
  const [events] = await grab("GET /events", { responseType: "sse" });
  const sse: Equals<typeof events, GrabStream<ServerSentEvent> | null> = true;
  let text = "";
  for await (const event of events ?? []) text += event.data;
  const [bytes] = await grab("GET /file", { responseType: "stream" });
  await bytes?.cancel();
  return `${sse} ${text} ${events?.lastEventId}`;
}

export async function jsonApi(base: string): Promise<unknown> {
  const api = createGrab(base, { format: "json-api", casing: "camelCase" });
  const [article, error] = await api<{ title: string }>("GET /articles/:id", {
    params: { id: 1 },
    query: { include: ["author"], page: { size: 10 } },
  });
  if (error?.name === "GrabError") return error.errors?.[0]?.detail;
  if (isGrabTransportError(error)) return error.kind;
  return article ? jsonApiOf(article)?.links : undefined;
}

export async function health(base: string): Promise<number> {
  const outcome = await new Call("GET /health", base).send({ retry: 0 });
  return outcome.ok ? outcome.status : 0;
}

// A package that exports a grab names its type, as the README shows.
export const exported: ReturnType<
  typeof createGrab<{ casing: "camelCase" }>
> = createGrab("https://api.example.com", { casing: "camelCase" });
