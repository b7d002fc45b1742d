/**
 * Modules loaded on first use, so a program that never needs them never
 * loads them.
 *
 * @module
 */

/**
 * Loads with `load` once, on the first call, and hands every later call the
 * same promise. A load that fails (a bundle's chunk that could not be
 * fetched) is tried again on the next call rather than failing for good.
 */
export function lazy<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
}
