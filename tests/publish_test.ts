import { assert, assertEquals, assertMatch, assertNotMatch } from "@std/assert";

const ROOT = new URL("../", import.meta.url);

async function dryRun(): Promise<{ success: boolean; output: string }> {
  const { success, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["publish", "--dry-run", "--allow-dirty"],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return {
    success,
    output: decoder.decode(stdout) + decoder.decode(stderr),
  };
}

// The files a dry run lists, relative to the root: lines such as
// "   file:///…/src/call.ts (13.61KB)".
function listedFiles(output: string): string[] {
  const root = ROOT.href;
  return output.split("\n")
    .map((line) => /^\s*(file:\/\/\S+)\s+\([^)]*\)\s*$/.exec(line)?.[1])
    .filter((href): href is string => href !== undefined)
    .map((href) => decodeURIComponent(href.slice(root.length)))
    .sort();
}

async function sourceFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(new URL(dir, ROOT))) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) files.push(...await sourceFiles(path));
    else if (entry.name.endsWith(".ts")) files.push(path);
  }
  return files;
}

Deno.test("deno publish --dry-run", async (t) => {
  const { success, output } = await dryRun();

  await t.step("succeeds without slow types or warnings", () => {
    assert(success, output);
    assertMatch(output, /Dry run complete/);
    // Slow types are reported as `error[missing-explicit-type]` and the like.
    assertNotMatch(output, /warning|error\[/i);
  });

  await t.step(
    "ships exactly mod.ts, src/**/*.ts and the metadata",
    async () => {
      const expected = [
        "LICENSE",
        "README.md",
        "deno.json",
        "mod.ts",
        ...await sourceFiles("src"),
      ].sort();
      assertEquals(listedFiles(output), expected);
    },
  );

  await t.step("ships nothing from tests, bench, examples or tools", () => {
    const stray = listedFiles(output).filter((file) =>
      /^(tests|bench|examples|tools|\.ci|\.github)\//.test(file)
    );
    assertEquals(stray, []);
  });
});

Deno.test("deno.json", async (t) => {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", ROOT)),
  );

  await t.step("has the JSR metadata", () => {
    assertEquals(config.name, "@grab/grab");
    assertMatch(config.version, /^\d+\.\d+\.\d+(-[\w.]+)?$/);
    assertEquals(config.license, "MIT");
    assert(config.description.length > 20);
    assertEquals(config.exports, { ".": "./mod.ts" });
  });

  await t.step("excludes tests, benches and fixtures from publishing", () => {
    for (const dir of ["tests/", "bench/", "examples/"]) {
      assert(config.publish.exclude.includes(dir), dir);
    }
  });

  await t.step("CHANGELOG.md has an entry for the version", async () => {
    const changelog = await Deno.readTextFile(new URL("CHANGELOG.md", ROOT));
    assertMatch(changelog, new RegExp(`^## ${config.version}\\b`, "m"));
  });
});

Deno.test(".github/workflows/publish.yml", async (t) => {
  const workflow = await Deno.readTextFile(
    new URL(".github/workflows/publish.yml", ROOT),
  );

  await t.step("runs on a v* tag", () => {
    assertMatch(workflow, /^on:\n\s+push:\n\s+tags:\n\s+- "v\*"$/m);
  });

  await t.step("asks for an OIDC token and read-only contents", () => {
    assertMatch(
      workflow,
      /^permissions:\n(\s+\S+: \S+\n)*\s+id-token: write$/m,
    );
    assertMatch(
      workflow,
      /^permissions:\n(\s+\S+: \S+\n)*\s+contents: read$/m,
    );
    assertNotMatch(workflow, /contents: write/);
  });

  await t.step("publishes with the Deno pinned in .ci/deno-version", () => {
    assertMatch(workflow, /cat \.ci\/deno-version/);
    assertMatch(workflow, /^\s+run: deno publish$/m);
    assertNotMatch(workflow, /JSR_TOKEN|--token/);
  });
});
