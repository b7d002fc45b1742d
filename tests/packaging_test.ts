/**
 * grab as users package and ship it: each path that loads a module on first
 * use (see src/lazy.ts) still works when the user's program is
 * bundled (deno bundle, esbuild, with and without chunks) and run in Deno
 * and Node, run in a Web Worker, or run offline from Deno's cache, and the
 * modules it loads so are in the graph `deno compile` embeds. One child
 * process per packaging mode, against one server of this process.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import { startServer, type TestServer } from "./_server.ts";
import { useLazyPaths } from "./_pack_uses.ts";
import { execute, type Ran } from "./_command.ts";

const ROOT = new URL("../", import.meta.url);
const PROGRAM = new URL("tests/_pack_program.ts", ROOT).pathname;

/** What `_pack_uses.ts` gives against {@linkcode api}, wherever it runs. */
const EXPECTED = {
  "json-api": { type: "articles", id: "1", title: "T" },
  sse: ["1", "2"],
  ndjson: [{ n: 1 }, { n: 2 }],
  stream: "data: 1\n\ndata: 2\n\n",
  upload: { data: { named: "hello" }, told: true },
};

function api(): TestServer {
  return startServer({
    "/live": () =>
      new Response("data: 1\n\ndata: 2\n\n", {
        headers: { "content-type": "text/event-stream" },
      }),
    "/lines": () => new Response('{"n":1}\n{"n":2}\n'),
    "/upload": (_request, seen) => {
      const named = /name="name"\r\n\r\n([^\r]*)\r\n/.exec(seen.body)?.[1];
      return Response.json({ named: named ?? null });
    },
    "/article": () =>
      Response.json({
        data: { type: "articles", id: "1", attributes: { title: "T" } },
      }),
  });
}

/** The modules grab loads on first use, as a bundle names their chunks. */
const CHUNK = /\b(format|streams|upload)-\w+\.m?js\b/g;

/** The chunks of lazily loaded modules a bundler's output names. */
function chunks(output: string): string[] {
  return [...new Set(output.match(CHUNK) ?? [])].map((name) =>
    name.split("-")[0]!
  ).sort();
}

const deno = (args: string[], env?: Record<string, string>) =>
  execute(Deno.execPath(), args, env ? { env } : {});

/** The JSON line a program wrote last. */
function outcomes(ran: Ran): unknown {
  assert(ran.success, ran.stderr || ran.stdout);
  return JSON.parse(ran.stdout.trim().split("\n").at(-1)!);
}

/**
 * Runs `use` with a temporary directory, removed after. The test itself may
 * not write, so a child with every permission makes and removes it.
 */
async function withTempDir(use: (dir: string) => Promise<void>) {
  const made = await deno([
    "eval",
    'console.log(Deno.makeTempDirSync({ prefix: "grab_pack_" }))',
  ]);
  assert(made.success, made.stderr);
  const dir = made.stdout.trim();
  try {
    await use(dir);
  } finally {
    const removed = await deno([
      "eval",
      `Deno.removeSync(${JSON.stringify(dir)}, { recursive: true })`,
    ]);
    assert(removed.success, removed.stderr);
  }
}

async function available(command: string, args: string[]): Promise<boolean> {
  try {
    return (await execute(command, args, {}, 10_000)).success;
  } catch {
    return false;
  }
}

const HAS_NODE = await available("node", ["--version"]);

/** Every `import("…")` in src/ (a type's `typeof import` aside). */
async function dynamicImports(): Promise<[file: string, specifier: string][]> {
  const found: [string, string][] = [];
  const walk = async (dir: URL): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
      if (entry.isDirectory) await walk(url);
      else if (entry.name.endsWith(".ts")) {
        const text = await Deno.readTextFile(url);
        for (const match of text.matchAll(/(typeof )?\bimport\(([^)]*)\)/g)) {
          if (match[1] === undefined) found.push([url.href, match[2]!.trim()]);
        }
      }
    }
  };
  await walk(new URL("src/", ROOT));
  return found;
}

Deno.test("the modules grab loads on first use are in the graph deno compile and deno bundle take", async () => {
  const imports = await dynamicImports();
  assertEquals(imports.length, 3, "src/ loads three modules on first use");
  // A specifier that is not a string literal is left out of the graph: a
  // compiled program would not hold the module it names.
  for (const [file, specifier] of imports) {
    assert(/^"[^"]+"$/.test(specifier), `${file}: import(${specifier})`);
  }
  const info = await deno(["info", "--json", "mod.ts"]);
  assert(info.success, info.stderr);
  const graph = JSON.parse(info.stdout) as {
    modules: {
      specifier: string;
      dependencies?: {
        specifier: string;
        isDynamic?: boolean;
        code?: { specifier?: string; error?: string };
      }[];
    }[];
  };
  const loaded = new Set(graph.modules.map((module) => module.specifier));
  for (const [file, specifier] of imports) {
    const module = graph.modules.find((module) => module.specifier === file);
    const dependency = module?.dependencies?.find((dependency) =>
      dependency.isDynamic && `"${dependency.specifier}"` === specifier
    );
    const target = dependency?.code?.specifier;
    assert(target !== undefined, `${file}: import(${specifier}) not resolved`);
    assertEquals(dependency?.code?.error, undefined);
    assert(loaded.has(target), `${target} is not in the graph`);
  }
});

Deno.test("a program without --allow-read loads the modules grab loads on first use", async (t) => {
  // What a compiled program embeds is the graph checked above; this runs
  // the program itself, as `deno compile` would ship it, with the same
  // permissions (building one needs its runtime binary from the network).
  await using server = api();
  for (
    const [name, flags] of [
      ["without --allow-read", []],
      ["with --allow-read", ["--allow-read"]],
    ] as const
  ) {
    await t.step(name, async () => {
      const ran = await deno([
        "run",
        "--no-check",
        "--allow-net=127.0.0.1",
        ...flags,
        PROGRAM,
        server.url,
      ]);
      assertEquals(outcomes(ran), EXPECTED);
    });
  }
});

/**
 * The modules `mod.ts` imports statically (the core), and the modules it
 * loads on first use, each with what it imports statically.
 */
async function moduleGraph(): Promise<{
  core: Set<string>;
  lazy: Map<string, Set<string>>;
}> {
  const info = await deno(["info", "--json", "mod.ts"]);
  assert(info.success, info.stderr);
  const graph = JSON.parse(info.stdout) as {
    roots: string[];
    modules: {
      specifier: string;
      dependencies?: {
        isDynamic?: boolean;
        code?: { specifier?: string };
      }[];
    }[];
  };
  const modules = new Map(graph.modules.map((m) => [m.specifier, m]));
  const roots: string[] = [];
  const reach = (root: string): Set<string> => {
    const seen = new Set([root]);
    for (const specifier of seen) {
      for (const dependency of modules.get(specifier)?.dependencies ?? []) {
        const target = dependency.code?.specifier;
        if (target === undefined) continue;
        if (dependency.isDynamic) roots.push(target);
        else seen.add(target);
      }
    }
    return seen;
  };
  const core = reach(graph.roots[0]!);
  const lazy = new Map(roots.map((root) => [root, reach(root)]));
  return { core, lazy };
}

Deno.test("the modules grab loads on first use import no module the core imports", async () => {
  // A bundle split into chunks puts a module both import in a chunk of its
  // own, which a JSON-only program then loads as well: what they need of
  // the core is handed to them as they load (type imports aside).
  const { core, lazy } = await moduleGraph();
  assertEquals(lazy.size, 3, "mod.ts loads three modules on first use");
  for (const [root, reached] of lazy) {
    const shared = [...reached].filter((specifier) => core.has(specifier));
    assertEquals(shared, [], `${root} imports modules of the core`);
  }
});

Deno.test("the code that opens a live body is loaded with the live bodies' module", async () => {
  // A JSON-only program never opens a live body: it does not load the code.
  const { core, lazy } = await moduleGraph();
  const opener = new URL("../src/live_open.ts", import.meta.url).href;
  const streams = new URL("../src/streams.ts", import.meta.url).href;
  assert(!core.has(opener), "mod.ts imports src/live_open.ts");
  assert(lazy.get(streams)?.has(opener), "src/streams.ts does not import it");
});

Deno.test("a program bundled with deno bundle grabs down every lazy path in Deno and Node", async (t) => {
  await using server = api();
  await withTempDir(async (dir) => {
    for (
      const [name, flags, entry] of [
        ["one file", ["--output", `${dir}/one/program.js`], "one/program.js"],
        [
          "code splitting",
          ["--code-splitting", "--outdir", `${dir}/split`],
          "split/_pack_program.js",
        ],
      ] as const
    ) {
      const built = await deno(["bundle", ...flags, PROGRAM]);
      assert(built.success, built.stderr);
      assertEquals(
        chunks(built.stderr),
        name === "one file" ? [] : ["format", "streams", "upload"],
      );
      await t.step(`${name}, in Deno`, async () => {
        const ran = await deno([
          "run",
          "--allow-net=127.0.0.1",
          `--allow-read=${dir}`,
          `${dir}/${entry}`,
          server.url,
        ]);
        assertEquals(outcomes(ran), EXPECTED);
      });
      await t.step({
        name: `${name}, in Node`,
        ignore: !HAS_NODE,
        async fn() {
          const ran = await execute("node", [`${dir}/${entry}`, server.url]);
          assertEquals(outcomes(ran), EXPECTED);
        },
      });
    }
  });
});

Deno.test({
  name: "a program bundled with esbuild grabs down every lazy path in Node" +
    (HAS_NODE ? "" : " (skipped: node is not on PATH)"),
  ignore: !HAS_NODE,
  async fn(t) {
    await using server = api();
    await withTempDir(async (dir) => {
      for (const mode of ["whole", "split"]) {
        await t.step(
          mode === "split" ? "--splitting" : "one file",
          async () => {
            const built = await deno([
              "run",
              "--allow-read",
              `--allow-write=${dir}`,
              "--allow-env",
              "--allow-run",
              "tests/_pack_esbuild.ts",
              PROGRAM,
              `${dir}/${mode}`,
              mode,
            ]);
            assert(built.success, built.stderr);
            assertEquals(
              chunks(String(outcomes(built))),
              mode === "split" ? ["format", "streams", "upload"] : [],
            );
            const entry = `${dir}/${mode}/_pack_program.mjs`;
            assertEquals(
              outcomes(await execute("node", [entry, server.url])),
              EXPECTED,
            );
          },
        );
      }
    });
  },
});

Deno.test("a Web Worker grabs down every lazy path", async () => {
  await using server = api();
  const worker = new Worker(new URL("./_pack_worker.ts", import.meta.url), {
    type: "module",
  });
  try {
    const answered = new Promise<unknown>((resolve, reject) => {
      worker.onmessage = (event) => resolve(event.data);
      worker.onerror = (event) => {
        event.preventDefault();
        reject(new Error(event.message));
      };
    });
    worker.postMessage(server.url);
    assertEquals(await answered, EXPECTED);
  } finally {
    worker.terminate();
  }
});

Deno.test("a program cached with deno cache grabs down every lazy path with --cached-only", async () => {
  // grab served over HTTP, as a registry serves it, into a cache of the
  // test's own: what `deno cache` fetched is all the program may load.
  await using server = api();
  let serving = true;
  await using modules = startServer(async (_request, seen) => {
    if (!serving) return new Response("offline", { status: 503 });
    const file = new URL(`.${seen.url.pathname}`, ROOT);
    return new Response(await Deno.readFile(file), {
      headers: { "content-type": "application/typescript" },
    });
  });
  await withTempDir(async (dir) => {
    const env = { DENO_DIR: dir };
    const program = `${modules.url}/tests/_pack_program.ts`;
    const host = new URL(modules.url).host;
    const cached = await deno(
      ["cache", "--no-config", `--allow-import=${host}`, program],
      env,
    );
    assert(cached.success, cached.stderr);
    serving = false;
    const ran = await deno([
      "run",
      "--no-config",
      "--cached-only",
      `--allow-import=${host}`,
      "--allow-net=127.0.0.1",
      program,
      server.url,
    ], env);
    assertEquals(outcomes(ran), EXPECTED);
  });
});

Deno.test("the program's grabs give the same in this process", async () => {
  await using server = api();
  assertEquals(await useLazyPaths(server.url), EXPECTED);
});
