import type { ArgumentMetadata } from '@nestjs/common';
import { createValidationPipe } from '../validation/validation.pipe.js';
import { PromptRequestDto } from './prompt.dto.js';

const metadata: ArgumentMetadata = { type: 'body', metatype: PromptRequestDto };
const prompt = [{ type: 'text', text: 'hi' }];
const codeOf = async (body: unknown) =>
  createValidationPipe()
    .transform(body, metadata)
    .then(
      () => 'accepted',
      (error: { code?: string }) => error.code,
    );

describe('PromptRequestDto maxTokens', () => {
  it('accepts a positive integer, or none', async () => {
    expect(await codeOf({ prompt, maxTokens: 1 })).toBe('accepted');
    expect(await codeOf({ prompt, maxTokens: 2_000_000 })).toBe('accepted');
    expect(await codeOf({ prompt })).toBe('accepted');
  });

  it.each([0, -1, 1.5, '100', null, true, Number.NaN])('refuses %p with 400 invalid_max_tokens', async (maxTokens) => {
    expect(await codeOf({ prompt, maxTokens })).toBe('invalid_max_tokens');
  });

  it('keeps the codes of other fields', async () => {
    expect(await codeOf({ prompt, deadlineMs: 0 })).toBe('invalid_deadline_ms');
    expect(await codeOf({ prompt: [], maxTokens: 5 })).toBe('invalid_request');
  });
});
