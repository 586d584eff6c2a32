import { deferred, settle } from '../../test/support/deferred.js';
import type { PromptLedger } from '../ledger/prompt-ledger.js';
import type { AdmittedPrompt } from '../wire/wire-types.js';
import type { PromptBridge } from '../bridge/prompt-bridge.js';
import { PromptsController } from './prompts.controller.js';

describe('PromptsController', () => {
  const admitted = { promptId: 'p', position: 0 } as unknown as AdmittedPrompt;
  const bridge = { admit: jest.fn(() => admitted) } as unknown as PromptBridge;
  const body = { prompt: [{ type: 'text', text: 'hi' }] } as never;

  it("answers an admission only once the ledger holds it (the prompt's in_flight record is written and synced)", async () => {
    const written = deferred<void>();
    const recorded = jest.fn(() => written.promise);
    const answer = new PromptsController(bridge, { admitted: recorded } as unknown as PromptLedger).prompt('s', body, {});
    let answered = false;
    void answer.then(() => (answered = true));
    await settle();
    expect(recorded).toHaveBeenCalledWith('s', 'p');
    expect(answered).toBe(false);
    written.resolve();
    await expect(answer).resolves.toBe(admitted);
  });

  it("answers the ledger's refusal, not 202", async () => {
    const refused = new Error('refused');
    const answer = new PromptsController(bridge, { admitted: () => Promise.reject(refused) } as unknown as PromptLedger).prompt(
      's',
      body,
      {},
    );
    await expect(answer).rejects.toBe(refused);
  });

  it('answers at once without a ledger', async () => {
    await expect(new PromptsController(bridge).prompt('s', body, {})).resolves.toBe(admitted);
  });
});
