/**
 * Standard Schema v1 (https://standardschema.dev): the interface zod,
 * valibot and arktype implement, described here so the library has no
 * dependency.
 *
 * @module
 */

import { type Deadline, PASSED } from "./deadline.ts";
import { onlyInherited } from "./object.ts";

/**
 * A Standard Schema v1 validator whose output is `Output`.
 * @internal
 */
export interface StandardSchema<Output = unknown> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (
      value: unknown,
    ) => SchemaResult<Output> | Promise<SchemaResult<Output>>;
    readonly types?:
      | { readonly input: unknown; readonly output: Output }
      | undefined;
  };
}

/**
 * The result of a Standard Schema validation.
 * @internal
 */
export type SchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly unknown[] };

/**
 * The output type of a Standard Schema: what its `types` declare, as
 * Standard Schema's `InferOutput` reads it, or else what its `validate`
 * gives.
 * @internal
 */
export type SchemaOutput<S> = [DeclaredOutput<S>] extends [never]
  ? S extends StandardSchema<infer O> ? O : unknown
  : DeclaredOutput<S>[0];

/** The output a schema's `types` declare, in a tuple; `never` for none. */
type DeclaredOutput<S> = S extends { readonly "~standard": infer P }
  ? "types" extends keyof P ? OutputOf<NonNullable<P["types" & keyof P]>>
  : never
  : never;

/** `[output]` of declared types; `never` for none (`types: undefined`). */
type OutputOf<T> = [T] extends [never] ? never
  : T extends { readonly output: infer O } ? [O]
  : never;

/** Validates `value`: the schema's output, or its issues. */
export async function validateSchema(
  schema: StandardSchema,
  value: unknown,
): Promise<{ value: unknown } | { issues: readonly unknown[] }> {
  // Any thenable: a promise of another realm or of a library is one too.
  const result: unknown = await schema["~standard"].validate(value);
  if (typeof result === "object" && result !== null) {
    // A key a dependency put on Object.prototype is no member of a result.
    const issues = onlyInherited(result, "issues")
      ? undefined
      : (result as { issues?: unknown }).issues;
    if (Array.isArray(issues)) return { issues };
    if (
      issues === undefined && "value" in result &&
      !onlyInherited(result, "value")
    ) {
      return { value: (result as { value: unknown }).value };
    }
  }
  // A validator's bug, like one that throws: it is not the response's.
  throw new TypeError(
    "Cannot use the schema's result: it is neither { value } nor { issues: [...] }",
  );
}

/** A value checked within a deadline: output, issues, or the deadline's end. */
export type Checked =
  | { value: unknown }
  | { issues: readonly unknown[] }
  | { passed: "timeout" | "abort"; cause: unknown };

/**
 * Validates `value` within `deadline`: a validator is the caller's code, so
 * the deadline bounds it too. What the validator throws rejects as it is.
 */
export async function validateWithin(
  schema: StandardSchema,
  value: unknown,
  deadline: Deadline,
): Promise<Checked> {
  try {
    return await deadline.race(validateSchema(schema, value));
  } catch (error) {
    if (error !== PASSED) throw error;
    return {
      passed: deadline.reason ?? "abort",
      cause: deadline.signal?.reason,
    };
  }
}
