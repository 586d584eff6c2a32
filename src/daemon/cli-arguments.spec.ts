import { InvalidArgumentError } from 'commander';
import { milliseconds, turnStates } from './cli-arguments.js';

describe('flag values the command line checks itself', () => {
  it('--timeout: a whole number of milliseconds', () => {
    expect(milliseconds('600000')).toBe('600000');
    for (const bad of ['', '-1', '1.5', '10s']) expect(() => milliseconds(bad)).toThrow(InvalidArgumentError);
  });

  it('--state: a comma list of known states, trimmed', () => {
    expect(turnStates('running, error')).toEqual(['running', 'error']);
    expect(() => turnStates('running,done')).toThrow(
      new InvalidArgumentError('a comma list of idle, queued, running, completed, cancelled, error'),
    );
    expect(() => turnStates('')).toThrow(InvalidArgumentError);
  });
});
