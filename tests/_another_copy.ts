/**
 * A second copy of the module in the same program, as two versions of grab
 * installed side by side, or a bundle holding its own copy, give one.
 *
 * @module
 */

import { assert } from "@std/assert";

/** The module built as one file and loaded from it: its own classes and state. */
export async function anotherCopy(): Promise<typeof import("../mod.ts")> {
  const { success, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", new URL("../mod.ts", import.meta.url).href],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert(success, new TextDecoder().decode(stderr));
  const text = new TextDecoder().decode(stdout);
  return await import(`data:text/javascript,${encodeURIComponent(text)}`);
}
