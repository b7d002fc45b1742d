/**
 * Hooks as a module of their own, for `import * as hooks`.
 *
 * @module
 */

/** Marks each request. */
export function beforeRequest(request: Request): void {
  request.headers.set("x-module-hook", "yes");
}
