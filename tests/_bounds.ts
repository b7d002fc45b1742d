/**
 * Helpers for the bounds tests: a hang guard, tuple assertions and a runner
 * for child processes that measure memory.
 *
 * @module
 */

import {
  assert,
  assertEquals,
  AssertionError,
  assertIsError,
} from "@std/assert";
import {
  type GrabCallOptions,
  GrabError,
  GrabTransportError,
  GrabValidationError,
} from "../mod.ts";

/**
 * How long {@linkcode settles} waits before it calls a grab hung. It only
 * turns a hang into a failure; no test asserts how fast anything is.
 */
export const HANG_GUARD_MS = 10_000;

/**
 * The ways a body goes out: as given, through the counted upload of
 * `onUploadProgress`, and as a `Request` a `beforeRequest` hook may see.
 * Each takes its own path to `fetch`, so a check of the body must hold on
 * each.
 */
export const BODY_WAYS: readonly [string, GrabCallOptions][] = [
  ["plain", {}],
  ["with upload progress", { onUploadProgress: () => {} }],
  ["with a beforeRequest hook", { hooks: { beforeRequest: () => {} } }],
];

/**
 * Resolves as `promise` does, or fails when it has not settled after
 * {@linkcode HANG_GUARD_MS}. The guard timer is always cleared.
 */
export async function settles<T>(
  promise: Promise<T>,
  what = "the grab",
): Promise<T> {
  // A promise left behind by a failed guard must not become an unhandled
  // rejection later.
  promise.catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new AssertionError(
            `${what} did not settle within the ${HANG_GUARD_MS} ms hang guard`,
          ),
        ),
      HANG_GUARD_MS,
    );
  });
  try {
    return await Promise.race([promise, guard]);
  } finally {
    clearTimeout(timer);
  }
}

/** A result tuple, whatever its data type. */
export type AnyResult = readonly [unknown, unknown, unknown];

/** Asserts a transport failure tuple of `kind` and returns its error. */
export function assertTransport(
  result: AnyResult,
  kind: string,
): GrabTransportError {
  const [data, error, meta] = result;
  if (!(error instanceof GrabTransportError)) {
    throw new AssertionError(
      `expected a GrabTransportError of kind "${kind}", got ${
        Deno.inspect(error, { depth: 1 })
      }`,
    );
  }
  assertEquals(error.kind, kind);
  assertEquals(data, null);
  assertEquals(meta, { statusCode: 0 });
  return error;
}

/** Asserts an HTTP error tuple with `status` and returns its error. */
export function assertHttp(result: AnyResult, status: number): GrabError {
  const [data, error, meta] = result;
  if (!(error instanceof GrabError)) {
    throw new AssertionError(
      `expected a GrabError ${status}, got ${
        Deno.inspect(error, { depth: 1 })
      }`,
    );
  }
  assertEquals(error.statusCode, status);
  assertEquals(data, null);
  assertEquals(meta, {});
  return error;
}

/** Asserts a success tuple and returns its data. */
export function assertOk(result: AnyResult): unknown {
  const [data, error] = result;
  if (error !== null) {
    throw new AssertionError(
      `expected a success, got ${Deno.inspect(error, { depth: 1 })}`,
    );
  }
  return data;
}

/**
 * Asserts that `run` rejects (or throws) with a `GrabValidationError`, and,
 * when `option` is given, that the error names that option in its message
 * or in one of its issues.
 */
export async function assertValidation(
  run: () => unknown,
  option?: string,
): Promise<GrabValidationError> {
  let caught: unknown;
  let failed = false;
  try {
    await settles(Promise.resolve().then(run), "the validation");
  } catch (error) {
    failed = true;
    caught = error;
  }
  if (caught instanceof AssertionError) throw caught;
  assert(failed, "expected a GrabValidationError, but nothing was thrown");
  assertIsError(caught, GrabValidationError);
  if (option !== undefined) assertNames(caught, option);
  return caught;
}

/** Asserts that a validation error names `option`. */
export function assertNames(error: GrabValidationError, option: string): void {
  const texts = [
    error.message,
    ...error.issues.flatMap((issue) => [issue.message, issue.path]),
  ];
  assert(
    texts.some((text) => text.includes(option)),
    `the GrabValidationError should name "${option}": ${JSON.stringify(texts)}`,
  );
}

/**
 * Runs a script under tests/ in a child Deno process and parses the last
 * JSON line it writes to stdout. A child still running after `guardMs` is
 * killed and the call fails: only a hang guard, not a timing assertion.
 */
export async function runChild<T>(
  script: string,
  flags: string[],
  { args = [], guardMs = 60_000 }: { args?: string[]; guardMs?: number } = {},
): Promise<T> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-prompt",
      ...flags,
      new URL(script, import.meta.url).pathname,
      ...args,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    cwd: new URL("..", import.meta.url).pathname,
  }).spawn();
  const running = child.output();
  let output: Deno.CommandOutput;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    output = await Promise.race([
      running,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => {
          try {
            child.kill("SIGKILL");
          } catch {
            // Already gone.
          }
          reject(
            new AssertionError(
              `${script} did not finish within the ${guardMs} ms hang guard`,
            ),
          );
        }, guardMs);
      }),
    ]);
  } catch (error) {
    await running.catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
  const stdout = new TextDecoder().decode(output.stdout).trim();
  const stderr = new TextDecoder().decode(output.stderr).trim();
  if (!output.success || stdout === "") {
    throw new AssertionError(
      `${script} failed (exit code ${output.code}${
        output.signal ? `, ${output.signal}` : ""
      }):\n${stderr.slice(-2000)}\n${stdout.slice(-2000)}`,
    );
  }
  return JSON.parse(stdout.split("\n").at(-1)!) as T;
}

/** Sleeps for `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const MIB = 1024 * 1024;

/**
 * A step asserting a child's peak RSS stayed under `limit` bytes, skipped
 * where the child could not read it (no /proc/self/status).
 */
export async function assertPeakStep(
  t: Deno.TestContext,
  report: { peak: number | null; bodyBytes: number },
  limit: number,
  body: string,
): Promise<void> {
  await t.step({
    name: report.peak === null
      ? `peak RSS stays under ${
        limit / MIB
      } MiB (skipped: no /proc/self/status here)`
      : `peak RSS (VmHWM) stays under ${limit / MIB} MiB for ${body}`,
    ignore: report.peak === null,
    fn: () => {
      const peak = report.peak!;
      assert(
        peak < limit,
        `peak RSS ${(peak / MIB).toFixed(1)} MiB for ${body}; expected < ${
          limit / MIB
        } MiB`,
      );
    },
  });
}
