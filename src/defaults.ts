/**
 * The default of every option that has one: the only place that knows a
 * default.
 *
 * @module
 */

/** The default of every option that has one. */
export const DEFAULTS = Object.freeze(
  {
    format: "json",
    responseType: "json",
    casing: "none",
    wireCasing: "snake_case",
    /** 30 s for the whole grab. */
    timeout: 30_000,
    /** 64 MiB. */
    maxBodyBytes: 64 * 1024 * 1024,
    retry: Object.freeze({
      limit: 2,
      methods: Object.freeze([
        "GET",
        "HEAD",
        "PUT",
        "DELETE",
        "OPTIONS",
      ]),
      statusCodes: Object.freeze([408, 429, 500, 502, 503, 504]),
      maxDelay: 10_000,
      /** The first backoff's ceiling; it doubles with each retry. */
      backoffBase: 300,
    }),
  } as const,
);
