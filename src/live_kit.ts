/**
 * What the live bodies' module takes from the core: the core hands these
 * over when it loads the module ({@linkcode install}), and the module's
 * files import them from here. The module imports no file of the core at
 * run time, so a bundle split into chunks keeps the core in one chunk
 * rather than a chunk shared with the module, loaded by every program.
 *
 * @module
 */

import type * as body from "./body.ts";
import type * as chunk from "./chunk.ts";
import type * as clock from "./clock.ts";
import type * as convertKeys_ from "./convert_keys.ts";
import type * as httpError from "./http_error.ts";
import type * as object from "./object.ts";
import type * as platformResponse from "./platform_response.ts";
import type * as progress from "./progress.ts";
import type * as schema from "./schema.ts";
import type * as transportError from "./transport_error.ts";

/**
 * The core's helpers that the live bodies' module uses, in this order: a
 * list rather than an object, so a minified bundle spends no bytes on their
 * names.
 */
export type LiveKit = readonly [
  CallbackError: typeof progress.CallbackError,
  overTotal: typeof progress.overTotal,
  tellProgress: typeof progress.tellProgress,
  totalOf: typeof progress.totalOf,
  bodyOf: typeof platformResponse.bodyOf,
  Pacer: typeof chunk.Pacer,
  toPlainBytes: typeof chunk.toPlainBytes,
  convertKeys: typeof convertKeys_.convertKeys,
  KeyClash: typeof convertKeys_.KeyClash,
  validateWithin: typeof schema.validateWithin,
  tooLargeMessage: typeof transportError.tooLargeMessage,
  brokenBodyMessage: typeof transportError.brokenBodyMessage,
  clockOf: typeof clock.clockOf,
  startTimer: typeof clock.startTimer,
  nextTurn: typeof clock.nextTurn,
  owns: typeof object.owns,
  cancelSettles: typeof body.cancelSettles,
  answeredAt: typeof platformResponse.answeredAt,
  headerOf: typeof platformResponse.headerOf,
  quoted: typeof httpError.quoted,
  liveFailure: typeof transportError.liveFailure,
];

/** A pacer, as a type; the class is {@linkcode Pacer}. */
export type Pacer = chunk.Pacer;

export let CallbackError: typeof progress.CallbackError;
export let overTotal: typeof progress.overTotal;
export let tellProgress: typeof progress.tellProgress;
export let totalOf: typeof progress.totalOf;
export let bodyOf: typeof platformResponse.bodyOf;
export let Pacer: typeof chunk.Pacer;
export let toPlainBytes: typeof chunk.toPlainBytes;
export let convertKeys: typeof convertKeys_.convertKeys;
export let KeyClash: typeof convertKeys_.KeyClash;
export let validateWithin: typeof schema.validateWithin;
export let tooLargeMessage: typeof transportError.tooLargeMessage;
export let brokenBodyMessage: typeof transportError.brokenBodyMessage;
export let clockOf: typeof clock.clockOf;
export let startTimer: typeof clock.startTimer;
export let nextTurn: typeof clock.nextTurn;
export let owns: typeof object.owns;
export let cancelSettles: typeof body.cancelSettles;
export let answeredAt: typeof platformResponse.answeredAt;
export let headerOf: typeof platformResponse.headerOf;
export let quoted: typeof httpError.quoted;
export let liveFailure: typeof transportError.liveFailure;

/** Takes the core's helpers; called once, before a live body is opened. */
export function install(kit: LiveKit): void {
  [
    CallbackError,
    overTotal,
    tellProgress,
    totalOf,
    bodyOf,
    Pacer,
    toPlainBytes,
    convertKeys,
    KeyClash,
    validateWithin,
    tooLargeMessage,
    brokenBodyMessage,
    clockOf,
    startTimer,
    nextTurn,
    owns,
    cancelSettles,
    answeredAt,
    headerOf,
    quoted,
    liveFailure,
  ] = kit;
}
