import { assert, assertEquals } from "@std/assert";

const ROOT = new URL("..", import.meta.url);

/** Runs `deno` with `args`, killed if it outlasts `guardMs`. */
async function deno(
  args: string[],
  guardMs = 120_000,
): Promise<{ success: boolean; stdout: string; stderr: string }> {
  return await run(Deno.execPath(), args, guardMs);
}

async function run(
  command: string,
  args: string[],
  guardMs: number,
): Promise<{ success: boolean; stdout: string; stderr: string }> {
  const killer = new AbortController();
  const timer = setTimeout(() => killer.abort(), guardMs);
  try {
    const output = await new Deno.Command(command, {
      args,
      cwd: ROOT.pathname,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: killer.signal,
    }).output();
    const decoder = new TextDecoder();
    return {
      success: output.success,
      stdout: decoder.decode(output.stdout),
      stderr: decoder.decode(output.stderr),
    };
  } finally {
    clearTimeout(timer);
  }
}

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
  const expected = {
    outcomes: {
      "json-api": { type: "articles", id: "1", title: "T" },
      sse: ["1", "2"],
      ndjson: [{ n: 1 }, { n: 2 }],
      stream: "data: 1\n\ndata: 2\n\n",
      upload: { data: { sent: "hello" }, told: true },
    },
    unhandled: [],
  };
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
        "tests/_compiled_child.ts",
      ], 60_000);
      assert(ran.success, ran.stderr);
      const last = ran.stdout.trim().split("\n").at(-1)!;
      assertEquals(JSON.parse(last), expected);
    });
  }
});

Deno.test("the modules grab loads on first use import no module the core imports", async () => {
  // A bundle split into chunks puts a module both import in a chunk of its
  // own, which a JSON-only program then loads as well: what they need of
  // the core is handed to them as they load (type imports aside).
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
  const lazy: string[] = [];
  const reach = (root: string): Set<string> => {
    const seen = new Set([root]);
    for (const specifier of seen) {
      for (const dependency of modules.get(specifier)?.dependencies ?? []) {
        const target = dependency.code?.specifier;
        if (target === undefined) continue;
        if (dependency.isDynamic) lazy.push(target);
        else seen.add(target);
      }
    }
    return seen;
  };
  const core = reach(graph.roots[0]!);
  assertEquals(lazy.length, 3, "mod.ts loads three modules on first use");
  for (const root of lazy) {
    const shared = [...reach(root)].filter((specifier) => core.has(specifier));
    assertEquals(shared, [], `${root} imports modules of the core`);
  }
});
