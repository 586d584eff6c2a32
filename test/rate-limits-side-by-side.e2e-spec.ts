import { randomUUID } from 'node:crypto';
import { startOpenAiStub } from './support/openai-stub.js';
import { startQwenServe } from './support/qwen-serve.js';
import { startDaemon } from './support/test-daemon.js';

/**
 * Issue 44's figures: the rate limits of `qwen serve` 0.24.4 and ours on the
 * same run, the same budgets (prompt 2, mutation 3, read 12 a minute), each
 * daemon fresh per scenario. Prints the `429` bodies and headers of both, and
 * 14 reads with a fresh well-formed client id each (the peer keys loopback
 * traffic by that id; ours by the principal and an id it issued). Opt-in, as the peer is a
 * large install (`npm install --prefix /tmp/qwen @qwen-code/qwen-code@0.24.4`):
 * `QWEN_BIN=/tmp/qwen/node_modules/.bin/qwen npx jest test/rate-limits-side-by-side.e2e-spec.ts`.
 */
const QWEN_BIN = process.env.QWEN_BIN;
const BUDGETS = { prompt: 2, mutation: 3, read: 12 };

interface Running {
  url: string;
  stop(): Promise<void>;
}

const SIDES: Array<{ name: string; start(stubUrl: string): Promise<Running> }> = [
  {
    name: 'qwen serve 0.24.4',
    start: async (stubUrl) => {
      const flags = ['--rate-limit', '--rate-limit-prompt', '2', '--rate-limit-mutation', '3', '--rate-limit-read', '12'];
      const serve = await startQwenServe(QWEN_BIN!, stubUrl, 'default', flags);
      return { url: serve.url, stop: serve.stop };
    },
  },
  {
    name: 'ours',
    start: async () => {
      const daemon = await startDaemon({
        rateLimit: true,
        rateLimitPrompt: BUDGETS.prompt,
        rateLimitMutation: BUDGETS.mutation,
        rateLimitRead: BUDGETS.read,
      });
      return { url: daemon.url, stop: () => daemon.close(true) };
    },
  },
];

/** A refusal as the wire shows it: status, body, and the rate-limit headers. */
interface Refusal {
  status: number;
  body: unknown;
  headers: Record<string, string | null>;
}

const HEADERS = ['retry-after', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];

/** Sends `count` requests; the statuses, and the last answer as a {@link Refusal}. */
async function run(count: number, send: () => Promise<Response>): Promise<{ statuses: number[]; last: Refusal }> {
  const statuses: number[] = [];
  let last: Refusal | undefined;
  for (let i = 0; i < count; i++) {
    const res = await send();
    const text = await res.text();
    statuses.push(res.status);
    last = {
      status: res.status,
      body: text ? (JSON.parse(text) as unknown) : undefined,
      headers: Object.fromEntries(HEADERS.map((name) => [name, res.headers.get(name)])),
    };
  }
  return { statuses, last: last! };
}

const json = { 'content-type': 'application/json' };
const prompt = JSON.stringify({ prompt: [{ type: 'text', text: 'hi' }] });

/** Each tier past its budget: reads of /capabilities, prompts and cancels of a session nobody has (counted all the same). */
const SCENARIOS = {
  // Not /capabilities: the peer answers it outside its limits (15 in a row: 200).
  read: (url: string) => run(BUDGETS.read + 1, () => fetch(`${url}/session/${randomUUID()}/status`)),
  prompt: (url: string) =>
    run(BUDGETS.prompt + 1, () => fetch(`${url}/session/${randomUUID()}/prompt`, { method: 'POST', headers: json, body: prompt })),
  mutation: (url: string) => run(BUDGETS.mutation + 1, () => fetch(`${url}/session/${randomUUID()}/cancel`, { method: 'POST' })),
  // A live session's status, each read with a fresh well-formed client id.
  minted: async (url: string) => {
    const created = await fetch(`${url}/session`, { method: 'POST', headers: json, body: '{}' });
    const { sessionId } = (await created.json()) as { sessionId: string };
    return run(14, () => fetch(`${url}/session/${sessionId}/status`, { headers: { 'x-qwen-client-id': `client_${randomUUID()}` } }));
  },
};

(QWEN_BIN ? describe : describe.skip)('rate limits side by side with qwen serve 0.24.4', () => {
  jest.setTimeout(180_000);
  let stub: Awaited<ReturnType<typeof startOpenAiStub>>;
  const seen: Record<string, Record<string, { statuses: number[]; last: Refusal }>> = {};

  beforeAll(async () => {
    stub = await startOpenAiStub();
  });
  afterAll(async () => {
    await stub?.close();
    process.stdout.write(`\n${JSON.stringify(seen, null, 2)}\n`);
  });

  it.each(Object.keys(SCENARIOS) as Array<keyof typeof SCENARIOS>)('%s', async (scenario) => {
    for (const side of SIDES) {
      const daemon = await side.start(stub.baseUrl);
      try {
        (seen[scenario] ??= {})[side.name] = await SCENARIOS[scenario](daemon.url);
      } finally {
        await daemon.stop();
      }
    }
    const [peer, ours] = SIDES.map((side) => seen[scenario]![side.name]!);
    if (scenario === 'minted') {
      // The peer keys loopback traffic by the declared id: never limited. Ours: an id it did not issue is refused
      // (400 invalid_client_id) and counted as the anonymous traffic it is: the 13th is refused.
      expect(peer!.statuses).toEqual(Array(14).fill(200));
      expect(ours!.statuses).toEqual([...Array<number>(12).fill(400), 429, 429]);
      return;
    }
    for (const side of [peer!, ours!]) {
      expect(side.last).toEqual({
        status: 429,
        body: { error: 'Rate limit exceeded', code: 'rate_limit_exceeded', tier: scenario, retryAfterMs: expect.any(Number) },
        headers: {
          'retry-after': expect.stringMatching(/^\d+$/),
          'x-ratelimit-limit': String(BUDGETS[scenario]),
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': expect.stringMatching(/^\d{10}$/),
        },
      });
    }
  });
});
