import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { FrontRequest } from '../http/front-door.js';
import { setPrincipal, type Principal } from '../http/request-principal.js';
import { sessionOwnerCheck } from './session-owner-stage.js';

const SESSION = '0b7e8a52-2f0c-4a57-9d6e-6f1f4d1c0a11';

/** Runs the stage over one request; what it answered, or `next` when it passed the request on. */
function run(url: string, principal: Principal | undefined, mayAccess: boolean) {
  // A real response with no socket: its head stays in `_header`, and `end` is caught for the body.
  const req = new IncomingMessage(new Socket());
  req.url = url;
  req.method = 'POST';
  if (principal) setPrincipal(req, principal);
  const answer: { status?: number; body?: unknown } = {};
  const res = new ServerResponse(req);
  res.end = ((body: string) => {
    answer.status = res.statusCode;
    answer.body = JSON.parse(body);
    return res;
  }) as ServerResponse['end'];
  const asked: Array<[string, Principal | undefined]> = [];
  const stage = sessionOwnerCheck({
    mayAccess: (sessionId, who) => {
      asked.push([sessionId, who]);
      return mayAccess;
    },
  });
  let passed = false;
  stage(new FrontRequest(req, res, undefined), () => (passed = true));
  return { passed, answer, asked };
}

describe('sessionOwnerCheck', () => {
  const bob = { name: 'bob', operator: false };

  it('passes a request the session is visible to, asking with its principal', () => {
    const { passed, asked } = run(`/session/${SESSION}/turns/current`, bob, true);
    expect(passed).toBe(true);
    expect(asked).toEqual([[SESSION, bob]]);
  });

  it('answers a session path of a session not visible to it as a missing session', () => {
    const { passed, answer } = run(`/session/${SESSION}/prompt`, bob, false);
    expect(passed).toBe(false);
    expect(answer).toEqual({ status: 404, body: { error: expect.any(String), code: 'session_not_found', sessionId: SESSION } });
  });

  it('answers the unscoped permission route as for a request of no live session', () => {
    const { answer } = run(`/permission/${SESSION}.0123456789abcdef`, bob, false);
    expect(answer).toEqual({
      status: 404,
      body: { error: expect.any(String), code: 'permission_not_found', requestId: `${SESSION}.0123456789abcdef` },
    });
  });

  it('reads the session as the frameworks route the path: a percent-encoded id or a capital prefix is the same session', () => {
    const encoded = `%${SESSION.charCodeAt(0).toString(16)}${SESSION.slice(1)}`;
    for (const path of [
      `/session/${encoded}/turns/current`,
      `/SESSION/${SESSION}/turns/current`,
      `/Permission/${encoded}.0123456789abcdef`,
    ]) {
      const { passed, answer } = run(path, bob, false);
      expect({ path, passed, status: answer.status }).toEqual({ path, passed: false, status: 404 });
    }
  });

  it('echoes only the request id it read, and survives a path whose rest does not decode', () => {
    const { answer } = run(`/permission/${SESSION}.0123456789abcdef/%E0`, bob, false);
    expect(answer.body).toMatchObject({ code: 'permission_not_found', requestId: `${SESSION}.0123456789abcdef` });
    expect(run(`/session/${SESSION.slice(0, 8)}%E0/turns/current`, bob, false).passed).toBe(true);
  });

  it('asks nothing for a path of no session', () => {
    const { passed, asked } = run('/session', bob, false);
    expect([passed, asked]).toEqual([true, []]);
  });
});
