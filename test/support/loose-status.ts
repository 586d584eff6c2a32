/**
 * A turn status as specs build it: any field on any state, including shapes
 * the union forbids, so a spec can feed the rules what a foreign provider
 * might. Production code only ever sees the discriminated `TurnStatus`.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type LooseStatus = any;
