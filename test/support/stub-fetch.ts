// A scripted fetch and answer builders for the client's specs (src/client/*.spec.ts).

/** One scripted answer: a status, a JSON body (none when undefined) and headers. */
export type StubAnswer = { status: number; body?: unknown; headers?: Record<string, string> };

/** A fetch that answers from a script, in order, and records what it was asked; it throws past the script's end. */
export function stubFetch(answers: Array<StubAnswer | ((url: string, init: RequestInit) => StubAnswer)>) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const fetch = async (url: string | URL | Request, init: RequestInit = {}) => {
    calls.push({ url: String(url), init });
    const next = answers.shift();
    if (!next) throw new Error(`unexpected request ${String(url)}`);
    const answer = typeof next === 'function' ? next(String(url), init) : next;
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), { status: answer.status, headers: answer.headers });
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

/** A scripted step that fails as fetch does when it cannot connect. */
export const unreachable = (): StubAnswer => {
  throw new TypeError('fetch failed');
};

/** `GET /capabilities` naming these features. */
export const caps = (features: string[], limits: object = { maxWaitMs: 30_000 }): StubAnswer => ({
  status: 200,
  body: { v: 1, features, workspaceCwd: '/', limits, workspaces: [] },
});

/** A turn status of prompt `p` of session `s`. */
export const status = (state: string, extra: object = {}) => ({ sessionId: 's', promptId: 'p', state, queuedAt: 1, ...extra });

/** A header a request was sent with. */
export const header = (init: RequestInit, name: string) => new Headers(init.headers).get(name);
