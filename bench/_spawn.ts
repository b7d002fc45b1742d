/**
 * Starts the benchmark server (`_server.ts`) as a separate Deno process.
 *
 * @module
 */

import { fromFileUrl } from "./_path.ts";

/** The running server. */
export interface Server {
  /** `http://127.0.0.1:<port>`. */
  base: string;
  stop: () => Promise<void>;
}

/** Starts `_server.ts` in its own process and waits for its port. */
export async function startServer(): Promise<Server> {
  const script = fromFileUrl(new URL("./_server.ts", import.meta.url));
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--quiet", "--no-config", "--allow-net=127.0.0.1", script],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream())
    .getReader();
  let buffered = "";
  while (!buffered.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) throw new Error("The server exited before printing its port");
    buffered += value;
  }
  const port = Number(buffered.trim().split("\n")[0]);
  if (!Number.isInteger(port) || port <= 0) {
    throw new Error(`The server printed ${JSON.stringify(buffered)}`);
  }
  const stdin = child.stdin.getWriter();
  return {
    base: `http://127.0.0.1:${port}`,
    stop: async () => {
      await stdin.close().catch(() => {});
      const timer = setTimeout(() => {
        try {
          child.kill("SIGTERM");
        } catch {
          // Already gone.
        }
      }, 3_000);
      await child.status;
      clearTimeout(timer);
      await reader.cancel().catch(() => {});
    },
  };
}
