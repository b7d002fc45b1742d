/**
 * grab's npm form (built here by tools/npm_build.ts, as the runtime matrix
 * builds it) as a CommonJS project takes it after `npx jsr add @grab/grab`:
 * `require()` on Node and Bun, down every path that loads a module on first
 * use, the README's CommonJS snippets, and the TypeScript settings the README
 * names, with the oldest and the newest TypeScript the matrix installs. Each
 * program runs in a child process against a server of this process.
 *
 * @module
 */

import { assert, assertEquals, assertMatch } from "@std/assert";
import { startServer, type TestServer } from "./_server.ts";
import { execute, type Ran } from "./_command.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const TOOLS = Deno.env.get("GRAB_TOOLS") ?? `${ROOT}.ci/.tools/runtimes`;
const BIN = `${TOOLS}/node_modules/.bin`;
const tsc = (compiler: string) => `${TOOLS}/node_modules/${compiler}/bin/tsc`;

async function present(file: string): Promise<boolean> {
  try {
    await Deno.stat(file);
    return true;
  } catch {
    return false;
  }
}

// CI installs the tools before the tests run (.ci/run): there a missing one
// fails the test rather than skipping it.
const MISSING = Deno.env.get("CI")
  ? undefined
  : (await present(`${BIN}/esbuild`) && await present(`${BIN}/bun`) &&
      await present(tsc("typescript")) &&
      await present(tsc("typescript-oldest")) &&
      (await execute("node", ["--version"]).catch(() => undefined))?.success)
  ? undefined
  : "node, or the matrix's tools (.ci/install-runtimes), are not installed";

/** A Node project's directory: `package.json` of CommonJS and `files`. */
async function writeFiles(
  dir: string,
  files: Record<string, string>,
): Promise<void> {
  // The test itself may not write: a child with every permission does.
  const wrote = await execute(Deno.execPath(), [
    "eval",
    `for (const [name, text] of Object.entries(JSON.parse(Deno.env.get("GRAB_FILES")))) Deno.writeTextFileSync(${
      JSON.stringify(dir)
    } + "/" + name, text);`,
  ], { env: { GRAB_FILES: JSON.stringify(files) } });
  assert(wrote.success, wrote.stderr);
}

/**
 * Runs `use` in a temporary CommonJS project with the package built into its
 * node_modules, as `npx jsr add @grab/grab` installs it; removed after.
 */
async function withProject(use: (dir: string) => Promise<void>) {
  const made = await execute(Deno.execPath(), [
    "eval",
    'console.log(Deno.makeTempDirSync({ prefix: "grab_cjs_" }))',
  ]);
  assert(made.success, made.stderr);
  const dir = made.stdout.trim();
  try {
    const built = await execute(Deno.execPath(), [
      "run",
      "--allow-read",
      `--allow-write=${dir}`,
      "--allow-run",
      "--allow-env",
      "tools/npm_build.ts",
      `${dir}/node_modules/@grab/grab`,
    ]);
    assert(built.success, built.stderr || built.stdout);
    await writeFiles(dir, { "package.json": '{ "type": "commonjs" }\n' });
    await use(dir);
  } finally {
    const removed = await execute(Deno.execPath(), [
      "eval",
      `Deno.removeSync(${JSON.stringify(dir)}, { recursive: true })`,
    ]);
    assert(removed.success, removed.stderr);
  }
}

function api(): TestServer {
  return startServer({
    "/json": () => Response.json({ ok: true }),
    "/live": () =>
      new Response("data: 1\n\ndata: 2\n\n", {
        headers: { "content-type": "text/event-stream" },
      }),
    "/article": () =>
      Response.json({
        data: { type: "articles", id: "1", attributes: { title: "T" } },
      }),
    "/upload": (_request, seen) => Response.json({ length: seen.body.length }),
  });
}

/** The JSON line a program wrote last. */
function outcome(ran: Ran): unknown {
  assert(ran.success, ran.stderr || ran.stdout);
  return JSON.parse(ran.stdout.trim().split("\n").at(-1)!);
}

// Every path that loads a module on first use: JSON:API, a live stream, a
// counted upload.
const EVERY_PATH = `
const grab = require("@grab/grab");
(async () => {
  const base = process.argv[2];
  const api = grab.default(base);
  const [json] = await grab.orThrow(api("GET /json"));
  const [live] = await grab.orThrow(api("GET /live", { responseType: "sse" }));
  const sse = [];
  for await (const event of live) sse.push(event.data);
  const articles = grab.createGrab(base, { format: "json-api" });
  const [article] = await grab.orThrow(articles("GET /article"));
  let told = false;
  const [upload] = await grab.orThrow(api("POST /upload", {
    body: "x".repeat(1000),
    onUploadProgress: () => { told = true; },
  }));
  console.log(JSON.stringify({
    same: grab.default === grab.createGrab,
    json, sse, article, upload, told,
  }));
})().catch((error) => { console.error(error); process.exit(1); });
`;

Deno.test({
  name: "require() of the npm form grabs down every lazy path on Node and Bun" +
    (MISSING ? ` (skipped: ${MISSING})` : ""),
  ignore: MISSING !== undefined,
  async fn(t) {
    await using server = api();
    await withProject(async (dir) => {
      await writeFiles(dir, { "every_path.cjs": EVERY_PATH });
      for (const runtime of ["node", `${BIN}/bun`]) {
        await t.step(runtime.split("/").at(-1)!, async () => {
          const ran = await execute(runtime, ["every_path.cjs", server.url], {
            cwd: dir,
          });
          assertEquals(outcome(ran), {
            same: true,
            json: { ok: true },
            sse: ["1", "2"],
            article: { type: "articles", id: "1", title: "T" },
            upload: { length: 1000 },
            told: true,
          });
        });
      }
    });
  },
});

/** The `js` blocks of the README's CommonJS note, in order. */
async function readmeSnippets(): Promise<string[]> {
  const readme = await Deno.readTextFile(`${ROOT}README.md`);
  const start = readme.indexOf("- **CommonJS**");
  assert(start >= 0, "the README's install notes say nothing of CommonJS");
  const end = readme.indexOf("\n- **", start + 1);
  const note = readme.slice(start, end < 0 ? undefined : end);
  return [...note.matchAll(/```js\n([\s\S]*?)```/g)].map((m) =>
    m[1]!.replace(/^ {2}/gm, "")
  );
}

Deno.test({
  name: "the README's CommonJS snippets run as it says on Node and Bun" +
    (MISSING ? ` (skipped: ${MISSING})` : ""),
  ignore: MISSING !== undefined,
  async fn(t) {
    const [required, imported] = await readmeSnippets();
    assert(required?.includes("require(") && imported?.includes("import("));
    await using server = api();
    await withProject(async (dir) => {
      const use = "const [data] = await orThrow(createGrab(process.argv[2])" +
        '("GET /json"));\nconsole.log(JSON.stringify(data));';
      await writeFiles(dir, {
        "required.cjs": `${required}(async () => {\n${use}\n})();\n`,
        "imported.cjs": `(async () => {\n${imported}${use}\n})();\n`,
        "bare.cjs": 'require("@grab/grab");\n',
      });
      for (const runtime of ["node", `${BIN}/bun`]) {
        await t.step(`require() on ${runtime.split("/").at(-1)}`, async () => {
          const ran = await execute(runtime, ["required.cjs", server.url], {
            cwd: dir,
          });
          assertEquals(outcome(ran), { ok: true });
        });
      }
      // Node 20.19's flag to turn require(esm) off stands for an older Node.
      const old = "--no-experimental-require-module";
      await t.step(
        "a Node without require(esm) refuses require()",
        async () => {
          const ran = await execute("node", [old, "bare.cjs"], { cwd: dir });
          assert(!ran.success);
          assertMatch(ran.stderr, /ERR_REQUIRE_ESM/);
        },
      );
      await t.step("import() on a Node without require(esm)", async () => {
        const ran = await execute("node", [old, "imported.cjs", server.url], {
          cwd: dir,
        });
        assertEquals(outcome(ran), { ok: true });
      });
    });
  },
});

const DEFAULT_IMPORT = `import createGrab, { orThrow } from "@grab/grab";
export const first = orThrow(createGrab("http://127.0.0.1")("GET /json"));
`;
const DYNAMIC_IMPORT = `export async function first(): Promise<unknown> {
  const { default: createGrab, orThrow } = await import("@grab/grab");
  const [data] = await orThrow(createGrab("http://127.0.0.1")("GET /json"));
  return data;
}
`;

Deno.test({
  name: "a CommonJS TypeScript project types grab as the README says" +
    (MISSING ? ` (skipped: ${MISSING})` : ""),
  ignore: MISSING !== undefined,
  async fn(t) {
    await withProject(async (dir) => {
      await writeFiles(dir, {
        "default_import.ts": DEFAULT_IMPORT,
        "dynamic_import.ts": DYNAMIC_IMPORT,
      });
      const check = (
        compiler: string,
        module: string,
        resolution: string,
        file: string,
      ) =>
        execute("node", [
          tsc(compiler),
          "--noEmit",
          "--strict",
          "--exactOptionalPropertyTypes",
          "--target",
          "es2022",
          "--lib",
          "es2022,dom,dom.iterable",
          "--module",
          module,
          "--moduleResolution",
          resolution,
          file,
        ], { cwd: dir });
      await t.step("TypeScript 5.9, nodenext: the default import", async () => {
        const ran = await check(
          "typescript",
          "nodenext",
          "nodenext",
          "default_import.ts",
        );
        assert(ran.success, ran.stdout);
      });
      for (
        const [compiler, module] of [
          ["typescript", "node16"],
          ["typescript-oldest", "node16"],
          ["typescript-oldest", "nodenext"],
        ] as const
      ) {
        await t.step(
          `${compiler}, ${module}: TS1479, and import()`,
          async () => {
            const refused = await check(
              compiler,
              module,
              module,
              "default_import.ts",
            );
            assertMatch(refused.stdout, /TS1479/);
            const ran = await check(
              compiler,
              module,
              module,
              "dynamic_import.ts",
            );
            assert(ran.success, ran.stdout);
          },
        );
      }
      for (const compiler of ["typescript", "typescript-oldest"]) {
        await t.step(`${compiler}, node10: no types (TS2307)`, async () => {
          const ran = await check(
            compiler,
            "commonjs",
            "node10",
            "dynamic_import.ts",
          );
          assertMatch(ran.stdout, /TS2307/);
        });
      }
    });
  },
});
