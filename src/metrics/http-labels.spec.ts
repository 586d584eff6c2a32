import { httpLabels } from './http-labels.js';

describe('httpLabels', () => {
  it('keeps known methods and real status codes', () => {
    expect(httpLabels('GET', '/session/:id/turns/:promptId', 200)).toEqual({
      method: 'GET',
      route: '/session/:id/turns/:promptId',
      status: '200',
    });
    expect(httpLabels('DELETE', '/session/:id', 204).status).toBe('204');
  });

  it('folds any other method or status into `other`, so a client cannot add series', () => {
    expect(httpLabels('BREW', '/x', 200).method).toBe('other');
    expect(httpLabels(undefined, '/x', 200).method).toBe('other');
    expect(httpLabels('get', '/x', 200).method).toBe('other');
    expect(httpLabels('GET', '/x', 1000).status).toBe('other');
    expect(httpLabels('GET', '/x', 99).status).toBe('other');
  });
});
