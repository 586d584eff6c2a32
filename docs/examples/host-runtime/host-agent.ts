import { Injectable } from '@nestjs/common';

/** The host's agent: answers one prompt's text, and stops when `signal` aborts. */
export abstract class HostAgent {
  abstract reply(text: string, signal: AbortSignal): Promise<string>;
}

/** An agent that answers `echo: <text>` at once. */
@Injectable()
export class EchoAgent extends HostAgent {
  reply(text: string): Promise<string> {
    return Promise.resolve(`echo: ${text}`);
  }
}
