import type { Logger } from '@nestjs/common';
import { AgentStderrLog } from './agent-stderr-log.js';

describe('AgentStderrLog', () => {
  let now: number;
  let logged: string[];
  const logger = { warn: (line: string) => void logged.push(line) } as unknown as Logger;

  beforeEach(() => {
    now = 100_000;
    logged = [];
  });

  it("prefixes each line with the agent's session and cuts a long one", () => {
    const log = new AgentStderrLog(logger, 's1', () => now);
    log.line('command not found');
    log.line('x'.repeat(5_000));
    expect(logged[0]).toBe('[agent s1] command not found');
    expect(logged[1]).toBe(`[agent s1] ${'x'.repeat(1_000)}`);
  });

  it('logs at most 50 lines a 10 s window, then says how many it dropped when the next window opens', () => {
    const log = new AgentStderrLog(logger, 's2', () => now);
    for (let i = 0; i < 80; i += 1) log.line(`line ${i}`);
    expect(logged).toHaveLength(50);
    expect(logged.at(-1)).toBe('[agent s2] line 49');
    now += 9_999;
    log.line('still the same window');
    expect(logged).toHaveLength(50);
    now += 1;
    log.line('a new window');
    expect(logged.slice(50)).toEqual(['[agent s2] 31 stderr lines dropped', '[agent s2] a new window']);
  });
});
