/**
 * A Worker for errors_test.ts: another realm, reached only through
 * structured cloning. For each value posted it answers what the guards say
 * of it, and its `message`.
 *
 * @module
 */

import {
  isGrabHttpError,
  isGrabTransportError,
  isGrabValidationError,
} from "../mod.ts";

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<unknown[]>) => void) | null;
  postMessage(message: unknown): void;
};

scope.onmessage = (event) => {
  scope.postMessage(event.data.map((value) => ({
    http: isGrabHttpError(value),
    transport: isGrabTransportError(value),
    validation: isGrabValidationError(value),
    message: (value as { message?: unknown } | null)?.message,
  })));
};
