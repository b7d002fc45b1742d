/**
 * What the programs of packaging_test.ts do with grab: one grab down each
 * path that loads a module on first use (the JSON:API codec, the module of
 * live bodies, upload progress), against the server at `base`. Nothing
 * here is Deno's, so a bundle of it runs in Node as well.
 *
 * @module
 */

import createGrab from "../mod.ts";

/** What each grab gave, or its error's name and message. */
export async function useLazyPaths(
  base: string,
): Promise<Record<string, unknown>> {
  const grab = createGrab(base, { retry: 0 });
  const outcomes: Record<string, unknown> = {};
  const failed = (error: Error) => `${error.name}: ${error.message}`;
  {
    const [data, error] = await grab("GET /article", { format: "json-api" });
    outcomes["json-api"] = error ? failed(error) : data;
  }
  {
    const [events, error] = await grab("GET /live", { responseType: "sse" });
    const seen: string[] = [];
    for await (const event of events ?? []) seen.push(event.data);
    outcomes.sse = error ? failed(error) : seen;
  }
  {
    const [values, error] = await grab("GET /lines", {
      responseType: "ndjson",
    });
    const seen: unknown[] = [];
    for await (const value of values ?? []) seen.push(value);
    outcomes.ndjson = error ? failed(error) : seen;
  }
  {
    const [body, error] = await grab("GET /live", { responseType: "stream" });
    outcomes.stream = error ? failed(error) : await new Response(body).text();
  }
  {
    const form = new FormData();
    form.set("name", "hello");
    let calls = 0;
    const [data, error] = await grab("POST /upload", {
      body: form,
      onUploadProgress: () => calls++,
    });
    outcomes.upload = error ? failed(error) : { data, told: calls > 0 };
  }
  return outcomes;
}
