import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { AcpEngine } from '../src/acp/acp.engine.js';
import type { DaemonConfig } from '../src/daemon/daemon-config.js';
import { runCli } from '../src/daemon/cli.js';
import { ADAPTERS, startDaemon, type Adapter, type TestDaemon } from './support/test-daemon.js';

const FIXTURE = `node ${join(__dirname, 'fixtures', 'acp-fixture-agent.mjs')}`;

/** A stream's text so far, and a promise of the moment it first shows `text`. */
function screen(stream: PassThrough) {
  let text = '';
  const waiting: Array<{ wanted: string; resolve: () => void }> = [];
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString();
    for (const waiter of waiting.filter(({ wanted }) => text.includes(wanted))) waiter.resolve();
  });
  return {
    text: () => text,
    shows: (wanted: string) => new Promise<void>((resolve) => (text.includes(wanted) ? resolve() : waiting.push({ wanted, resolve }))),
  };
}

/** The command line in this process: its output captured; with `terminal`, stdin and stderr are a terminal the test types on. */
function startCli(argv: string[], options: { terminal?: boolean } = {}) {
  const stdout = new PassThrough();
  const stderr = Object.assign(new PassThrough(), { isTTY: options.terminal });
  const stdin = Object.assign(new PassThrough(), { isTTY: options.terminal });
  const out = screen(stdout);
  const err = screen(stderr);
  const code = runCli(argv, { stdout, stderr, env: {}, stdin });
  return { code, stdin, stdout: out, stderr: err };
}

async function cli(...argv: string[]) {
  const run = startCli(argv);
  return { code: await run.code, stdout: run.stdout.text(), stderr: run.stderr.text() };
}

async function acpDaemon(httpAdapter: Adapter, config: Partial<DaemonConfig> = {}): Promise<TestDaemon> {
  return startDaemon({ agent: 'acp', agentCommand: FIXTURE, httpAdapter, ...config }, { engine: new AcpEngine(FIXTURE) });
}

/** The fixture's `shell` prompt asks to run `echo ran > marker.txt`, and writes marker.txt only once allowed (docs/permissions.md). */
describe.each(ADAPTERS)('command line and tool approval over %s', (httpAdapter) => {
  jest.setTimeout(60_000);
  let daemon: TestDaemon;
  let marker: string;
  beforeAll(async () => {
    daemon = await acpDaemon(httpAdapter);
    marker = join(daemon.config.workspaces[0]!, 'marker.txt');
  });
  afterAll(() => daemon.close(true));
  beforeEach(() => rmSync(marker, { force: true }));

  it('prompt --wait --approve allows each request once, and says so on stderr; --deny refuses it', async () => {
    const approved = await cli('prompt', 'shell now', '--wait', '--approve', '--url', daemon.url);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toBe('ran (proceed_once)\n');
    expect(approved.stderr).toMatch(/^permission \S+: allowed execute "echo ran > marker.txt" \(proceed_once\)$/m);
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);

    const denied = await cli('prompt', 'shell now', '--wait', '--deny', '--url', daemon.url);
    expect(denied).toMatchObject({ code: 0, stdout: 'refused\n' });
    expect(denied.stderr).toMatch(/^permission \S+: denied execute "echo ran > marker.txt" \(reject\)$/m);
    expect(existsSync(marker)).toBe(false);
    expect((await cli('prompt', 'x', '--approve', '--deny', '--url', daemon.url)).code).toBe(4);
  });

  it('refuses --approve or --deny without --wait (a usage error, before anything is admitted)', async () => {
    for (const flag of ['--approve', '--deny']) {
      const run = await cli('prompt', 'shell now', flag, '--url', daemon.url);
      expect(run).toMatchObject({ code: 4, stdout: '' });
      expect(run.stderr).toMatch(new RegExp(`^error: ${flag} answers the agent's requests while waiting: add --wait$`, 'm'));
    }
  });

  it('without a terminal or a flag, reports the request and leaves it; permissions lists it and answers it from another shell', async () => {
    const waiting = startCli(['prompt', 'shell now', '--wait', '--keep', '--url', daemon.url]);
    await waiting.stderr.shows('waits for an answer');
    // The session's own client id is named: the one the prompt was sent with.
    const [, sessionId, clientId] = /^session (\S+) prompt \S+ client (\S+)$/m.exec(waiting.stderr.text())!;
    // The suggested command repeats the --url given and the client id sent (never a token).
    const line = new RegExp(
      `^permission (\\S+): the agent asks to execute "echo ran > marker.txt"; it waits for an answer \\(nest-turn-status permissions ${sessionId} \\1 --allow\\|--deny --url ${daemon.url} --client-id ${clientId}\\)$`,
      'm',
    );
    expect(waiting.stderr.text()).toMatch(line);
    const requestId = line.exec(waiting.stderr.text())![1]!;
    expect(existsSync(marker)).toBe(false);

    const listed = await cli('permissions', sessionId!, '--url', daemon.url);
    expect(listed).toEqual({
      code: 0,
      stdout: `${requestId}\texecute "echo ran > marker.txt"\tproceed_once(allow_once) proceed_always(allow_always) reject(reject_once)\n`,
      stderr: '',
    });
    const json = await cli('permissions', sessionId!, '--url', daemon.url, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ requestId, kind: 'permission', action: { type: 'execute' } });
    // An option the request did not offer is the daemon's refusal, not a usage error.
    const notOffered = await cli('permissions', sessionId!, requestId, '--option', 'nope', '--url', daemon.url);
    expect(notOffered).toMatchObject({ code: 4, stderr: expect.stringMatching(/^400 permission_option_not_offered/) });

    expect(await cli('permissions', sessionId!, requestId, '--allow', '--url', daemon.url)).toEqual({
      code: 0,
      stdout: `${requestId} proceed_once\n`,
      stderr: '',
    });
    expect(await waiting.code).toBe(0);
    expect(waiting.stdout.text()).toBe('ran (proceed_once)\n');
    expect(existsSync(marker)).toBe(true);

    // Answered: no longer listed (nothing at all when piped; a line on a terminal), and a second answer is the
    // daemon's 404 (exit 5), whichever flag says it.
    expect(await cli('permissions', sessionId!, '--url', daemon.url)).toEqual({ code: 0, stdout: '', stderr: '' });
    const onTerminal = startCli(['permissions', sessionId!, '--url', daemon.url], { terminal: true });
    expect(await onTerminal.code).toBe(0);
    expect([onTerminal.stdout.text(), onTerminal.stderr.text()]).toEqual(['', 'no pending permission requests\n']);
    expect((await cli('permissions', sessionId!, requestId, '--allow', '--url', daemon.url)).code).toBe(5);
    const late = await cli('permissions', sessionId!, requestId, '--option', 'reject', '--url', daemon.url);
    expect(late.code).toBe(5);
    expect(late.stderr).toMatch(/404 permission_not_found/);
    expect((await cli('permissions', sessionId!, requestId, '--url', daemon.url)).code).toBe(4);
  });

  it.each([
    ['y', 'ran (proceed_once)', true],
    ['', 'refused', false],
    ['sure', 'refused', false],
  ])('on a terminal asks y/N for each request: %j answers, the result is %j', async (typed, result, ran) => {
    const run = startCli(['prompt', 'shell now', '--wait', '--url', daemon.url], { terminal: true });
    await run.stderr.shows('allow once? [y/N] ');
    expect(run.stderr.text()).toMatch(/permission \S+: the agent asks to execute "echo ran > marker.txt"\n/);
    run.stdin.write(`${typed}\n`);
    expect(await run.code).toBe(0);
    expect(run.stdout.text()).toBe(`${result}\n`);
    expect(existsSync(marker)).toBe(ran);
  });

  it('on a terminal takes the question away when another client answers first', async () => {
    const run = startCli(['prompt', 'shell now', '--wait', '--url', daemon.url], { terminal: true });
    await run.stderr.shows('allow once? [y/N] ');
    const [, sessionId] = /session (\S+) prompt/.exec(run.stderr.text())!;
    const [{ requestId }] = (await daemon.http.get(`/session/${sessionId}/status`)).body.pendingInteractions;
    await daemon.http
      .post(`/session/${sessionId}/permission/${requestId}`)
      .send({ outcome: { outcome: 'selected', optionId: 'reject' } })
      .expect(200);
    expect(await run.code).toBe(0);
    expect(run.stdout.text()).toBe('refused\n');
    // The question's line (ended, or taken by the note on the terminal), then the note.
    const dismissed = '\\[y/N\\] (\r\n)?\r\u001b\\[2Kpermission \\S+: no longer pending\n';
    expect(run.stderr.text()).toMatch(new RegExp(dismissed));
  });
});

describe('command line and tool approval under the designated responder', () => {
  jest.setTimeout(60_000);
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await acpDaemon('express', { permissionResponder: 'designated' });
  });
  afterAll(() => daemon.close(true));

  it("prompt is the originator of its session's prompt and may answer; another client is refused and told so", async () => {
    expect(await cli('prompt', 'shell now', '--wait', '--approve', '--url', daemon.url)).toMatchObject({
      code: 0,
      stdout: 'ran (proceed_once)\n',
    });

    const waiting = startCli(['prompt', 'shell now', '--wait', '--url', daemon.url]);
    await waiting.stderr.shows('waits for an answer');
    const [, suggested] = /waits for an answer \((nest-turn-status permissions .*)\)$/m.exec(waiting.stderr.text())!;
    const [, sessionId, requestId] = /permissions (\S+) (\S+) --allow/.exec(suggested!)!;
    // A client the policy refuses: the daemon's refusal (exit 4, docs/waiting.md), its code on stderr.
    const stranger = await cli('permissions', sessionId!, requestId!, '--allow', '--url', daemon.url);
    expect(stranger.code).toBe(4);
    expect(stranger.stderr).toMatch(/403 permission_forbidden/);
    // The command suggested, run as printed from another shell, answers as the originator (the client `prompt` sent).
    const [, clientId] = / --client-id (\S+)/.exec(suggested!)!;
    const originator = await daemon.http.get(`/session/${sessionId}/turns/current`).set('X-Qwen-Client-Id', clientId!);
    expect(originator.body.originatorClientId).toBe(clientId);
    const [, ...args] = suggested!.replace('--allow|--deny', '--deny').split(' ');
    expect(await cli(...args)).toMatchObject({ code: 0, stdout: `${requestId} reject\n` });
    expect(await waiting.code).toBe(0);
    expect(waiting.stdout.text()).toBe('refused\n');
  });
});

describe('the command line asks about one request at a time', () => {
  let daemon: TestDaemon;
  beforeAll(async () => {
    daemon = await startDaemon();
  });
  afterAll(() => daemon.close(true));

  it('two requests of one turn (the scripted engine asks both at once) are asked in turn, each answered as typed', async () => {
    const run = startCli(['prompt', 'tidy', '--wait', '--url', daemon.url], { terminal: true });
    const turn = await daemon.engine.nextTurn();
    const first = turn.askPermission('first tool');
    const second = turn.askPermission('second tool');
    await run.stderr.shows('allow once? [y/N] ');
    expect(run.stderr.text()).toContain('"first tool"');
    expect(run.stderr.text()).not.toContain('"second tool"');
    run.stdin.write('y\n');
    await expect(first).resolves.toEqual({ outcome: 'selected', optionId: 'allow_once' });
    await run.stderr.shows('the agent asks to execute "second tool"');
    run.stdin.write('n\n');
    await expect(second).resolves.toEqual({ outcome: 'selected', optionId: 'reject_once' });
    turn.say('half done');
    turn.finish();
    expect(await run.code).toBe(0);
    expect(run.stdout.text()).toBe('half done\n');
  });

  it('--approve leaves a request with no allow_once option, and suggests the options that work', async () => {
    const wide = [
      { optionId: 'always', name: 'Always', kind: 'allow_always' },
      { optionId: 'never', name: 'Never', kind: 'reject_always' },
    ];
    const run = startCli(['prompt', 'tidy', '--wait', '--approve', '--url', daemon.url]);
    const turn = await daemon.engine.nextTurn();
    const decision = turn.askPermission({ toolCall: { toolCallId: 'c1', title: 'wide', kind: 'execute' }, options: wide });
    await run.stderr.shows('waits for an answer');
    const line =
      /^permission (\S+): the agent asks to execute "wide", with no allow_once option, so --approve leaves it; it waits for an answer \((.*)\)$/m;
    const [, requestId, suggested] = line.exec(run.stderr.text())!;
    const [, sessionId] = /^session (\S+) prompt/.exec(run.stderr.text())!;
    expect(suggested).toMatch(
      new RegExp(`^nest-turn-status permissions ${sessionId} ${requestId} --option always\\|never --url \\S+ --client-id \\S+$`),
    );
    // --allow cannot say it either: the refusal names the options.
    const allow = await cli('permissions', sessionId!, requestId!, '--allow', '--url', daemon.url);
    expect(allow.code).toBe(4);
    expect(allow.stderr).toMatch(/^error: request \S+ offers no allow_once option; choose one with --option always\|never$/m);
    const [, ...args] = suggested!.replace('always|never', 'never').split(' ');
    expect(await cli(...args)).toMatchObject({ code: 0, stdout: `${requestId} never\n` });
    await expect(decision).resolves.toEqual({ outcome: 'selected', optionId: 'never' });
    turn.finish();
    expect(await run.code).toBe(0);
  });
});
