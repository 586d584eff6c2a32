import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordedFences } from '../../chaos/fence-sampler.js';
import { Proxy } from '../../chaos/proxy.js';

/** An echo server on a loopback port the kernel picks. */
async function echoServer(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

/** Resolves with the next chunk the socket reads, or 'nothing' once `ms` passed without one. */
const nextChunk = (socket: Socket, ms: number) =>
  new Promise<string>((resolve) => {
    const timer = setTimeout(() => {
      socket.off('data', onData);
      resolve('nothing');
    }, ms);
    const onData = (chunk: Buffer) => {
      clearTimeout(timer);
      resolve(chunk.toString());
    };
    socket.once('data', onData);
  });

describe('chaos harness: the blackholing proxy', () => {
  it('passes bytes both ways, holds them while blackholed without closing anything, and lets them on at heal', async () => {
    const { server, port } = await echoServer();
    const proxy = new Proxy({ name: 'test', listenPort: 0, targetPort: port });
    await proxy.start();
    const listenPort = (proxy.server!.address() as { port: number }).port;
    const client = connect(listenPort, '127.0.0.1');
    try {
      await new Promise((resolve) => client.once('connect', resolve));
      client.write('one');
      expect(await nextChunk(client, 2_000)).toBe('one');
      proxy.blackhole();
      client.write('two');
      // 300 ms of silence stands for "held": a bound for the test, not a sleep the proxy needs.
      expect(await nextChunk(client, 300)).toBe('nothing');
      expect(client.destroyed).toBe(false);
      const late = connect(listenPort, '127.0.0.1');
      late.write('three');
      expect(await nextChunk(late, 300)).toBe('nothing');
      proxy.heal();
      expect(await nextChunk(client, 2_000)).toBe('two');
      expect(await nextChunk(late, 2_000)).toBe('three');
      late.destroy();
    } finally {
      client.destroy();
      await proxy.stop();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('chaos harness: the fences recorded on the data dir', () => {
  it('reads a fence file, or the highest of a directory of fence files; skips temporary and empty ones', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fences-'));
    try {
      const root = join(dataDir, 'cluster', 'fences');
      mkdirSync(join(root, 's2'), { recursive: true });
      writeFileSync(join(root, 's1'), '7\n');
      writeFileSync(join(root, 's1.ab12.tmp'), '9\n');
      writeFileSync(join(root, 's3'), '');
      for (const n of ['3', '12', '5']) writeFileSync(join(root, 's2', n), '');
      expect(recordedFences(dataDir)).toEqual({ s1: 7, s2: 12 });
      expect(recordedFences(join(dataDir, 'missing'))).toEqual({});
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
