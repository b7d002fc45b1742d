/**
 * Compile-time checks of inferred types: `same<A, B>(true)` compiles only
 * when A and B are the same type; a row type and a Standard Schema of it.
 *
 * @module
 */

/** True only when A and B are the same type. */
export type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends
  (<T>() => T extends B ? 1 : 2) ? true : false;

/** Compiles only when given `true`: when A and B are the same type. */
export function same<A, B>(_proof: Same<A, B>): void {}

/** A row of data, as a schema gives it. */
export interface Row {
  id: number;
}

/** A Standard Schema whose output is a {@linkcode Row}. */
export const rowSchema = {
  "~standard": {
    version: 1 as const,
    vendor: "types",
    validate: (value: unknown) => ({ value: value as Row }),
  },
};
