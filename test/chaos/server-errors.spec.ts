import { ERROR_CATALOGUE } from '../../src/errors/api-errors.js';
import { check, DOCUMENTED_503_CODES } from '../../chaos/checker/server-errors.js';
import { op, runOf, T0 } from './synthetic-run.js';

const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  op(0, { op: 'prompt', method: 'POST', path: '/session/x/prompt', status, body, headers });

describe('chaos checker: no 5xx but the documented 503s, no crash', () => {
  it("knows exactly the error catalogue's 503 codes", () => {
    const catalogue = Object.entries(ERROR_CATALOGUE)
      .filter(([, entry]) => entry.status === 503)
      .map(([code]) => code);
    expect([...DOCUMENTED_503_CODES].sort()).toEqual(catalogue.sort());
  });

  it('passes documented 503s and the 502 nginx gives for an upstream it cannot reach', () => {
    const history = [
      answer(503, { error: 'Too many pending prompts', code: 'prompt_queue_full' }, { 'x-turns-node': 'n1' }),
      answer(503, { error: 'unreachable', code: 'cluster_unavailable' }),
      answer(502, { raw: '<html><center>nginx</center></html>' }),
    ];
    expect(check(runOf(history))).toEqual([]);
  });

  it('reports a daemon 500 and an undocumented 503, each with its answer as the slice', () => {
    const internal = answer(500, { error: 'Internal server error', code: 'internal_error' });
    const odd = answer(503, { error: 'x', code: 'made_up' }, { 'x-turns-node': 'n2' });
    const violations = check(runOf([internal, odd]));
    expect(violations.map((v) => v.message)).toEqual([
      expect.stringContaining('answered 500 internal_error'),
      expect.stringContaining('n2 answered 503 made_up'),
    ]);
    expect(violations.map((v) => v.slice)).toEqual([[internal], [odd]]);
  });

  it('reports a daemon that exited on its own', () => {
    const crash = { type: 'crash', t: T0, target: 'n3', code: 1, signal: null, stderrTail: 'boom' };
    expect(check(runOf([crash]))).toEqual([
      { kind: 'crash', message: expect.stringContaining('n3 exited on its own (code 1'), slice: [crash] },
    ]);
  });
});
