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
  isGrabHttpError,
  orThrow,
  paginate,
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
