// The reducer's vocabulary: the actions that change the view model and the effects a reduction
// asks the host to perform. Shared by the host (controller) and the webview.

import type {
  Checkpoint,
  Features,
  NoticeItem,
  Queue,
  QueueEntry,
  ReviewFile,
  ServerInfo,
  ViewModel,
  WireEvent,
} from '../types';

export interface WireNotification {
  sessionId: string;
  seq: number;
  event: WireEvent;
  /** A `task` child's event: the session it belongs under (docs/protocol.md#subagents). */
  parentSessionId?: string;
}

/** Everything that changes the view model. */
export type Action =
  | { type: 'server'; server: ServerInfo }
  | { type: 'features'; features: Partial<Features> }
  | { type: 'event'; note: WireNotification }
  | { type: 'replay'; sessionId: string; events: WireNotification[]; complete: boolean }
  | { type: 'beginSession'; sessionId: string }
  | {
      type: 'loadSession';
      sessionId: string;
      messages: unknown[];
      entryIds?: (string | null)[];
      /** A run is going: the messages are those before it, and its events after this seq
       * (`pi/replay`, then live) rebuild it — earlier ones are dropped as already shown. */
      afterSeq?: number;
    }
  | { type: 'state'; state: Record<string, unknown> }
  | { type: 'queue'; queue: Queue }
  /** The prompts held until the server runs (whole list). */
  | { type: 'waiting'; waiting: QueueEntry[] }
  | { type: 'localQueue'; text: string; deliverAs: 'steer' | 'followUp' }
  | { type: 'review'; files: ReviewFile[] }
  | { type: 'checkpoints'; checkpoints: Checkpoint[] }
  | { type: 'entryIds'; users: { entryId: string; text: string }[] }
  | { type: 'permissionAsk'; requestKey: string; params: Record<string, unknown> }
  | { type: 'permissionDone'; requestKey: string; answer?: string; withdrawn?: boolean }
  | { type: 'questionAsk'; requestKey: string; params: Record<string, unknown> }
  | { type: 'questionDone'; requestKey: string; answer?: string; status: 'answered' | 'dismissed' | 'withdrawn' }
  | { type: 'notice'; level: NoticeItem['level']; topic: string; text: string; restoreId?: string }
  | { type: 'disconnected'; reason: string };

/** What the host must do after a reduction (the webview ignores effects). */
export type Effect =
  | { type: 'replay'; sessionId: string; afterSeq: number }
  | { type: 'reload'; sessionId: string }
  | { type: 'refresh'; sessionId: string };

export interface Result {
  vm: ViewModel;
  effects: Effect[];
}
