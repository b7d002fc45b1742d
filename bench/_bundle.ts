/**
 * Bundle sizes: grab's `mod.ts` and the peers' npm packages, each bundled
 * whole (every export kept) with esbuild for the browser as minified ESM, then
 * gzipped at level 9.
 *
 * @module
 */

import * as esbuild from "npm:esbuild@0.25.0";
import { gzipSync } from "node:zlib";
import { fromFileUrl, join } from "./_path.ts";

/** One bundle's size, or why there is none. */
export type BundleSize =
  | { name: string; minBytes: number; gzipBytes: number }
  | { name: string; failed: string };

/** The peers, as npm install specs and the package name to import. */
export const PEERS: readonly { name: string; spec: string }[] = [
  { name: "ky", spec: "ky@2.1.0" },
  { name: "ofetch", spec: "ofetch@1.5.1" },
  { name: "wretch", spec: "wretch@3.0.9" },
  { name: "@better-fetch/fetch", spec: "@better-fetch/fetch" },
];

function message(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0]!.slice(0, 160);
}

async function bundle(
  name: string,
  dir: string,
  entrySource: string,
): Promise<BundleSize> {
  try {
    const safe = name.replace(/[^a-z0-9]+/gi, "_");
    const entry = join(dir, `entry_${safe}.js`);
    const outfile = join(dir, `out_${safe}.js`);
    await Deno.writeTextFile(entry, entrySource);
    await esbuild.build({
      entryPoints: [entry],
      absWorkingDir: dir,
      bundle: true,
      platform: "browser",
      format: "esm",
      minify: true,
      outfile,
      write: true,
      logLevel: "silent",
    });
    const bytes = await Deno.readFile(outfile);
    return {
      name,
      minBytes: bytes.byteLength,
      gzipBytes: gzipSync(bytes, { level: 9 }).byteLength,
    };
  } catch (error) {
    return { name, failed: `n/a: ${message(error)}` };
  }
}

async function npmInstall(dir: string, specs: string[]): Promise<string> {
  const out = await new Deno.Command("npm", {
    args: [
      "install",
      "--prefix",
      dir,
      "--no-audit",
      "--no-fund",
      "--no-save",
      "--loglevel=error",
      ...specs,
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  return out.success ? "" : new TextDecoder().decode(out.stderr).trim();
}

/**
 * Bundles grab (its whole public API, and `createGrab` alone) and the peers.
 * `log` gets progress lines.
 */
export async function runBundles(
  log: (line: string) => void,
): Promise<BundleSize[]> {
  const dir = await Deno.makeTempDir({ prefix: "grab-bench-bundle-" });
  const results: BundleSize[] = [];
  try {
    const mod = fromFileUrl(new URL("../mod.ts", import.meta.url));
    results.push(
      await bundle(
        "grab (whole API)",
        dir,
        `import * as api from ${JSON.stringify(mod)};\nexport default api;\n`,
      ),
    );
    results.push(
      await bundle(
        "grab (createGrab only)",
        dir,
        `export { createGrab } from ${JSON.stringify(mod)};\n`,
      ),
    );
    log("  installing the peers with npm");
    const failed = new Map<string, string>();
    let error = await npmInstall(dir, PEERS.map((p) => p.spec));
    if (error !== "") {
      // One bad spec fails the lot: retry one by one.
      for (const peer of PEERS) {
        error = await npmInstall(dir, [peer.spec]);
        if (error !== "") failed.set(peer.name, error.split("\n")[0]!);
      }
    }
    for (const peer of PEERS) {
      const why = failed.get(peer.name);
      if (why !== undefined) {
        results.push({ name: peer.spec, failed: `n/a: npm install: ${why}` });
        continue;
      }
      const version = await installedVersion(dir, peer.name);
      results.push(
        await bundle(
          version ? `${peer.name}@${version}` : peer.spec,
          dir,
          `import * as api from ${
            JSON.stringify(peer.name)
          };\nexport default api;\n`,
        ),
      );
    }
  } finally {
    await esbuild.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  return results;
}

async function installedVersion(
  dir: string,
  name: string,
): Promise<string | undefined> {
  try {
    const text = await Deno.readTextFile(
      join(dir, "node_modules", name, "package.json"),
    );
    return (JSON.parse(text) as { version?: string }).version;
  } catch {
    return undefined;
  }
}
