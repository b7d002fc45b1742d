/**
 * Checking option values: the numbers that a wrong value would switch off
 * or overflow, the objects that a string would be misread as, the enums.
 * Every problem is an issue naming the option; `null` and `undefined` mean
 * none and pass.
 *
 * @module
 */

import type { ValidationIssue } from "./errors.ts";
import type { JsonApiOptions } from "./jsonapi/media_type.ts";
import { MAX_TIMER_DELAY } from "./retry.ts";
import type { StandardSchema } from "./schema.ts";

/**
 * Checks the options that a wrong value would turn off or make misbehave:
 * the numbers (`timeout`, `maxBodyBytes`, `retry`), `signal`, `fetch` and
 * `hooks`. Each problem is an issue naming the option; `null` and
 * `undefined` mean none and pass.
 */
export function checkOptions(
  options: object,
  factory = false,
): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const add = (name: string, wanted: string) =>
    issues.push({
      path: "",
      message: `Cannot use the option "${name}": it must be ${wanted}`,
    });
  const { maxBodyBytes, retry, signal, fetch, hooks } = options as Record<
    string,
    unknown
  >;
  checkShapes(options as Record<string, unknown>, add, factory);
  for (const name of ["timeout", "attemptTimeout"]) {
    const value = (options as Record<string, unknown>)[name];
    if (isSet(value) && value !== false && !isTimeout(value)) {
      add(name, `false, Infinity or a number from 1 to ${MAX_TIMER_DELAY}`);
    }
  }
  if (
    isSet(maxBodyBytes) && maxBodyBytes !== Infinity &&
    !isCount(maxBodyBytes)
  ) {
    add("maxBodyBytes", "a non-negative integer or Infinity");
  }
  if (isSet(retry) && !isCount(retry)) {
    if (typeof retry !== "object") {
      add("retry", "a non-negative integer or RetryOptions");
    } else checkRetry(retry as Record<string, unknown>, add);
  }
  if (isSet(signal) && !(signal instanceof AbortSignal)) {
    add("signal", "an AbortSignal");
  }
  for (const [name, value] of [["fetch", fetch], ...progressOf(options)]) {
    if (isSet(value) && typeof value !== "function") {
      add(name as string, "a function");
    }
  }
  for (const [name, allowed] of ENUMS) {
    const value = (options as Record<string, unknown>)[name];
    if (isSet(value) && !allowed.includes(value as string)) {
      add(
        name,
        allowed.map((v) => `"${v}"`).join(", ").replace(/, ([^,]*)$/, " or $1"),
      );
    }
  }
  if (isSet(hooks)) {
    if (typeof hooks !== "object") add("hooks", "an object of functions");
    else {
      for (const name of HOOK_NAMES) {
        const hook = (hooks as Record<string, unknown>)[name];
        if (isSet(hook) && typeof hook !== "function") {
          add(`hooks.${name}`, "a function");
        }
      }
    }
  }
  return issues;
}

/** The progress callbacks of `options`, with their names. */
function progressOf(options: object): [string, unknown][] {
  const { onDownloadProgress, onUploadProgress } = options as Record<
    string,
    unknown
  >;
  return [
    ["onDownloadProgress", onDownloadProgress],
    ["onUploadProgress", onUploadProgress],
  ];
}

const CASINGS = [
  "none",
  "camelCase",
  "snake_case",
  "kebab-case",
  "PascalCase",
] as const;

/**
 * Checks the options whose values are objects of a kind: a string where an
 * object belongs would otherwise be read character by character.
 */
function checkShapes(
  options: Record<string, unknown>,
  add: (name: string, wanted: string) => void,
  factory: boolean,
): void {
  const { headers, query, params, schema, jsonApi } = options;
  if (
    isSet(headers) && typeof headers !== "object" &&
    !(factory && typeof headers === "function")
  ) {
    add("headers", "a Headers, a record or a list of pairs");
  }
  if (isSet(query) && typeof query !== "object") {
    add("query", "an object or URLSearchParams");
  }
  if (isSet(params) && typeof params !== "object") {
    add("params", "an object");
  }
  if (
    isSet(schema) &&
    typeof (schema as StandardSchema)["~standard"]?.validate !== "function"
  ) {
    add("schema", "a Standard Schema (an object with ~standard.validate)");
  }
  if (isSet(jsonApi)) {
    const { ext, profile, headers: set } = jsonApi as JsonApiOptions;
    if (
      typeof jsonApi !== "object" || !isStrings(ext) || !isStrings(profile) ||
      (set !== undefined && typeof set !== "boolean")
    ) {
      add(
        "jsonApi",
        "{ ext?: string[], profile?: string[], headers?: boolean }",
      );
    }
  }
}

function isStrings(value: unknown): boolean {
  return value === undefined ||
    (Array.isArray(value) && value.every((item) => typeof item === "string"));
}

/** The options whose values are one of a few strings. */
const ENUMS: [string, readonly string[]][] = [
  ["format", ["json", "json-api"]],
  ["responseType", [
    "json",
    "text",
    "bytes",
    "blob",
    "stream",
    "sse",
    "ndjson",
  ]],
  ["casing", CASINGS],
  ["wireCasing", CASINGS],
  ["redirect", ["follow", "error", "manual"]],
  ["credentials", ["omit", "same-origin", "include"]],
];

const HOOK_NAMES = ["beforeRequest", "afterResponse", "beforeRetry"] as const;

function checkRetry(
  retry: Record<string, unknown>,
  add: (name: string, wanted: string) => void,
): void {
  const { limit, maxDelay, backoff, methods, statusCodes } = retry;
  if (isSet(limit) && !isCount(limit)) {
    add("retry.limit", "a non-negative integer");
  }
  if (
    isSet(maxDelay) &&
    !(typeof maxDelay === "number" && maxDelay >= 0)
  ) {
    add("retry.maxDelay", "a non-negative number or Infinity");
  }
  if (isSet(backoff) && typeof backoff !== "function") {
    add("retry.backoff", "a function");
  }
  if (
    isSet(methods) &&
    !(Array.isArray(methods) && methods.every((m) => typeof m === "string"))
  ) {
    add("retry.methods", "an array of methods");
  }
  if (
    isSet(statusCodes) &&
    !(Array.isArray(statusCodes) && statusCodes.every(Number.isInteger))
  ) {
    add("retry.statusCodes", "an array of status codes");
  }
}

function isTimeout(value: unknown): boolean {
  return value === Infinity ||
    (typeof value === "number" && value >= 1 && value <= MAX_TIMER_DELAY);
}

function isCount(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

/** True unless `value` is `undefined` or `null`, which mean "none" in options. */
function isSet<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}
