/**
 * Name-based type guards: they work across realms and duplicate copies of
 * the module, where `instanceof` does not.
 *
 * @module
 */

import type {
  GrabError,
  GrabTransportError,
  GrabValidationError,
  TransportErrorKind,
} from "./errors.ts";

/**
 * True when `value` is an object named `name` whose `member` passes `test`:
 * the member each class is about (a status, a kind, the issues), which an
 * error of another copy of the module and its `toJSON()` both carry, and
 * an object that merely copies the name does not. A value that cannot be
 * read (a revoked Proxy, a getter that throws) is none: a guard never
 * throws.
 */
function named(
  value: unknown,
  name: string,
  member: string,
  test: (member: unknown) => boolean,
): boolean {
  if (typeof value !== "object" || value === null) return false;
  try {
    const record = value as Record<string, unknown>;
    return record.name === name && test(record[member]);
  } catch {
    return false;
  }
}

const KINDS: ReadonlySet<unknown> = new Set<TransportErrorKind>([
  "network",
  "abort",
  "timeout",
  "parse",
  "too-large",
  "schema",
]);

const isKind = (kind: unknown): boolean => KINDS.has(kind);

/**
 * True when `value` is a {@linkcode GrabError}: its `name` is `"GrabError"`
 * and it has an integer `statusCode`.
 *
 * @param value Anything, typically a caught error or a tuple's error slot.
 * @returns Whether `value` is an HTTP error.
 *
 * @example
 * ```ts
 * import createGrab, { isGrabHttpError } from "@grab/grab";
 * const grab = createGrab("https://api.example.com");
 * const [, error] = await grab("GET /missing");
 * if (isGrabHttpError(error) && error.statusCode === 404) console.log("gone");
 * ```
 */
export function isGrabHttpError(value: unknown): value is GrabError {
  return named(value, "GrabError", "statusCode", Number.isInteger);
}

/**
 * True when `value` is a {@linkcode GrabTransportError}: its `name` is
 * `"GrabTransportError"` and its `kind` one of {@linkcode TransportErrorKind}.
 *
 * @param value Anything, typically a caught error or a tuple's error slot.
 * @returns Whether `value` is a transport error.
 *
 * @example
 * ```ts
 * import { isGrabTransportError } from "@grab/grab";
 * function describe(error: unknown): string {
 *   return isGrabTransportError(error) ? `no response (${error.kind})` : "other";
 * }
 * ```
 */
export function isGrabTransportError(
  value: unknown,
): value is GrabTransportError {
  return named(value, "GrabTransportError", "kind", isKind);
}

/**
 * True when `value` is a {@linkcode GrabValidationError}: its `name` is
 * `"GrabValidationError"` and its `issues` an array.
 *
 * @param value Anything, typically a caught error.
 * @returns Whether `value` is a validation error.
 *
 * @example
 * ```ts
 * import createGrab, { isGrabValidationError } from "@grab/grab";
 * const grab = createGrab("https://api.example.com");
 * await grab("GET /users/:id", { params: { id: "" } }).catch((error) => {
 *   if (isGrabValidationError(error)) console.log(error.issues[0]?.message);
 * });
 * ```
 */
export function isGrabValidationError(
  value: unknown,
): value is GrabValidationError {
  return named(value, "GrabValidationError", "issues", Array.isArray);
}
