import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { Child, freePort, redisChild, startRedis, waitHttp } from './processes.js';
import { Proxy } from './proxy.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const TOKEN = 'chaos-token';
/** The daemon to run: the build of this checkout, or `CHAOS_BIN` (a build with a fault planted in it, to see the checker fail). */
const BIN = resolve(process.env.CHAOS_BIN ?? join(ROOT, 'dist', 'daemon', 'bin.js'));

/** nginx.conf from the deploy template, with the harness's own work dir, port and upstreams. */
function renderNginx(template, work, port, upstreams) {
  const servers = upstreams.map((p) => `    server 127.0.0.1:${p};`).join('\n');
  // Line by line, as cluster-demo.sh does: the template's comment names the placeholders too.
  return template
    .split('\n')
    .map((line) => (line === '__UPSTREAMS__' ? servers : line.replace('listen __LISTEN__;', `listen 127.0.0.1:${port};`)))
    .join('\n')
    .replaceAll('__WORK__', work);
}

/**
 * Redis, three daemons in cluster mode on one shared data dir, and nginx in front,
 * all on loopback ports picked here. Every process is a `Child` stopped by its pid.
 * Each node reaches Redis through a proxy of its own, and its peers reach it
 * through another (its `TURNS_NODE_URL`), so the schedule can cut one node off
 * Redis, or its peers off it, one way; nginx and the clients reach it directly.
 */
export class Cluster {
  constructor({ dir, settings, history }) {
    this.dir = dir;
    this.settings = settings;
    this.history = history;
    this.nodes = [];
  }

  crash(target) {
    return (info) => this.history.write({ type: 'crash', t: Date.now(), target, ...info });
  }

  async start() {
    const { dir, settings } = this;
    this.dataDir = join(dir, 'data');
    const workspace = join(dir, 'workspace');
    for (const sub of ['nodes', 'data', 'workspace', 'nginx']) mkdirSync(join(dir, sub), { recursive: true });
    this.redisPort = await freePort();
    this.redis = redisChild(this.redisPort, join(dir, 'nodes', 'redis.log'), this.crash('redis'));
    await startRedis(this.redis);
    // The harness's own connection (the Redis faults, the fence sampler): never through a proxy.
    this.admin = new Redis(this.redisPort, '127.0.0.1', {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => 200,
    });
    this.admin.on('error', () => undefined);
    await this.admin.connect();
    const ports = [];
    for (const [index, name] of ['n1', 'n2', 'n3'].entries()) {
      const port = await freePort();
      ports.push(port);
      const redisProxy = new Proxy({ name: `${name}→redis`, listenPort: await freePort(), targetPort: this.redisPort });
      const peerProxy = new Proxy({ name: `peers→${name}`, listenPort: await freePort(), targetPort: port });
      await Promise.all([redisProxy.start(), peerProxy.start()]);
      const pauseDir = join(dir, 'pause', name);
      mkdirSync(pauseDir, { recursive: true });
      const env = {
        TURNS_HOST: '127.0.0.1',
        TURNS_PORT: String(port),
        TURNS_NODE_ID: name,
        TURNS_NODE_URL: `http://127.0.0.1:${peerProxy.port}`,
        TURNS_REDIS_URL: `redis://127.0.0.1:${redisProxy.port}`,
        TURNS_TEST_PAUSE_DIR: pauseDir,
        TURNS_DATA_DIR: this.dataDir,
        TURNS_WORKSPACES: workspace,
        TURNS_TOKEN: TOKEN,
        // The second node runs Fastify: forwarding and failover cross the two adapters.
        TURNS_HTTP_ADAPTER: index === 1 ? 'fastify' : 'express',
        TURNS_ECHO_DELAY_MS: String(settings.echoDelayMs[index]),
        TURNS_LEASE_MS: String(settings.leaseMs),
        TURNS_PROMPT_DEADLINE_MS: String(settings.deadlineMs),
        TURNS_FORWARD_TIMEOUT_MS: '2000',
        // One path per node: the receiver knows which node sent an operator delivery (duplicates are counted per sender).
        TURNS_WEBHOOK_URL: `${settings.receiverUrl}/${name}`,
        TURNS_WEBHOOK_SECRET: settings.webhookSecret,
        TURNS_WEBHOOK_ALLOW: '127.0.0.1',
        TURNS_WEBHOOK_TIMEOUT_MS: String(settings.webhookTimeoutMs),
        TURNS_WEBHOOK_RETRY_BASE_MS: String(settings.webhookRetryBaseMs),
        TURNS_WEBHOOK_MAX_ATTEMPTS: String(settings.webhookMaxAttempts),
      };
      const child = new Child(name, process.execPath, [BIN], {
        env,
        logFile: join(dir, 'nodes', `${name}.log`),
        onCrash: this.crash(name),
      });
      this.nodes.push({ name, port, url: `http://127.0.0.1:${port}`, child, redisProxy, peerProxy, pauseDir });
    }
    await Promise.all(this.nodes.map((node) => this.startNode(node)));
    this.frontPort = await freePort();
    const work = join(dir, 'nginx');
    const template = readFileSync(join(ROOT, 'deploy', 'nginx.conf.template'), 'utf8');
    writeFileSync(join(work, 'nginx.conf'), renderNginx(template, work, this.frontPort, ports));
    this.nginx = new Child('nginx', 'nginx', ['-p', work, '-c', join(work, 'nginx.conf'), '-g', 'daemon off;'], {
      logFile: join(dir, 'nodes', 'nginx.log'),
      onCrash: this.crash('nginx'),
    });
    this.nginx.start();
    this.front = `http://127.0.0.1:${this.frontPort}`;
    await waitHttp(`${this.front}/health`, 'nginx');
  }

  node(name) {
    return this.nodes.find((node) => node.name === name);
  }

  async startNode(node) {
    node.child.start();
    await waitHttp(`${node.url}/health`, `daemon ${node.name}`, 30_000);
  }

  async restartRedis() {
    await startRedis(this.redis);
  }

  /** The session leases Redis holds now: `{ sessionId: { node, fence } }` (empty while Redis is down). */
  async leases() {
    const leases = {};
    let cursor = '0';
    for (let page = 0; page < 100; page += 1) {
      const [next, keys] = await this.admin.scan(cursor, 'MATCH', 'turns:lease:*', 'COUNT', 200);
      for (const key of keys) {
        const [node, fence] = await this.admin.hmget(key, 'node', 'fence');
        if (node && fence) leases[key.slice('turns:lease:'.length)] = { node, fence: Number(fence) };
      }
      cursor = next;
      if (cursor === '0') break;
    }
    return leases;
  }

  /** Everything this run started, by pid: daemons (also stopped ones), nginx, Redis; and the proxies. */
  async stopAll() {
    await Promise.all(this.nodes.map((node) => node.child.kill()));
    await this.nginx?.stop('SIGTERM');
    this.admin?.disconnect();
    await this.redis?.kill();
    await Promise.all(this.nodes.flatMap((node) => [node.redisProxy.stop(), node.peerProxy.stop()]));
  }
}
