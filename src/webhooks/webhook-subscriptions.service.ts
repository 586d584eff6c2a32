import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { writeAtomically } from '../common/durable-files.js';
import { apiError } from '../errors/api-errors.js';
import { Clock } from '../common/clock.js';
import { ChatRecordingService } from '../transcript/chat-recording.service.js';
import { WEBHOOK_SETTINGS, type WebhookSettings } from './webhooks.settings.js';
import type { StoredWebhook } from './webhook-subscription.js';

/** The file next to a transcript that holds its session's subscriptions. */
const SUFFIX = '.webhooks.json';

/**
 * A session's webhook subscriptions, kept in a file beside its transcript
 * (`<sessionId>.webhooks.json`, mode 0600: it holds secrets) so they come back
 * with `load` and a fork, a new session, has none. Read at each use — events
 * are per turn, not per poll — and written whole (temp file + rename), one
 * change at a time per session.
 */
@Injectable()
export class WebhookSubscriptions {
  private readonly writing = new Map<string, Promise<unknown>>();

  constructor(
    private readonly recorder: ChatRecordingService,
    private readonly clock: Clock,
    @Inject(WEBHOOK_SETTINGS) private readonly settings: WebhookSettings,
  ) {}

  /** The subscriptions file of a live session (whose transcript is attached); `undefined` otherwise. */
  fileOf(sessionId: string): string | undefined {
    return this.recorder.companionPath(sessionId, SUFFIX);
  }

  /** The subscriptions in `file`; none when it does not exist or does not parse. */
  async read(file: string): Promise<StoredWebhook[]> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      return [];
    }
    try {
      const parsed = JSON.parse(text) as { webhooks?: unknown };
      return Array.isArray(parsed.webhooks) ? (parsed.webhooks as StoredWebhook[]) : [];
    } catch {
      return [];
    }
  }

  async list(sessionId: string): Promise<StoredWebhook[]> {
    const file = this.fileOf(sessionId);
    return file ? this.read(file) : [];
  }

  /** Adds one; `409 too_many_webhooks` at the per-session bound. */
  add(sessionId: string, fields: Pick<StoredWebhook, 'url' | 'events' | 'secret' | 'token'>): Promise<StoredWebhook> {
    return this.change(sessionId, (webhooks) => {
      const limit = this.settings.maxPerSession;
      if (webhooks.length >= limit) throw apiError('too_many_webhooks', { sessionId, limit });
      const created: StoredWebhook = {
        webhookId: `wh_${randomUUID()}`,
        url: fields.url,
        events: fields.events,
        createdAt: this.clock.now(),
        secret: fields.secret,
        ...(fields.token !== undefined && { token: fields.token }),
      };
      return { webhooks: [...webhooks, created], result: created };
    });
  }

  /** Removes one; false when there is none of that id. */
  remove(sessionId: string, webhookId: string): Promise<boolean> {
    return this.change(sessionId, (webhooks) => {
      const kept = webhooks.filter((w) => w.webhookId !== webhookId);
      return { webhooks: kept, result: kept.length !== webhooks.length };
    });
  }

  /** Marks one disabled (its receiver answered `410`), in the file it was read from. */
  disable(file: string, webhookId: string): Promise<void> {
    return this.changeFile(file, (webhooks) => ({
      webhooks: webhooks.map((w) => (w.webhookId === webhookId && w.disabledAt === undefined ? { ...w, disabledAt: this.clock.now() } : w)),
      result: undefined,
    }));
  }

  private change<T>(sessionId: string, edit: (webhooks: StoredWebhook[]) => { webhooks: StoredWebhook[]; result: T }): Promise<T> {
    const file = this.fileOf(sessionId);
    if (!file) return Promise.reject(apiError('session_not_found', { sessionId }));
    return this.changeFile(file, edit);
  }

  /** Read, edit, write whole — after the file's previous change. */
  private changeFile<T>(file: string, edit: (webhooks: StoredWebhook[]) => { webhooks: StoredWebhook[]; result: T }): Promise<T> {
    const run = (this.writing.get(file) ?? Promise.resolve())
      .catch(() => undefined)
      .then(async () => {
        const { webhooks, result } = edit(await this.read(file));
        await writeAtomically(file, JSON.stringify({ v: 1, webhooks }));
        return result;
      });
    this.writing.set(file, run);
    void run.finally(() => this.writing.get(file) === run && this.writing.delete(file)).catch(() => undefined);
    return run;
  }
}
