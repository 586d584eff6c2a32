// The demo's client: everything goes through the balancer, which spreads the
// requests over the daemons round robin; X-Turns-Node shows who answered.
const lb = process.argv[2];
const json = { 'content-type': 'application/json' };
/** Who answered, and who forwarded to it when the balancer picked another daemon. */
const who = (res) => {
  const via = res.headers.get('x-turns-via');
  return `answered by ${res.headers.get('x-turns-node')}${via ? ` via ${via}` : ''}`;
};

const created = await fetch(`${lb}/session`, { method: 'POST', headers: json, body: '{"sessionScope":"thread"}' });
const { sessionId, clientId } = await created.json();
console.log(`session ${sessionId} created on ${created.headers.get('x-turns-node')}`);

// Events through the balancer (streamed from the owner, wherever they land).
const events = new AbortController();
const stream = await fetch(`${lb}/session/${sessionId}/events`, { signal: events.signal });
const seen = (async () => {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of stream.body) {
    text += decoder.decode(chunk, { stream: true });
    if (text.includes('event: turn_complete')) return 'turn_complete';
  }
  return 'stream ended';
})().catch(() => 'stream aborted');

const admitted = await fetch(`${lb}/session/${sessionId}/prompt`, {
  method: 'POST',
  headers: { ...json, 'x-qwen-client-id': clientId },
  body: JSON.stringify({ prompt: [{ type: 'text', text: 'hello cluster' }] }),
});
const { promptId } = await admitted.json();
console.log(`prompt ${promptId} admitted (${who(admitted)})`);

for (let i = 0; i < 3; i++) {
  const res = await fetch(`${lb}/session/${sessionId}/turns/current`);
  const status = await res.json();
  console.log(`poll ${i + 1}: ${status.state} (${who(res)})`);
}
const waited = await fetch(`${lb}/session/${sessionId}/turns/${promptId}?waitMs=10000`);
const outcome = await waited.json();
console.log(`wait: ${outcome.state} "${outcome.resultText}" (${who(waited)})`);
const event = await Promise.race([seen, new Promise((resolve) => setTimeout(() => resolve('no event within 5 s'), 5_000))]);
events.abort();
console.log(`events: ${event} (${who(stream)})`);

const nodes = await (await fetch(`${lb}/cluster/nodes`)).json();
console.log(`nodes: ${nodes.nodes.map((n) => `${n.nodeId}=${n.sessions}`).join(' ')}`);
