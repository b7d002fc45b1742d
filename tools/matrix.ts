// deno-lint-ignore-file no-console
/**
 * The runtime matrix: builds the module to plain ESM JavaScript with `.d.ts`
 * files (as JSR's npm layer serves it), type-checks a consumer against those
 * types, then runs the conformance cases of `tests/runtimes/conformance.mjs`
 * on Deno, Node, Bun, Chromium and workerd, each against a real server on
 * 127.0.0.1. Prints a table (runtime, version, result) and exits 1 when a
 * runtime that is installed fails. A runtime that is not installed is
 * SKIPPED with the reason.
 *
 * The tools come from `.ci/.tools/runtimes` (installed by
 * `.ci/install-runtimes`; `GRAB_TOOLS` overrides the place) and Chromium
 * from `/usr/bin/chromium` (`CHROMIUM` overrides it).
 *
 *     deno task matrix
 *
 * @module
 */

import { CASES } from "../tests/runtimes/conformance.mjs";
import { REQUEST_CASE_COUNT } from "../tests/runtimes/requests.mjs";
import { buildNpm } from "./npm_build.ts";

const ROOT = new URL("../", import.meta.url);
const path = (relative: string): string => new URL(relative, ROOT).pathname;

const TOOLS = Deno.env.get("GRAB_TOOLS") ?? path(".ci/.tools/runtimes");
const BIN = `${TOOLS}/node_modules/.bin`;
// Not `.bin/tsc`: the oldest TypeScript installed names its binary alike.
const TSC = `${TOOLS}/node_modules/typescript/bin/tsc`;
const BUILD = path(".ci/.tools/build");
const NPM = `${BUILD}/npm`;
const CHROMIUM = Deno.env.get("CHROMIUM") ?? "/usr/bin/chromium";
const RUN_TIMEOUT = 180_000;
const CASE_COUNT = CASES.length + 1; // the import check comes first
// workerd runs the cases of requests sent to one Worker at once too.
const WORKERD_CASE_COUNT = CASE_COUNT + REQUEST_CASE_COUNT;

type Status = "PASS" | "FAIL" | "SKIPPED";

interface Row {
  runtime: string;
  version: string;
  status: Status;
  passed: number;
  failed: number;
  detail: string;
  seconds: number;
}

interface CaseResult {
  name: string;
  ok: boolean;
  message?: string;
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

async function exists(file: string): Promise<boolean> {
  try {
    await Deno.stat(file);
    return true;
  } catch {
    return false;
  }
}

async function run(
  command: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<Ran> {
  const child = new Deno.Command(command, {
    args,
    cwd: path("."),
    env: { NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(RUN_TIMEOUT),
  }).spawn();
  const output = await child.output();
  const decoder = new TextDecoder();
  return {
    code: output.success ? 0 : (output.code || 1),
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

async function version(command: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(command, args);
    return stdout.trim().split("\n")[0] ?? "?";
  } catch {
    return "?";
  }
}

function tail(text: string, lines = 15): string {
  return text.trim().split("\n").slice(-lines).join("\n");
}

// The `{ "results": [...] }` line a driver prints last.
function parseResults(ran: Ran): CaseResult[] | string {
  const line = ran.stdout.trim().split("\n").reverse().find((text) =>
    text.startsWith('{"results"')
  );
  if (line === undefined) {
    return `no results (exit ${ran.code})\n${tail(ran.stderr || ran.stdout)}`;
  }
  return (JSON.parse(line) as { results: CaseResult[] }).results;
}

function fromResults(
  runtime: string,
  runtimeVersion: string,
  ran: Ran,
  expected = CASE_COUNT,
): Omit<Row, "seconds"> {
  const results = parseResults(ran);
  if (typeof results === "string") {
    return {
      runtime,
      version: runtimeVersion,
      status: "FAIL",
      passed: 0,
      failed: expected,
      detail: results,
    };
  }
  const failures = results.filter((result) => !result.ok);
  const missing = expected - results.length;
  const failed = ran.code === 0 && failures.length === 0 && missing === 0;
  return {
    runtime,
    version: runtimeVersion,
    status: failed ? "PASS" : "FAIL",
    passed: results.length - failures.length,
    failed: failures.length + Math.max(missing, 0),
    detail: failures.map((result) => `${result.name}: ${result.message}`)
      .join("\n") +
      (missing > 0 ? `\n${missing} cases did not report` : ""),
  };
}

function skipped(runtime: string, reason: string): Omit<Row, "seconds"> {
  return {
    runtime,
    version: "-",
    status: "SKIPPED",
    passed: 0,
    failed: 0,
    detail: reason,
  };
}

const NOT_INSTALLED = "not installed: run .ci/install-runtimes (or .ci/run)";

async function hasNode(): Promise<boolean> {
  try {
    return (await run("node", ["--version"])).code === 0;
  } catch {
    return false;
  }
}

// Builds .ci/.tools/build/npm as JSR's npm layer lays a package out (see
// tools/npm_build.ts).
async function build(): Promise<string | undefined> {
  if (!await exists(`${BIN}/esbuild`) || !await exists(TSC)) {
    return `esbuild or tsc ${NOT_INSTALLED}`;
  }
  await Deno.remove(BUILD, { recursive: true }).catch(() => {});
  return await buildNpm(TOOLS, NPM);
}

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) {
      await copyDir(`${from}/${entry.name}`, `${to}/${entry.name}`);
    } else {
      await Deno.copyFile(`${from}/${entry.name}`, `${to}/${entry.name}`);
    }
  }
}

// tsc on consumers that import "@grab/grab" from node_modules, the way a
// project that ran `npx jsr add @grab/grab` sees the package: with the
// oldest TypeScript the README supports and the newest, as a browser project
// (the DOM library) and a Node project (`@types/node`, no DOM), each as strict
// as a project makes it, and checking grab's `.d.ts` (no skipLibCheck).
const COMPILERS = ["typescript-oldest", "typescript"];
const CONSUMERS = ["consumer_types.ts", "consumer_readme.ts"];
const STRICT = {
  noEmit: true,
  // A package's exports must be nameable in its declarations.
  declaration: true,
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noPropertyAccessFromIndexSignature: true,
  isolatedModules: true,
  verbatimModuleSyntax: true,
  skipLibCheck: false,
  target: "es2022",
};
const PROJECTS = {
  "browser, bundler": {
    lib: ["dom", "dom.iterable", "es2022"],
    types: [],
    module: "esnext",
    moduleResolution: "bundler",
  },
  "browser, nodenext": {
    lib: ["dom", "dom.iterable", "es2022"],
    types: [],
    module: "nodenext",
    moduleResolution: "nodenext",
  },
  "node, no DOM": {
    lib: ["es2022"],
    types: ["node"],
    typeRoots: [`${TOOLS}/node_modules/@types`],
    module: "nodenext",
    moduleResolution: "nodenext",
  },
};

async function checkTypes(): Promise<Omit<Row, "seconds">> {
  const versions: string[] = [];
  for (const compiler of COMPILERS) {
    const tsc = `${TOOLS}/node_modules/${compiler}/bin/tsc`;
    if (!await exists(tsc)) {
      return skipped("tsc (.d.ts)", `${compiler} ${NOT_INSTALLED}`);
    }
    versions.push(
      (await version("node", [tsc, "--version"])).replace("Version ", ""),
    );
  }
  const consumer = `${BUILD}/consumer`;
  await copyDir(NPM, `${consumer}/node_modules/@grab/grab`);
  for (const file of CONSUMERS) {
    await Deno.copyFile(path(`tests/runtimes/${file}`), `${consumer}/${file}`);
  }
  await Deno.writeTextFile(
    `${consumer}/package.json`,
    '{ "type": "module" }\n',
  );
  // Each project has its own config; every compile runs at once.
  const runs = Object.entries(PROJECTS).flatMap(([name, options], p) => {
    const config = `${consumer}/tsconfig.${p}.json`;
    const written = Deno.writeTextFile(
      config,
      JSON.stringify({
        compilerOptions: { ...STRICT, ...options },
        files: CONSUMERS,
      }),
    );
    return COMPILERS.map(async (compiler, i) => {
      await written;
      const tsc = `${TOOLS}/node_modules/${compiler}/bin/tsc`;
      const ran = await run("node", [tsc, "-p", config]);
      return ran.code === 0
        ? undefined
        : `typescript ${versions[i]}, ${name}:\n${
          tail(ran.stdout + ran.stderr)
        }`;
    });
  });
  const failures = (await Promise.all(runs)).filter((f) => f !== undefined);
  const passed = runs.length - failures.length;
  return {
    runtime: "tsc (.d.ts)",
    version: `typescript ${versions.join(", ")}`,
    status: failures.length === 0 ? "PASS" : "FAIL",
    passed,
    failed: failures.length,
    detail: failures.join("\n"),
  };
}

async function deno(): Promise<Omit<Row, "seconds">> {
  const ran = await run(Deno.execPath(), [
    "run",
    "--no-lock",
    "--allow-net=127.0.0.1",
    "--allow-read=.",
    "tests/runtimes/run_conformance.mjs",
    "./mod.ts",
  ]);
  return fromResults("deno (mod.ts)", Deno.version.deno, ran);
}

async function node(buildError?: string): Promise<Omit<Row, "seconds">> {
  if (!await hasNode()) return skipped("node", "node is not on PATH");
  if (buildError) return skipped("node", buildError);
  const nodeVersion = await version("node", ["--version"]);
  const ran = await run("node", [
    "--test",
    "--test-reporter=tap",
    "tests/runtimes/node_suite.mjs",
  ], { GRAB_MODULE: `${NPM}/mod.js` });
  const count = (name: string): number =>
    Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(ran.stdout)?.[1] ?? 0);
  const passed = count("pass");
  const failed = count("fail") + count("cancelled");
  const notOk = ran.stdout.split("\n").filter((line) =>
    /^not ok \d+/.test(line)
  );
  const complete = passed + failed === CASE_COUNT;
  return {
    runtime: "node (node --test)",
    version: nodeVersion,
    status: ran.code === 0 && failed === 0 && complete ? "PASS" : "FAIL",
    passed,
    failed: complete ? failed : CASE_COUNT - passed,
    detail: notOk.length > 0
      ? notOk.join("\n")
      : (ran.code === 0 && complete ? "" : tail(ran.stdout + ran.stderr)),
  };
}

async function bun(buildError?: string): Promise<Omit<Row, "seconds">> {
  if (!await exists(`${BIN}/bun`)) {
    return skipped("bun", `bun ${NOT_INSTALLED}`);
  }
  if (buildError) return skipped("bun", buildError);
  const bunVersion = await version(`${BIN}/bun`, ["--version"]);
  const ran = await run(`${BIN}/bun`, [
    "tests/runtimes/run_conformance.mjs",
    `${NPM}/mod.js`,
  ]);
  return fromResults("bun", bunVersion, ran);
}

async function chromium(buildError?: string): Promise<Omit<Row, "seconds">> {
  const name = "chromium (playwright)";
  if (!await exists(CHROMIUM)) {
    return skipped(
      name,
      `${CHROMIUM} not found: .ci/run installs it with apt-get install chromium (needs root and apt)`,
    );
  }
  if (!await exists(`${TOOLS}/node_modules/playwright-core`)) {
    return skipped(name, `playwright-core ${NOT_INSTALLED}`);
  }
  if (!await hasNode()) return skipped(name, "node is not on PATH");
  if (buildError) return skipped(name, buildError);
  const browserVersion = (await version(CHROMIUM, ["--version"])).replace(
    / built on .*/,
    "",
  );
  const ran = await run("node", [
    "tests/runtimes/browser_driver.mjs",
    `${NPM}/mod.js`,
    TOOLS,
  ], { CHROMIUM });
  return fromResults(name, browserVersion, ran);
}

async function workerd(buildError?: string): Promise<Omit<Row, "seconds">> {
  const name = "workerd (miniflare)";
  if (!await exists(`${TOOLS}/node_modules/miniflare`)) {
    return skipped(name, `miniflare ${NOT_INSTALLED}`);
  }
  if (!await hasNode()) return skipped(name, "node is not on PATH");
  if (buildError) return skipped(name, buildError);
  const workerdVersion = await version(`${BIN}/workerd`, ["--version"]);
  const ran = await run("node", [
    "tests/runtimes/worker_driver.mjs",
    `${NPM}/mod.js`,
    TOOLS,
  ]);
  return fromResults(name, workerdVersion, ran, WORKERD_CASE_COUNT);
}

async function timed(
  name: string,
  step: () => Promise<Omit<Row, "seconds">>,
): Promise<Row> {
  const start = performance.now();
  let row: Omit<Row, "seconds">;
  try {
    row = await step();
  } catch (error) {
    row = {
      runtime: name,
      version: "?",
      status: "FAIL",
      passed: 0,
      failed: CASE_COUNT,
      detail: String(error),
    };
  }
  const seconds = (performance.now() - start) / 1000;
  const mark = row.status === "PASS" ? "ok" : row.status;
  console.log(
    `matrix: ${row.runtime} ${mark} (${row.passed}/${
      row.passed + row.failed
    }, ${seconds.toFixed(1)} s)`,
  );
  return { ...row, seconds };
}

function table(rows: Row[]): string {
  const head = ["runtime", "version", "result", "time", "note"];
  const body = rows.map((row) => [
    row.runtime,
    row.version,
    row.status === "SKIPPED"
      ? "SKIPPED"
      : `${row.status} ${row.passed}/${row.passed + row.failed}`,
    `${row.seconds.toFixed(1)} s`,
    row.status === "PASS" ? "" : (row.detail.split("\n")[0] ?? ""),
  ]);
  const widths = head.map((_, i) =>
    Math.max(...[head, ...body].map((cells) => cells[i]!.length))
  );
  const line = (cells: string[]): string =>
    `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(" | ")} |`;
  return [
    line(head),
    `|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`,
    ...body.map(line),
  ].join("\n");
}

const started = performance.now();
const rows: Row[] = [];
rows.push(await timed("deno", deno));
let buildError: string | undefined;
const buildRow = await timed("build", async () => {
  buildError = await build();
  if (buildError?.includes(NOT_INSTALLED)) {
    return skipped("build (esbuild + tsc)", buildError);
  }
  return {
    runtime: "build (esbuild + tsc)",
    version: (await version(`${BIN}/esbuild`, ["--version"])).replace(
      /^/,
      "esbuild ",
    ),
    status: buildError ? "FAIL" : "PASS",
    passed: buildError ? 0 : 1,
    failed: buildError ? 1 : 0,
    detail: buildError ?? "",
  };
});
rows.push(buildRow);
if (buildError === undefined) rows.push(await timed("tsc", checkTypes));
for (const step of [node, bun, chromium, workerd]) {
  rows.push(await timed(step.name, () => step(buildError)));
}

for (const row of rows) {
  if (row.detail && row.status !== "PASS") {
    console.log(`\n${row.runtime}: ${row.status}\n${row.detail}`);
  }
}
console.log(`\n${table(rows)}\n`);
const passed = rows.reduce((sum, row) => sum + row.passed, 0);
const failed = rows.reduce((sum, row) => sum + row.failed, 0);
const skippedCount = rows.filter((row) => row.status === "SKIPPED").length;
console.log(
  `matrix took ${((performance.now() - started) / 1000).toFixed(1)} s`,
);
console.log(
  `matrix: ${passed} passed, ${failed} failed, ${skippedCount} skipped`,
);
if (rows.some((row) => row.status === "FAIL")) Deno.exit(1);
