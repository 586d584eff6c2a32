/**
 * A field of an error body besides `error` and `code`: its JSON type, what it
 * says, the example the OpenAPI document shows, and whether every body of the
 * code carries it.
 *
 * @publicApi
 */
export interface ErrorDetail {
  type: 'string' | 'integer';
  description: string;
  example: string | number;
  /** Only some bodies of the code carry it. */
  optional?: true;
}

const SID = '5c1d2a8e-7f7b-4a44-9a57-1f2e3d4c5b6a';
const PID = 'caa0b1c2-d3e4-4f50-8a6b-7c8d9e0f1a2b';

/** A string detail. */
export const text = (description: string, example: string) => ({ type: 'string', description, example }) as const;
/** An integer detail. */
export const integer = (description: string, example: number) => ({ type: 'integer', description, example }) as const;

/** A detail that only some bodies of a code carry. */
export const optional = <D extends ErrorDetail>(detail: D) => ({ ...detail, optional: true }) as const;

/* The details the catalogue's entries share, by the name they carry on the wire. */

export const sessionId = text('the session asked for', SID);
export const promptId = text('the prompt asked for', PID);
export const clientId = text('the client id sent', 'client_42');
export const requestId = text('the request for approval asked for', `${SID}.4f1c2a9b0d3e5f67`);
export const optionId = text('the option sent', 'proceed_always');
export const webhookId = text('the subscription asked for', 'wh_2f0e6c1e-3c1d-4b8e-9d51-0d6f4c1b2a39');
export const node = text('the node that owns the session', 'node-b');
export const cwd = text('the cwd asked for', '/srv/other');
export const reason = text('why the URL was refused', 'private address');
export const state = text('the state filter refused (its first 256 code units)', 'done');
export const check = text('the readiness check that fails (data_dir_writable, redis)', 'data_dir_writable');
export const tier = text('the budget spent: prompt, mutation or read', 'read');
export const retryAfterMs = integer('milliseconds until the budget has room again', 42000);
// The wait bound's default, as an example (src/turns/wait/wait.settings.spec.ts holds them equal).
export const maxWaitMs = integer('the longest wait allowed', 30_000);
export const maxLimit = integer('the largest page', 100);
export const pendingCount = integer('prompts pending now, running included', 5);
export const promptChars = integer('the size of the prompt (UTF-16 code units)', 2000000);
export const maxChars = integer('the largest prompt allowed (UTF-16 code units)', 1048576);
export const pageBytes = integer('bytes of the record that did not fit', 5242880);
export const snapshotSize = integer('bytes of the transcript', 300000000);

/** The value a detail declares: a number for an integer, else a string. */
export type ValueOfDetail<D> = D extends { type: 'integer' } ? number : string;

type RequiredDetails<D> = { [K in keyof D as D[K] extends { optional: true } ? never : K]: ValueOfDetail<D[K]> };
type OptionalDetails<D> = { [K in keyof D as D[K] extends { optional: true } ? K : never]?: ValueOfDetail<D[K]> };

/** The details object of a catalogue entry (distributes over a union of entries). */
export type DetailsOf<E> = E extends { details: infer D } ? RequiredDetails<D> & OptionalDetails<D> : Record<string, never>;
