import { FORWARDED_BY_HEADER, forwardRequestHeaders, forwardResponseHeaders } from './forward-headers.js';

describe('forwardRequestHeaders', () => {
  const via = { nodeId: 'node-b', remoteAddress: '10.0.0.9' };

  it('keeps what the owner needs to answer as if asked directly', () => {
    const endToEnd = {
      authorization: 'Bearer s3cret',
      'x-qwen-client-id': 'client_1',
      'if-none-match': '"abc"',
      prefer: 'wait=5',
      'last-event-id': '7',
      'content-type': 'application/json',
      'content-length': '42',
      accept: 'text/event-stream',
    };
    expect(forwardRequestHeaders(endToEnd, via)).toEqual({ ...endToEnd, [FORWARDED_BY_HEADER]: 'node-b', 'x-forwarded-for': '10.0.0.9' });
  });

  it('drops hop-by-hop headers, those the Connection header names, and Host', () => {
    const headers = forwardRequestHeaders(
      {
        host: 'lb.example',
        connection: 'keep-alive, X-Trace-Hop',
        'keep-alive': 'timeout=5',
        'x-trace-hop': '1',
        'transfer-encoding': 'chunked',
        te: 'trailers',
        trailer: 'x',
        upgrade: 'h2c',
        'proxy-authorization': 'Basic eA==',
        'proxy-connection': 'keep-alive',
        expect: '100-continue',
        'x-end-to-end': 'kept',
      },
      via,
    );
    expect(headers).toEqual({ 'x-end-to-end': 'kept', [FORWARDED_BY_HEADER]: 'node-b', 'x-forwarded-for': '10.0.0.9' });
  });

  it('drops Origin: the node the client reached judged it (docs/security.md)', () => {
    const headers = forwardRequestHeaders({ origin: 'http://localhost:3000', 'x-qwen-client-id': 'client_1' }, via);
    expect(headers).toEqual({ 'x-qwen-client-id': 'client_1', [FORWARDED_BY_HEADER]: 'node-b', 'x-forwarded-for': '10.0.0.9' });
  });

  it('appends to an X-Forwarded-For the load balancer set', () => {
    expect(forwardRequestHeaders({ 'x-forwarded-for': '203.0.113.7' }, via)['x-forwarded-for']).toBe('203.0.113.7, 10.0.0.9');
  });

  it('overwrites a forwarding marker a client sent itself', () => {
    expect(forwardRequestHeaders({ [FORWARDED_BY_HEADER]: 'spoofed' }, via)[FORWARDED_BY_HEADER]).toBe('node-b');
  });
});

describe('forwardResponseHeaders', () => {
  it('relays the owner’s end-to-end headers and drops the framing of its connection', () => {
    expect(
      forwardResponseHeaders({
        'x-turns-node': 'node-a',
        etag: '"e"',
        'retry-after': '1',
        'content-type': 'text/event-stream',
        'x-qwen-event-epoch': 'ep',
        'transfer-encoding': 'chunked',
        connection: 'keep-alive',
        'keep-alive': 'timeout=5',
      }),
    ).toEqual({
      'x-turns-node': 'node-a',
      etag: '"e"',
      'retry-after': '1',
      'content-type': 'text/event-stream',
      'x-qwen-event-epoch': 'ep',
    });
  });
});
