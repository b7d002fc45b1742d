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
} from "./errors.ts";

/**
 * True when `value` is an object named `name` (and, when `numeric` is
 * given, with an integer in that member). A value that cannot be read (a revoked
 * Proxy, a getter that throws) is none: a guard never throws.
 */
function named(value: unknown, name: string, numeric?: string): boolean {
  if (typeof value !== "object" || value === null) return false;
  try {
    const record = value as Record<string, unknown>;
    return record.name === name &&
      (numeric === undefined || Number.isInteger(record[numeric]));
  } catch {
    return false;
  }
}

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
  return named(value, "GrabError", "statusCode");
}

/**
 * True when `value` is a {@linkcode GrabTransportError}.
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
  return named(value, "GrabTransportError");
}

/**
 * True when `value` is a {@linkcode GrabValidationError}.
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
  return named(value, "GrabValidationError");
}
