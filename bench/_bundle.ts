/**
 * Bundle sizes: grab for a JSON-only user and for its whole public API, and
 * the peers' npm packages whole, each bundled with esbuild as the issue
 * defines it (`--bundle --splitting --format=esm --minify
 * --platform=browser`), every output chunk gzipped at level 9.
 *
 * Which chunks count is read from esbuild's metafile: for the JSON-only user,
 * the entry chunk and every chunk it reaches through static `import`
 * statements (transitively), not the chunks reached only through a dynamic
 * `import()` (grab's JSON:API codec, loaded on first use); for the whole API
 * and the peers, every chunk reachable from the entry.
 *
 * @module
 */

import * as esbuild from "npm:esbuild@0.25.0";
import { gzipSync } from "node:zlib";
import { fromFileUrl, join } from "./_path.ts";

/** The esbuild version, for the method notes. */
export const ESBUILD_VERSION: string = esbuild.version;

/** How the chunks were gzipped (`gzip -9` when there is one, else zlib 9). */
export type Gzipper = "gzip -9" | "node:zlib level 9";

/** One bundle's size, or why there is none. */
export type BundleSize =
  | {
    name: string;
    /** Chunks counted (the entry and what it reaches, see the module). */
    chunks: number;
    /** Minified bytes of the counted chunks. */
    minBytes: number;
    /** Sum of the counted chunks' gzipped bytes. */
    gzipBytes: number;
    /** Chunks reached only through a dynamic `import()`, not counted. */
    lazy?: { chunks: number; minBytes: number; gzipBytes: number };
    /** The largest source files in the counted chunks, minified bytes. */
    topInputs: { path: string; bytes: number }[];
    /** Minified bytes from `src/jsonapi/` in the counted chunks. */
    jsonApiBytes: number;
  }
  | { name: string; failed: string };

/** The result of {@linkcode runBundles}. */
export interface BundleResults {
  sizes: BundleSize[];
  gzipper: Gzipper;
  /** The value exports of each `deno.json` entry, as bundled. */
  exportsByEntry: Record<string, string[]>;
}

/** The peers, as npm install specs (exact versions) and the name to import. */
export const PEERS: readonly { name: string; spec: string }[] = [
  { name: "ky", spec: "ky@2.1.0" },
  { name: "ofetch", spec: "ofetch@1.5.1" },
  { name: "wretch", spec: "wretch@3.0.9" },
  { name: "up-fetch", spec: "up-fetch@2.6.1" },
  { name: "@better-fetch/fetch", spec: "@better-fetch/fetch@1.3.3" },
];

/** The bundle names of grab's two measurements. */
export const JSON_ONLY = "grab (JSON-only user)";
/** See {@linkcode JSON_ONLY}. */
export const WHOLE_API = "grab (whole public API)";

const ROOT = fromFileUrl(new URL("../", import.meta.url));

function message(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0]!.slice(0, 160);
}

async function hasGzip(): Promise<boolean> {
  try {
    const out = await new Deno.Command("gzip", {
      args: ["--version"],
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch {
    return false;
  }
}

async function gzipSize(bytes: Uint8Array, gzipper: Gzipper): Promise<number> {
  if (gzipper === "node:zlib level 9") {
    return gzipSync(bytes, { level: 9 }).byteLength;
  }
  const child = new Deno.Command("gzip", {
    args: ["-9", "-n", "-c"],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const [, out] = await Promise.all([
    writer.write(bytes).then(() => writer.close()),
    child.output(),
  ]);
  if (!out.success) throw new Error("gzip failed");
  return out.stdout.byteLength;
}

type Metafile = esbuild.Metafile;

/**
 * The output chunks reachable from `entry`: through static imports only, and
 * through any import (static or dynamic).
 */
function reachable(
  meta: Metafile,
  entry: string,
): { staticChunks: Set<string>; allChunks: Set<string> } {
  const walk = (kinds: ReadonlySet<string>) => {
    const seen = new Set<string>([entry]);
    const queue = [entry];
    while (queue.length > 0) {
      const path = queue.pop()!;
      for (const imp of meta.outputs[path]?.imports ?? []) {
        if (imp.external || !kinds.has(imp.kind)) continue;
        if (!seen.has(imp.path)) {
          seen.add(imp.path);
          queue.push(imp.path);
        }
      }
    }
    return seen;
  };
  return {
    staticChunks: walk(new Set(["import-statement"])),
    allChunks: walk(new Set(["import-statement", "dynamic-import"])),
  };
}

async function bundle(
  name: string,
  dir: string,
  entrySource: string,
  count: "static" | "all",
  gzipper: Gzipper,
): Promise<BundleSize> {
  try {
    const safe = name.replace(/[^a-z0-9]+/gi, "_");
    const entry = `entry_${safe}.js`;
    const outdir = `out_${safe}`;
    await Deno.writeTextFile(join(dir, entry), entrySource);
    const result = await esbuild.build({
      entryPoints: [join(dir, entry)],
      absWorkingDir: dir,
      bundle: true,
      splitting: true,
      format: "esm",
      minify: true,
      platform: "browser",
      outdir: join(dir, outdir),
      metafile: true,
      write: true,
      logLevel: "silent",
    });
    const meta = result.metafile;
    const entryChunk = Object.keys(meta.outputs).find((path) =>
      meta.outputs[path]!.entryPoint === entry
    );
    if (entryChunk === undefined) throw new Error("no entry chunk");
    const { staticChunks, allChunks } = reachable(meta, entryChunk);
    const counted = count === "static" ? staticChunks : allChunks;
    const sizeOf = async (paths: Iterable<string>) => {
      let chunks = 0;
      let minBytes = 0;
      let gzipBytes = 0;
      for (const path of paths) {
        const bytes = await Deno.readFile(join(dir, path));
        chunks++;
        minBytes += bytes.byteLength;
        gzipBytes += await gzipSize(bytes, gzipper);
      }
      return { chunks, minBytes, gzipBytes };
    };
    const inputs = new Map<string, number>();
    for (const path of counted) {
      for (
        const [input, { bytesInOutput }] of Object.entries(
          meta.outputs[path]!.inputs,
        )
      ) {
        const absolute = fromFileUrl(new URL(input, `file://${dir}/`));
        const key = absolute.startsWith(ROOT)
          ? absolute.slice(ROOT.length)
          : absolute.includes("/node_modules/")
          ? absolute.slice(absolute.lastIndexOf("/node_modules/") + 14)
          : input;
        inputs.set(key, (inputs.get(key) ?? 0) + bytesInOutput);
      }
    }
    const topInputs = [...inputs].map(([path, bytes]) => ({ path, bytes }))
      .sort((a, b) => b.bytes - a.bytes).slice(0, 8);
    let jsonApiBytes = 0;
    for (const [path, bytes] of inputs) {
      if (path.startsWith("src/jsonapi/")) jsonApiBytes += bytes;
    }
    const size: BundleSize = {
      name,
      ...await sizeOf(counted),
      topInputs,
      jsonApiBytes,
    };
    const lazy = [...allChunks].filter((path) => !counted.has(path));
    if (lazy.length > 0) size.lazy = await sizeOf(lazy);
    return size;
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

/** The entries of `deno.json`'s `exports`, as absolute file paths by key. */
async function packageEntries(): Promise<Record<string, string>> {
  const config = JSON.parse(
    await Deno.readTextFile(join(ROOT, "deno.json")),
  ) as { exports?: string | Record<string, string> };
  const exports = typeof config.exports === "string"
    ? { ".": config.exports }
    : config.exports ?? {};
  const entries: Record<string, string> = {};
  for (const [key, path] of Object.entries(exports)) {
    entries[key] = join(ROOT, path);
  }
  return entries;
}

/**
 * The entry of a JSON-only user: `createGrab`, `orThrow` and the three guards
 * from `mod.ts`, each used, so none is tree-shaken away.
 */
function jsonOnlyEntry(mod: string): string {
  return `import {
  createGrab,
  isGrabHttpError,
  isGrabTransportError,
  isGrabValidationError,
  orThrow,
} from ${JSON.stringify(mod)};

const grab = createGrab("https://api.example.com/v1");

export async function user(id) {
  const [data, error] = await grab("GET /users/:id", { params: { id } });
  if (isGrabHttpError(error)) return { status: error.statusCode };
  if (isGrabTransportError(error)) return { offline: error.kind };
  if (isGrabValidationError(error)) return { invalid: error.issues };
  return data;
}

export function userOrThrow(id) {
  return orThrow(grab("GET /users/:id", { params: { id } }));
}
`;
}

/**
 * The entry of the whole public API: every value export of every entry,
 * imported by name and used (collected in one exported array).
 */
function wholeApiEntry(
  entries: Record<string, string>,
  exportsByEntry: Record<string, string[]>,
): string {
  const lines: string[] = [];
  const used: string[] = [];
  Object.entries(entries).forEach(([key, path], i) => {
    const names = exportsByEntry[key]!;
    const aliases = names.map((n) => `${n} as e${i}_${n}`);
    lines.push(
      `import { ${aliases.join(", ")} } from ${JSON.stringify(path)};`,
    );
    used.push(...names.map((n) => `e${i}_${n}`));
  });
  lines.push(`export const api = [${used.join(", ")}];`);
  return lines.join("\n") + "\n";
}

/**
 * Bundles grab (a JSON-only user, and the whole public API) and the peers
 * (each package whole). `log` gets progress lines.
 */
export async function runBundles(
  log: (line: string) => void,
): Promise<BundleResults> {
  const dir = await Deno.makeTempDir({ prefix: "grab-bench-bundle-" });
  const gzipper: Gzipper = await hasGzip() ? "gzip -9" : "node:zlib level 9";
  const sizes: BundleSize[] = [];
  const exportsByEntry: Record<string, string[]> = {};
  try {
    const entries = await packageEntries();
    for (const [key, path] of Object.entries(entries)) {
      const mod = await import(new URL(`file://${path}`).href);
      exportsByEntry[key] = Object.keys(mod).sort();
    }
    const mod = entries["."];
    if (mod === undefined) throw new Error('deno.json exports no "."');
    sizes.push(
      await bundle(JSON_ONLY, dir, jsonOnlyEntry(mod), "static", gzipper),
    );
    sizes.push(
      await bundle(
        WHOLE_API,
        dir,
        wholeApiEntry(entries, exportsByEntry),
        "all",
        gzipper,
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
        sizes.push({ name: peer.spec, failed: `n/a: npm install: ${why}` });
        continue;
      }
      const version = await installedVersion(dir, peer.name);
      sizes.push(
        await bundle(
          version ? `${peer.name}@${version}` : peer.spec,
          dir,
          `import * as api from ${
            JSON.stringify(peer.name)
          };\nexport default api;\n`,
          "all",
          gzipper,
        ),
      );
    }
  } finally {
    await esbuild.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  return { sizes, gzipper, exportsByEntry };
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
