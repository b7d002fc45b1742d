// deno-lint-ignore-file explicit-module-boundary-types -- plain JavaScript, run by Node and Bun
/**
 * Runs a program of its own on the runtime running this one (Node, Bun):
 * for a case about when a program ends, which the matrix's own program,
 * with its server, cannot show.
 *
 * @module
 */

import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

/**
 * A `runAlone(source, ...args)` that runs `source`, an ES module, with the
 * module's URL and `args` as its arguments, and gives its exit code and
 * output. Bounded in time: a program still running after 8 s is ended.
 *
 * @param {string} moduleHref the module under test
 */
export function aloneRunner(moduleHref) {
  return async (source, ...args) => {
    const dir = await mkdtemp(join(tmpdir(), "grab-alone-"));
    try {
      const file = join(dir, "program.mjs");
      await writeFile(file, source);
      return await new Promise((resolve) => {
        execFile(
          process.execPath,
          [file, moduleHref, ...args.map(String)],
          { timeout: 8_000 },
          (error, stdout, stderr) =>
            resolve({ code: error ? error.code ?? 1 : 0, stdout, stderr }),
        );
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}
