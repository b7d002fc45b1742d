// deno-lint-ignore-file no-console
/**
 * One start-up of `bench/_startup.ts`: loads the client named by its first
 * argument, makes one GET of the JSON body at the base address its second
 * argument names, reads the body, and prints `performance.now()`: the
 * milliseconds since the runtime began, loading and the GET included.
 *
 * @module
 */

const [client, base] = Deno.args as [string, string];
const url = `${base}/item`;

async function get(): Promise<unknown> {
  switch (client) {
    case "raw": {
      const response = await fetch(url);
      return await response.json();
    }
    case "grab": {
      const { createGrab } = await import("../mod.ts");
      const [data, error] = await createGrab(base)("GET /item");
      if (error !== null) throw error;
      return data;
    }
    case "ofetch": {
      const { ofetch } = await import("npm:ofetch@1.5.1");
      return await ofetch(url);
    }
    case "ky": {
      const { default: ky } = await import("npm:ky@2.1.0");
      return await ky.get(url).json();
    }
    default:
      throw new Error(`No client named ${client}`);
  }
}

const data = await get();
if (typeof data !== "object" || data === null) {
  throw new Error(`${client} read ${JSON.stringify(data)}`);
}
console.log(performance.now());
