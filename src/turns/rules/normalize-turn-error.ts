import { TURN_LIMITS } from './limits.js';
import { truncateCodeUnits } from './truncate-code-units.js';

/**
 * The error of a turn, as reported on the wire.
 *
 * @publicApi
 */
export interface TurnError {
  message: string;
  code?: string;
  messageTruncated?: true;
  codeTruncated?: true;
}

const UNKNOWN = 'Unknown error';

/**
 * Reads a property only when it is a plain data property, so no getter, proxy
 * trap or `toString` of a foreign object ever runs. Returns `undefined` for
 * anything else, including when inspecting the object itself throws.
 */
function readDataProperty(value: object, key: string): unknown {
  try {
    // Walk the prototype chain by hand: Error instances keep `message` on the
    // instance, but subclasses may define it on a prototype as data.
    let target: object | null = value;
    while (target !== null) {
      const descriptor = Object.getOwnPropertyDescriptor(target, key);
      if (descriptor) return 'value' in descriptor ? descriptor.value : undefined;
      target = Object.getPrototypeOf(target);
    }
  } catch {
    // A proxy's getOwnPropertyDescriptor / getPrototypeOf trap threw.
  }
  return undefined;
}

function readCode(value: object): string | undefined {
  const code = readDataProperty(value, 'code');
  if (typeof code === 'string' && code.length > 0) return code;
  if (typeof code === 'number' && Number.isFinite(code)) return String(code);
  const rpcCode = readDataProperty(value, 'rpcCode');
  if (typeof rpcCode === 'number' && Number.isFinite(rpcCode)) return String(rpcCode);
  return undefined;
}

/**
 * Turns anything thrown by an engine into the wire error shape: message and
 * code read without running user code, each cut to its limit with a flag.
 *
 * @publicApi
 */
export function normalizeTurnError(thrown: unknown, fallbackCode?: string): TurnError {
  let message: string = UNKNOWN;
  let code: string | undefined = fallbackCode;
  if (typeof thrown === 'string' && thrown.length > 0) {
    message = thrown;
  } else if (thrown !== null && (typeof thrown === 'object' || typeof thrown === 'function')) {
    const raw = readDataProperty(thrown, 'message');
    if (typeof raw === 'string' && raw.length > 0) message = raw;
    code = readCode(thrown) ?? fallbackCode;
  }
  return limitTurnError({ message, code });
}

/** Applies the wire limits (docs/turn-routes.md#states-and-shapes) to an error that is already plain data. */
export function limitTurnError(error: { message: string; code?: string }): TurnError {
  const message = truncateCodeUnits(error.message, TURN_LIMITS.errorMessage);
  const result: TurnError = { message: message.text };
  if (message.truncated) result.messageTruncated = true;
  if (error.code !== undefined) {
    const code = truncateCodeUnits(error.code, TURN_LIMITS.errorCode);
    result.code = code.text;
    if (code.truncated) result.codeTruncated = true;
  }
  return result;
}
