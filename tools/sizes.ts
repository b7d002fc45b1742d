/**
 * Size limits for `src/`, counted from the syntax tree: no file over 300
 * lines and no function (declaration, method, arrow or expression) over 70.
 * Prints every offender and exits with 1 when there is one.
 *
 * @module
 */
// deno-lint-ignore-file no-console

import ts from "npm:typescript@5.9.3";

const MAX_FILE_LINES = 300;
const MAX_FUNCTION_LINES = 70;

async function* sources(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* sources(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

const offenders: string[] = [];
const root = Deno.args[0] ?? "src";
for await (const path of sources(root)) {
  const text = await Deno.readTextFile(path);
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true);
  const lines = file.getLineAndCharacterOfPosition(file.end).line;
  if (lines > MAX_FILE_LINES) offenders.push(`${path}: ${lines} lines`);
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = file.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = file.getLineAndCharacterOfPosition(node.end).line;
      const length = end - start + 1;
      if (length > MAX_FUNCTION_LINES) {
        const name = (node as ts.FunctionDeclaration).name?.getText() ??
          "(anonymous)";
        offenders.push(`${path}:${start + 1}: ${name} is ${length} lines`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
}
for (const line of offenders.sort()) console.log(line);
if (offenders.length > 0) Deno.exit(1);
console.log(
  `${root}: every file ≤ ${MAX_FILE_LINES} lines, every function ≤ ${MAX_FUNCTION_LINES}`,
);
