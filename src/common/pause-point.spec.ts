import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pausePoint, pausePointsIn } from './pause-point.js';

describe('pausePointsIn', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pause-point-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is nothing without a directory (the daemon as users run it: TURNS_TEST_PAUSE_DIR unset)', () => {
    expect(pausePointsIn(undefined)).toBeUndefined();
    expect(pausePointsIn('')).toBeUndefined();
    expect(process.env.TURNS_TEST_PAUSE_DIR).toBeUndefined();
    expect(pausePoint).toBeUndefined();
  });

  it('passes a point nobody armed', () => {
    const stop = jest.fn();
    pausePointsIn(dir, stop)!('ledger-append', 's1');
    expect(stop).not.toHaveBeenCalled();
    expect(existsSync(join(dir, 'ledger-append.reached'))).toBe(false);
  });

  it('stops once at an armed point, after saying for which session', () => {
    const stop = jest.fn();
    const reach = pausePointsIn(dir, stop)!;
    writeFileSync(join(dir, 'ledger-append'), '');
    reach('other-point', 's0');
    expect(stop).not.toHaveBeenCalled();
    reach('ledger-append', 's1');
    expect(stop).toHaveBeenCalledTimes(1);
    expect(readFileSync(join(dir, 'ledger-append.reached'), 'utf8')).toBe('s1\n');
    reach('ledger-append', 's2');
    expect(stop).toHaveBeenCalledTimes(1);
  });
});
