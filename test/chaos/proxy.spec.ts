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
  it("reads the daemon's fence files (the highest, with the node it names; one not yet written waits), and earlier versions' files", () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fences-'));
    try {
      // SessionFences' layout: one file a fence, its name the fence padded, holding the claiming node.
      const files = join(dataDir, 'cluster', 'fence-files');
      const holder = (node: string) => JSON.stringify({ node, url: 'http://127.0.0.1:1' });
      mkdirSync(join(files, 's4'), { recursive: true });
      writeFileSync(join(files, 's4', '000000000000003'), holder('n1'));
      writeFileSync(join(files, 's4', '000000000000011'), holder('n2'));
      mkdirSync(join(files, 's5'), { recursive: true });
      writeFileSync(join(files, 's5', '000000000000002'), holder('n1'));
      writeFileSync(join(files, 's5', '000000000000004'), '');
      // Earlier versions: one file holding the number, or a directory of fence files.
      const root = join(dataDir, 'cluster', 'fences');
      mkdirSync(join(root, 's2'), { recursive: true });
      writeFileSync(join(root, 's1'), '7\n');
      writeFileSync(join(root, 's1.ab12.tmp'), '9\n');
      writeFileSync(join(root, 's3'), '');
      writeFileSync(join(root, 's4'), '8\n');
      for (const n of ['3', '12', '5']) writeFileSync(join(root, 's2', n), '');
      expect(recordedFences(dataDir)).toEqual({ s1: { fence: 7 }, s2: { fence: 12 }, s4: { fence: 11, node: 'n2' } });
      expect(recordedFences(join(dataDir, 'missing'))).toEqual({});
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
