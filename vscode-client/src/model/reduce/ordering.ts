// pi/event ordering: duplicates dropped, gaps held until pi/replay fills them (a gap asks the
// host for \`pi/replay\`; a replay the server can no longer fill asks for a reload).

import type { WireNotification } from './actions';
import type { Draft } from './draft';
import { applyChildEvent } from './children';
import { applyEvent } from './events';

export function acceptEvent(d: Draft, note: WireNotification): void {
  const vm = d.vm;
  if (note.parentSessionId !== undefined) {
    // a task child's event: into its card's transcript (its own seq; no replay for children)
    if (note.parentSessionId === vm.sessionId) applyChildEvent(d, note.sessionId, note.event);
    return;
  }
  if (vm.sessionId === null) vm.sessionId = note.sessionId;
  if (note.sessionId !== vm.sessionId) return; // another session: shown when resumed
  const seq = note.seq;
  if (vm.lastSeq !== null) {
    if (seq <= vm.lastSeq) return; // replayed or duplicated
    if (seq > vm.lastSeq + 1) {
      if (!vm.held.some((h) => h.seq === seq)) {
        vm.held = [...vm.held, { seq, event: note.event }].sort((a, b) => a.seq - b.seq);
      }
      if (vm.replayAfter === null) {
        vm.replayAfter = vm.lastSeq;
        d.effects.push({ type: 'replay', sessionId: note.sessionId, afterSeq: vm.lastSeq });
      }
      return;
    }
  }
  applyEvent(d, note.event);
  vm.lastSeq = seq;
  drainHeld(d);
}

function drainHeld(d: Draft): void {
  const vm = d.vm;
  while (vm.held.length > 0 && vm.lastSeq !== null && vm.held[0].seq <= vm.lastSeq + 1) {
    const [first, ...rest] = vm.held;
    vm.held = rest;
    if (first.seq === vm.lastSeq + 1) {
      applyEvent(d, first.event);
      vm.lastSeq = first.seq;
    }
  }
  if (vm.held.length === 0) vm.replayAfter = null;
}

export function applyReplay(
  d: Draft,
  a: { sessionId: string; events: WireNotification[]; complete: boolean },
): void {
  const vm = d.vm;
  if (a.sessionId !== vm.sessionId) return;
  const events = a.events.slice().sort((x, y) => x.seq - y.seq);
  for (const note of events) {
    if (vm.lastSeq !== null && note.seq <= vm.lastSeq) continue;
    if (vm.lastSeq !== null && note.seq > vm.lastSeq + 1) break; // still a hole
    applyEvent(d, note.event);
    vm.lastSeq = note.seq;
  }
  drainHeld(d);
  vm.replayAfter = null;
  if (!a.complete || vm.held.length > 0) {
    // The server's buffer no longer holds what we missed: reload the transcript.
    vm.held = [];
    d.effects.push({ type: 'reload', sessionId: a.sessionId });
  }
}
