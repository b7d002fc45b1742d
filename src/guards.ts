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

function named(value: unknown, name: string): value is Record<string, unknown> {
  return typeof value === "object" && value !== null &&
    (value as { name?: unknown }).name === name;
}

/**
 * True when `value` is a {@linkcode GrabError}: its `name` is `"GrabError"`
 * and it has a numeric `statusCode`.
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
  return named(value, "GrabError") && typeof value.statusCode === "number";
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
