/**
 * Bundles the entry (first argument) with esbuild into the directory (second
 * argument) as one ES module, or split into chunks with `--splitting` (third
 * argument "split"), the way a user ships grab to Node or a browser, and
 * writes one JSON line with the names of the files written.
 *
 * @module
 */

import * as esbuild from "npm:esbuild@0.25.0";

const [entry, outdir, mode] = Deno.args as [string, string, string];
try {
  const built = await esbuild.build({
    entryPoints: [entry],
    outdir,
    bundle: true,
    splitting: mode === "split",
    format: "esm",
    platform: "neutral",
    minify: mode === "split",
    outExtension: { ".js": ".mjs" },
    logLevel: "error",
    metafile: true,
  });
  const written = Object.keys(built.metafile?.outputs ?? {});
  // deno-lint-ignore no-console
  console.log(JSON.stringify(written.map((path) => path.split("/").at(-1))));
} finally {
  await esbuild.stop();
}
