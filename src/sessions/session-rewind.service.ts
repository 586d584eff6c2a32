import { Injectable } from '@nestjs/common';
import { promptNotFound } from '../errors/api-errors.js';
import { PromptBridge } from '../bridge/prompt-bridge.js';
import { SessionEventBus } from '../events/session-event-bus.js';
import { ChatRecordingService } from '../transcript/chat-recording.service.js';
import { PromptLedger } from '../ledger/prompt-ledger.js';
import { rewindSnapshotId, snapshotTurnIndex } from './rewind-snapshot-id.js';
import { SessionsService } from './sessions.service.js';

/**
 * One turn a rewind can go back to, as the peer lists it.
 *
 * @publicApi
 */
export interface RewindSnapshot {
  /** The peer's snapshot id, `<sessionId>########<turnIndex>`. */
  promptId: string;
  turnIndex: number;
  /** When its prompt was recorded (ISO 8601). */
  timestamp: string;
}

/**
 * What a rewind did; we rewind the chat only, so no file is ever changed.
 *
 * @publicApi
 */
export interface RewindResult {
  rewound: true;
  targetTurnIndex: number;
  filesChanged: string[];
  filesFailed: string[];
}

/**
 * Rewinds a live session's active chain to before a prompt, named by its
 * promptId or by the peer's snapshot id (docs/routes.md, docs/qwen-serve.md), and lists the turns
 * it can go back to.
 *
 * @publicApi
 */
@Injectable()
export class SessionRewindService {
  constructor(
    private readonly sessions: SessionsService,
    private readonly bridge: PromptBridge,
    private readonly recorder: ChatRecordingService,
    private readonly events: SessionEventBus,
    private readonly ledger: PromptLedger,
  ) {}

  /** The active chain's turns, oldest first (turn 0 is the first prompt). */
  async snapshots(sessionId: string): Promise<RewindSnapshot[]> {
    this.sessions.require(sessionId);
    const prompts = await this.recorder.activePrompts(sessionId);
    return prompts.map(({ timestamp }, turnIndex) => ({ promptId: rewindSnapshotId(sessionId, turnIndex), turnIndex, timestamp }));
  }

  /** `409 session_busy` while a prompt is queued or running; `404 prompt_not_found` off the active chain. */
  async rewind(sessionId: string, target: string): Promise<RewindResult> {
    this.sessions.require(sessionId);
    // Admissions wait out the rewind, so no prompt lands on the branch being left.
    this.bridge.beginRewind(sessionId);
    let rewound = false;
    let promptId = target;
    let targetTurnIndex = -1;
    try {
      const prompts = await this.recorder.activePrompts(sessionId);
      const snapshot = snapshotTurnIndex(sessionId, target);
      if (snapshot !== undefined) promptId = prompts[snapshot]?.promptId ?? target;
      targetTurnIndex = prompts.findIndex((prompt) => prompt.promptId === promptId);
      rewound = targetTurnIndex >= 0 && (await this.recorder.rewind(sessionId, promptId));
      // Before admission reopens and waiters wake: the ledger no longer answers for the prompts left behind.
      if (rewound) await this.ledger.forgetFrom(sessionId, promptId);
    } finally {
      this.bridge.endRewind(sessionId, rewound);
    }
    if (!rewound) throw promptNotFound(sessionId, target);
    const result: RewindResult = { rewound: true, targetTurnIndex, filesChanged: [], filesFailed: [] };
    const { rewound: _rewound, ...data } = result;
    this.events.publish(sessionId, 'session_rewound', { promptId, data: { sessionId, promptId, ...data } });
    return result;
  }
}
