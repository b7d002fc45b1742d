/**
 * A retry policy as a module of its own, for `import * as retry`.
 *
 * @module
 */

/** One retry. */
export const limit = 1;

/** At once. */
export function backoff(): number {
  return 0;
}
