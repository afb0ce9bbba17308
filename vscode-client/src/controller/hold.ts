// Prompts sent before the server runs (the panel still says "Starting the pi server…", or the
// client is restarting a server that stopped): held here, shown at the end of the transcript
// as waiting, and sent in order once the server runs. When the server does not come up
// (not found, failed to start, stopped) the wait fails with the reason: the caller gives the
// text back to the input box (RunControl). Nothing typed is dropped on the way.

import type { QueueEntry, ServerInfo, ViewModel } from '../model/types';
import type { Host } from './host';

/** A prompt's place while it waits: `ahead` prompts were waiting before it; `done` takes it
 * off the transcript (when it goes to the server, or fails). */
export interface Held {
  ahead: number;
  done(): void;
}

/** Why a prompt cannot go: the server's state in words. */
export function notRunning(s: ServerInfo): string {
  if (s.message) return s.message;
  return s.status === 'missing' ? 'the pi-lsp server was not found' : `the pi server is ${s.status}`;
}

export class PromptHold {
  private waiting: QueueEntry[] = [];
  private next = 1;
  /** Settles when the last held prompt has gone (or failed): the next one goes after it. */
  private last: Promise<void> = Promise.resolve();

  constructor(private readonly host: Host) {}

  /** Resolves once the server runs (at once when it does); the text shows as waiting
   * meanwhile. Rejects with the reason when the server is, or ends up, not running. */
  async untilRunning(text: string): Promise<Held> {
    const none: Held = { ahead: 0, done: () => undefined };
    const server = this.host.state().server;
    if (server.status === 'running') return none;
    if (server.status !== 'starting') throw new Error(notRunning(server));
    const entry: QueueEntry = { id: `wait:${this.next++}`, text };
    const ahead = this.waiting.length;
    this.set([...this.waiting, entry]);
    const before = this.last;
    let gone = () => undefined as void;
    this.last = new Promise<void>((resolve) => (gone = resolve));
    const done = () => {
      if (this.waiting.includes(entry)) this.set(this.waiting.filter((e) => e !== entry));
      gone();
    };
    try {
      await serverRunning(this.host);
      await before; // in the order they were typed
    } catch (err) {
      done();
      throw err;
    }
    return { ahead, done };
  }

  private set(waiting: QueueEntry[]): void {
    this.waiting = waiting;
    this.host.dispatch({ type: 'waiting', waiting });
  }
}

/** Settles when the server leaves "starting": resolved when it runs, rejected otherwise. */
function serverRunning(host: Host): Promise<void> {
  return new Promise((resolve, reject) => {
    const sub = host.onDidChange((vm: ViewModel) => {
      const s = vm.server;
      if (s.status === 'starting') return;
      sub.dispose();
      if (s.status === 'running') resolve();
      else reject(new Error(notRunning(s)));
    });
  });
}
