import { Counter, Gauge, Histogram } from 'prom-client';
import type { PromptBridge } from '../bridge/prompt-bridge.js';
import { TURNS_CHANNELS, type PollSource, type SettledState } from '../telemetry/turns-channels.js';
import type { MetricSeries } from './metric-series.js';
import { registerTokenCounter } from './token-counter.js';

const SCAN_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const PROMPT_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900, 1800, 3600];
const POLL_SOURCES: readonly PollSource[] = ['memory', 'scan', 'not_found', 'not_modified'];
const SETTLED_STATES: readonly SettledState[] = ['completed', 'cancelled', 'error'];

type Child = { inc(value?: number): void };

/** The series of turns: polls and the scans behind them, prompts from admission to their terminal, their tokens. */
export function registerTurnSeries(series: MetricSeries, bridge: PromptBridge): void {
  const { registers } = series;
  const polls = new Counter({
    name: 'turns_turn_polls_total',
    help: 'Turn polls answered, by where the answer came from',
    labelNames: ['source'],
    registers,
  });
  // Children bound once: the poll path only increments.
  const bySource = new Map(POLL_SOURCES.map((source) => [source, polls.labels(source) as Child]));
  series.on(TURNS_CHANNELS.poll, (source) => bySource.get(source)?.inc());

  const scanSeconds = new Histogram({
    name: 'turns_transcript_scan_duration_seconds',
    help: 'Transcript scans (a poll not answered from memory)',
    buckets: SCAN_BUCKETS,
    registers,
  });
  const scanBytes = new Counter({
    name: 'turns_transcript_scan_read_bytes_total',
    help: 'Bytes read from transcripts by scans',
    registers,
  });
  series.on(TURNS_CHANNELS.transcriptScan, ({ durationMs, bytesRead }) => {
    scanSeconds.observe(durationMs / 1_000);
    scanBytes.inc(bytesRead);
  });

  const admitted = new Counter({
    name: 'turns_prompts_admitted_total',
    help: 'Prompts admitted (acknowledged, or withdrawn: see turns_prompts_withdrawn_total)',
    registers,
  });
  series.on(TURNS_CHANNELS.promptAdmitted, () => admitted.inc());
  const withdrawn = new Counter({
    name: 'turns_prompts_withdrawn_total',
    help: 'Prompts admitted, then taken back unacknowledged (503: their ledger record was refused or failed)',
    registers,
  });
  series.on(TURNS_CHANNELS.promptWithdrawn, () => withdrawn.inc());
  const settled = new Counter({
    name: 'turns_prompts_settled_total',
    help: 'Prompts settled, by terminal state',
    labelNames: ['state'],
    registers,
  });
  const byState = new Map(SETTLED_STATES.map((state) => [state, settled.labels(state) as Child]));
  const queueWait = new Histogram({
    name: 'turns_prompt_queue_wait_seconds',
    help: 'Time from admission to dispatch into the session',
    buckets: PROMPT_BUCKETS,
    registers,
  });
  const run = new Histogram({
    name: 'turns_prompt_run_duration_seconds',
    help: 'Time from dispatch to the terminal state',
    buckets: PROMPT_BUCKETS,
    registers,
  });
  series.on(TURNS_CHANNELS.promptStarted, ({ queueWaitMs }) => queueWait.observe(queueWaitMs / 1_000));
  series.on(TURNS_CHANNELS.promptSettled, ({ state, runMs }) => {
    byState.get(state)?.inc();
    if (runMs !== undefined) run.observe(runMs / 1_000);
  });

  series.stopOnClose(registerTokenCounter(registers[0]));
  new Gauge({
    name: 'turns_prompts',
    help: 'Prompts queued and running now',
    labelNames: ['state'],
    registers,
    collect() {
      const counts = bridge.promptCounts();
      this.labels('queued').set(counts.queued);
      this.labels('running').set(counts.running);
    },
  });
}
