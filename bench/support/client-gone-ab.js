// In-process A/B of how a held request hears its client go away: ClientGone (dist/) against an
// AbortController aborted on the response's `close`, 10,000 at once on response-like emitters,
// interleaved rounds: V8 heap a held request after a full GC, and the time to start and release one.
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { ClientGone } from '../../dist/turns/wait/client-gone.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

function abortController(response) {
  const controller = new AbortController();
  const onClose = () => {
    if (!response.writableFinished) controller.abort();
  };
  response.on('close', onClose);
  return { signal: controller.signal, release: () => response.removeListener('close', onClose) };
}

const VARIANTS = {
  ClientGone: (response, listener) => {
    const gone = new ClientGone(response);
    gone.addEventListener('abort', listener);
    return () => {
      gone.removeEventListener('abort', listener);
      gone.release();
    };
  },
  AbortController: (response, listener) => {
    const gone = abortController(response);
    gone.signal.addEventListener('abort', listener);
    return () => {
      gone.signal.removeEventListener('abort', listener);
      gone.release();
    };
  },
};

function heapUsed() {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** One variant, `count` at once: KB of heap and µs of start + release a held request. */
function measure(start, count) {
  const responses = Array.from({ length: count }, () => Object.assign(new EventEmitter(), { writableFinished: false }));
  const listener = () => undefined;
  const before = heapUsed();
  const t0 = performance.now();
  const releases = responses.map((response) => start(response, listener));
  const t1 = performance.now();
  const held = heapUsed();
  const t2 = performance.now();
  for (const release of releases) release();
  const t3 = performance.now();
  return { kb: (held - before) / count / 1024, us: ((t1 - t0 + t3 - t2) * 1000) / count };
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** Medians of `rounds` interleaved rounds, as one printable line. */
export function clientGoneAb(count = 10_000, rounds = 7) {
  const runs = { ClientGone: [], AbortController: [] };
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 ? ['AbortController', 'ClientGone'] : ['ClientGone', 'AbortController'];
    for (const name of order) runs[name].push(measure(VARIANTS[name], count));
  }
  const row = (name) => `${median(runs[name].map((r) => r.kb)).toFixed(2)} KB, ${median(runs[name].map((r) => r.us)).toFixed(1)} µs`;
  return `a held request's client-gone signal, in-process (${count.toLocaleString('en')} at once, ${rounds} rounds): ClientGone ${row('ClientGone')}; AbortController ${row('AbortController')} (heap after a full GC; start + release)`;
}
