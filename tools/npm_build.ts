/**
 * Builds the module as JSR's npm layer serves it to Node and Bun: `mod.js`
 * (esbuild, one ES2022 bundle), `types/**\/*.d.ts` (tsc) with relative
 * specifiers ending in `.js`, and a `package.json` of `"type": "module"`
 * whose `exports` name both (and no `main` or `types` of its own, as JSR's has
 * none). The runtime matrix builds with it, and so do the tests that load the
 * package as a Node project does.
 *
 *     deno run --allow-read --allow-write=OUT --allow-run --allow-env tools/npm_build.ts OUT
 *
 * prints nothing and exits 0 when it built, else prints why and exits 1.
 *
 * @module
 */

const ROOT = new URL("../", import.meta.url);
const path = (relative: string): string => new URL(relative, ROOT).pathname;
const RUN_TIMEOUT = 180_000;

async function run(
  command: string,
  args: string[],
): Promise<{ code: number; output: string }> {
  const output = await new Deno.Command(command, {
    args,
    cwd: path("."),
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(RUN_TIMEOUT),
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.success ? 0 : (output.code || 1),
    output: decoder.decode(output.stdout) + decoder.decode(output.stderr),
  };
}

function tail(text: string, lines = 15): string {
  return text.trim().split("\n").slice(-lines).join("\n");
}

async function* declarations(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const full = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* declarations(full);
    else if (entry.name.endsWith(".d.ts")) yield full;
  }
}

/**
 * Builds the package into `out` with the esbuild and tsc of `tools` (the
 * matrix's `.ci/.tools/runtimes`); gives why it could not, or `undefined`.
 */
export async function buildNpm(
  tools: string,
  out: string,
): Promise<string | undefined> {
  const bundle = await run(`${tools}/node_modules/.bin/esbuild`, [
    "mod.ts",
    "--bundle",
    "--format=esm",
    "--target=es2022",
    "--platform=neutral",
    "--log-level=warning",
    `--outfile=${out}/mod.js`,
  ]);
  if (bundle.code !== 0) return `esbuild failed\n${tail(bundle.output)}`;
  // Not `.bin/tsc`: the oldest TypeScript installed names its binary alike.
  const types = await run("node", [
    `${tools}/node_modules/typescript/bin/tsc`,
    "mod.ts",
    "--declaration",
    "--emitDeclarationOnly",
    "--allowImportingTsExtensions",
    "--rewriteRelativeImportExtensions",
    "--target",
    "es2022",
    "--module",
    "nodenext",
    "--moduleResolution",
    "nodenext",
    "--lib",
    "es2022,dom,dom.iterable",
    "--strict",
    "--exactOptionalPropertyTypes",
    "--skipLibCheck",
    "--outDir",
    `${out}/types`,
  ]);
  if (types.code !== 0) {
    return `tsc --emitDeclarationOnly failed\n${tail(types.output)}`;
  }
  for await (const file of declarations(`${out}/types`)) {
    const text = await Deno.readTextFile(file);
    await Deno.writeTextFile(
      file,
      text.replace(/(from\s+["']\.{1,2}\/[^"']*)\.ts(["'])/g, "$1.js$2"),
    );
  }
  const config = JSON.parse(await Deno.readTextFile(path("deno.json")));
  await Deno.writeTextFile(
    `${out}/package.json`,
    JSON.stringify(
      {
        name: config.name,
        version: config.version,
        type: "module",
        exports: {
          ".": { types: "./types/mod.d.ts", default: "./mod.js" },
        },
      },
      null,
      2,
    ),
  );
  return undefined;
}

if (import.meta.main) {
  const out = Deno.args[0];
  const tools = Deno.env.get("GRAB_TOOLS") ?? path(".ci/.tools/runtimes");
  const failed = out === undefined
    ? "name the directory to build into"
    : await buildNpm(tools, out);
  if (failed !== undefined) {
    // deno-lint-ignore no-console
    console.error(failed);
    Deno.exit(1);
  }
}
