/**
 * A Node user's TypeScript, type-checked by `tsc` against the `.d.ts` files
 * that the matrix builds (as JSR's npm layer would serve them), and by
 * `deno task check` against the source. Never run.
 *
 * @module
 */

import createGrab, {
  type GrabCallOptions,
  type GrabResult,
  type GrabStream,
  type GrabTransportError,
  isGrabHttpError,
  orThrow,
  paginate,
  type Progress,
  type ServerSentEvent,
} from "@grab/grab";

interface User {
  id: number;
  firstName: string;
}

export async function firstName(base: string): Promise<string | undefined> {
  const grab = createGrab(base, { casing: "camelCase", retry: 0 });
  const result: GrabResult<User> = await grab<User>("GET /users/:id", {
    params: { id: 1 },
  });
  const [user, error, meta] = result;
  if (error) {
    if (isGrabHttpError(error)) return `${error.statusCode}`;
    return error.kind;
  }
  const status: number = meta.statusCode;
  const [again] = await orThrow(grab<User>("GET /users/1"));
  const options: GrabCallOptions = { timeout: 1_000 };
  for await (const [page] of paginate<User[]>(grab, "GET /users", options)) {
    if (page.length === 0) break;
  }
  return user === null ? undefined : `${status} ${again.firstName}`;
}

/** Exact equality of two types: `true` only when `A` and `B` are the same. */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends
  (<T>() => T extends B ? 1 : 2) ? true : false;

export async function streamed(base: string): Promise<string> {
  const grab = createGrab(base);
  const [events, error] = await grab("GET /x", { responseType: "sse" });
  const isEvents: Equals<typeof events, GrabStream<ServerSentEvent> | null> =
    true;
  if (error) return error.message;
  if (events === null) return "no content";
  let text = "";
  for await (const event of events) {
    const data: string = event.data;
    text += `${event.event} ${event.id} ${data}`;
  }
  const failure: GrabTransportError | null = events.error;
  const resumeFrom: string = events.lastEventId;
  const [body] = await grab("GET /x", { responseType: "text" });
  const isText: Equals<typeof body, string | null> = true;
  const [rows] = await grab<{ id: number }>("GET /x", {
    responseType: "ndjson",
    onDownloadProgress: ({ loaded, total }: Progress) => void [loaded, total],
  });
  const isRows: Equals<typeof rows, GrabStream<{ id: number }> | null> = true;
  const [bytes] = await grab("GET /x", { responseType: "stream" });
  const isBytes: Equals<typeof bytes, ReadableStream<Uint8Array> | null> = true;
  await rows?.cancel();
  await bytes?.cancel();
  return [text, failure?.kind, resumeFrom, body, isEvents, isText, isRows]
    .concat(isBytes).join();
}

export async function typedInputs(
  base: string,
  given: { signal?: AbortSignal; timeout?: number },
): Promise<number> {
  const origins: readonly string[] = ["https://cdn.example.com"];
  const grab = createGrab(base, { trustedOrigins: origins });
  // @ts-expect-error: params missing for :id
  paginate(grab, "GET /users/:id/posts");
  // @ts-expect-error: no :q segment takes it
  await grab("GET /search", { params: { q: "x" } });
  let count = 0;
  for await (
    const [posts] of paginate<User[]>(grab, "GET /users/:id/posts", {
      params: { id: 1 },
      signal: given.signal,
      timeout: given.timeout,
    })
  ) count += posts.length;
  const options: GrabCallOptions = { timeout: 1_000 };
  const [user] = await grab<User>("GET /users/1", options);
  return count + (user?.id ?? 0);
}
