import { randomUUID } from 'node:crypto';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { buildTurnResultPayload } from '../../src/transcript/turn-result-payload.js';

/**
 * Writes a large transcript record by record (never holding the file in
 * memory): `turns` turns of a user record with `textBytes` of text, a model
 * record and a turn_result, chained. Returns the promptIds, oldest first.
 */
export function writeLargeTranscript(path: string, sessionId: string, turns: number, textBytes: number): string[] {
  mkdirSync(dirname(path), { recursive: true });
  const fd = openSync(path, 'a');
  const text = 'x'.repeat(textBytes);
  const promptIds: string[] = [];
  let parentUuid: string | null = null;
  const add = (record: Record<string, unknown>) => {
    const uuid = randomUUID();
    writeSync(fd, `${JSON.stringify({ uuid, parentUuid, sessionId, timestamp: new Date(0).toISOString(), ...record })}\n`);
    parentUuid = uuid;
  };
  try {
    for (let i = 0; i < turns; i += 1) {
      const promptId = randomUUID();
      promptIds.push(promptId);
      add({ type: 'user', promptId, message: { role: 'user', parts: [{ text }] } });
      add({ type: 'assistant', promptId, message: { role: 'model', parts: [{ text: `answer ${i}` }] } });
      const payload = buildTurnResultPayload({
        promptId,
        state: 'completed',
        stopReason: 'end_turn',
        endedAt: i + 1,
        promptText: 'big',
        resultText: `answer ${i}`,
      });
      add({ type: 'system', subtype: 'turn_result', promptId, systemPayload: { ...payload } });
    }
  } finally {
    closeSync(fd);
  }
  return promptIds;
}
