import { captureContext, endSpan, SpanKind, startSpan, tracingEnabled, withSpan, type TurnSpan } from '../telemetry/tracing.js';
import type { TurnObserver } from './turn-transition.js';

/**
 * A prompt's `turns.prompt.execute` span, from the stream: opened when it
 * starts, a child of the context its admission ran in (the
 * `turns.prompt.admit` span), and ended with its terminal state. Costs
 * nothing until OpenTelemetry is loaded.
 */
export class TurnSpans {
  private readonly admittedIn = new Map<string, unknown>();
  private readonly spans = new Map<string, TurnSpan>();

  readonly observe: TurnObserver = (transition) => {
    const { kind, promptId, sessionId, status } = transition;
    if (kind === 'admitted') {
      if (tracingEnabled()) this.admittedIn.set(promptId, captureContext());
    } else if (kind === 'started') {
      const parent = this.admittedIn.get(promptId);
      this.admittedIn.delete(promptId);
      const span = startSpan('turns.prompt.execute', SpanKind.INTERNAL, parent);
      if (!span) return;
      span.setAttributes({ 'turns.session_id': sessionId, 'turns.prompt_id': promptId });
      this.spans.set(promptId, span);
    } else if (kind === 'settled' || kind === 'withdrawn') {
      this.admittedIn.delete(promptId);
      const span = this.spans.get(promptId);
      if (!span) return;
      this.spans.delete(promptId);
      span.setAttribute('turns.state', status.state);
      endSpan(span, status.state === 'error' ? new Error(status.error.code ?? 'error') : undefined);
    }
  };

  /** Runs the prompt's execution with its span active, so the engine's spans are its children. */
  run<T>(promptId: string, fn: () => T): T {
    return withSpan(this.spans.get(promptId), fn);
  }
}
