import { Injectable } from '@nestjs/common';
import { BridgeOverlayProvider, limitTurnFields, type LiveTurnStatus, type TerminalOverlay } from 'nest-turn-status';
import { HostRuntime, type HostPrompt } from './host-runtime.js';

/**
 * What `TurnsModule` asks of the host's runtime: its sessions and their
 * client ids, the live FIFO, change notifications — and the overlay the
 * runtime feeds with each terminal. Read on every poll: synchronous, no I/O.
 */
@Injectable()
export class HostBridge extends BridgeOverlayProvider {
  constructor(private readonly runtime: HostRuntime) {
    super();
  }

  get overlay(): TerminalOverlay {
    return this.runtime.overlay;
  }

  hasSession(sessionId: string): boolean {
    return this.runtime.session(sessionId) !== undefined;
  }

  isClientRegistered(sessionId: string, clientId: string): boolean {
    return this.runtime.session(sessionId)?.clientIds.has(clientId) ?? false;
  }

  getLive(sessionId: string, promptId?: string): LiveTurnStatus | undefined {
    const session = this.runtime.session(sessionId);
    const prompt =
      promptId === undefined
        ? (session?.running ?? session?.queued[0])
        : [session?.running, ...(session?.queued ?? [])].find((live) => live?.promptId === promptId);
    return prompt && liveStatus(sessionId, prompt);
  }

  override listLive(sessionId: string): LiveTurnStatus[] {
    const session = this.runtime.session(sessionId);
    if (!session) return [];
    return [...(session.running ? [session.running] : []), ...session.queued].map((prompt) => liveStatus(sessionId, prompt));
  }

  override watch(sessionId: string, listener: () => void): (() => void) | undefined {
    return this.runtime.watch(sessionId, listener);
  }
}

/** A queued or running prompt as a poll answers it, within the wire limits. */
function liveStatus(sessionId: string, prompt: HostPrompt): LiveTurnStatus {
  const { promptId, text, clientId, queuedAt, startedAt } = prompt;
  const fields = limitTurnFields({ promptId, promptText: text, originatorClientId: clientId });
  if (startedAt === undefined) return { sessionId, state: 'queued', ...fields, queuedAt };
  return { sessionId, state: 'running', ...fields, queuedAt, startedAt };
}
