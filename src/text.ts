/**
 * What text the caller's values make, as a request carries it.
 *
 * @module
 */

/**
 * What `String()` makes of an object that has no text of its own (a Map, a
 * class instance): `"[object Object]"`, which no caller means to send.
 */
export const DEFAULT_TEXT = /^\[object [^\]]*\]$/;

/**
 * Half of a UTF-16 pair without its other half: not Unicode text, so a URL
 * cannot carry it (`URLSearchParams` puts U+FFFD in its place,
 * `encodeURIComponent` throws).
 */
export const LONE_SURROGATE = /\p{Cs}/u;
