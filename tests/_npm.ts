/**
 * The npm packages the tests use, pinned in one place. They are imported
 * by full specifier rather than mapped in `deno.json`: Deno installs every npm
 * package named in the import map, so a mapping would make `deno task demo`
 * download them too.
 *
 * @module
 */

export { default as fc } from "npm:fast-check@4.10.2";
export * as v from "npm:valibot@1.5.0";
export { z } from "npm:zod@4.6.7";
export { default as nodeFetch } from "npm:node-fetch@2.7.0";
export { Hono } from "npm:hono@4.13.19";
export { createParser } from "npm:eventsource-parser@4.1.3";
