// What deserves a nudge (a notification) when the view model or the user's presence changes: a
// permission or question waiting (once each, the first moment the window is not focused or the
// panel is hidden while it waits), a run that ended while the user was away, the context past
// the warning share (always, once per crossing). Pure, so
// the unit tests cover it; src/nudges.ts shows them (docs: README "Notifications").

import type { ViewModel } from './model/types';

export interface NudgeSettings {
  permission: boolean;
  question: boolean;
  runEnd: boolean;
  /** Share of the context window past which compaction is near (0: never warn). */
  contextWarning: number;
}

export const DEFAULT_NUDGES: NudgeSettings = { permission: true, question: true, runEnd: true, contextWarning: 0.8 };

export type Nudge =
  | { kind: 'permission'; requestKey: string; text: string; allowOptionId?: string }
  | { kind: 'question'; requestKey: string; text: string }
  | { kind: 'runEnd'; text: string }
  | { kind: 'context'; text: string; share: number };

/** What the rules remember between two view models. */
export interface NudgeMemory {
  seen: Set<string>;
  streaming: boolean;
  warned: boolean;
  sessionId: string | null;
}

export function newMemory(): NudgeMemory {
  return { seen: new Set(), streaming: false, warned: false, sessionId: null };
}

/** "1.2k", "128k", "950". */
export function shortTokens(n: number): string {
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  if (n >= 1000) return `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k`;
  return String(n);
}

/**
 * The nudges `vm` calls for, given what was seen before (`mem` is updated). `away`: the
 * window is not focused or the panel is hidden.
 */
export function nudgesFor(vm: ViewModel, mem: NudgeMemory, away: boolean, s: NudgeSettings = DEFAULT_NUDGES): Nudge[] {
  const out: Nudge[] = [];
  if (vm.sessionId !== mem.sessionId) {
    mem.sessionId = vm.sessionId;
    mem.warned = false;
  }
  for (const p of vm.permissions) {
    if (mem.seen.has(p.requestKey) || !away || !s.permission) continue;
    mem.seen.add(p.requestKey);
    const allow = p.options.find((o) => o.kind === 'allowOnce');
    out.push({ kind: 'permission', requestKey: p.requestKey, text: `pi needs your permission: ${firstLine(p.title)}`, allowOptionId: allow?.id });
  }
  for (const q of vm.questions) {
    if (mem.seen.has(q.requestKey) || !away || !s.question) continue;
    mem.seen.add(q.requestKey);
    out.push({ kind: 'question', requestKey: q.requestKey, text: `pi asks: ${firstLine(q.question)}` });
  }
  if (mem.streaming && !vm.isStreaming && away && s.runEnd) out.push({ kind: 'runEnd', text: 'pi: the run is done' });
  mem.streaming = vm.isStreaming;
  const window = vm.contextWindow ?? 0;
  const used = vm.contextTokens ?? 0;
  if (s.contextWarning > 0 && window > 0) {
    const share = used / window;
    if (share < s.contextWarning) mem.warned = false;
    else if (!mem.warned) {
      mem.warned = true;
      out.push({
        kind: 'context',
        share,
        text:
          `pi: the context is ${Math.floor(share * 100)}% full (${shortTokens(used)}/${shortTokens(window)}): compaction is near. ` +
          '/compact summarises the earlier turns now and keeps the recent ones; otherwise pi compacts by itself when the context is full.',
      });
    }
  }
  return out;
}

/** The panel's badge: what waits for the user (permissions and questions). */
export function waitingCount(vm: ViewModel): number {
  return vm.permissions.length + vm.questions.length;
}

function firstLine(text: string): string {
  const line = (text ?? '').split('\n')[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/** One background process as the processes view shows it. */
export interface ProcessRow {
  id: string;
  command: string;
  running: boolean;
  exitCode?: number | null;
  uptime: number;
  lastLines?: string[];
}

export function uptimeText(seconds: number): string {
  const s = Math.floor(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor(s / 60) % 60).padStart(2, '0')}m`;
}

/** Label and description of a process row: "npm run dev", "bg1 · running 1m05s". */
export function processRow(p: ProcessRow): { label: string; description: string; tooltip: string } {
  const state = p.running ? `running ${uptimeText(p.uptime)}` : p.exitCode != null ? `ended (${p.exitCode})` : 'ended';
  const last = p.lastLines ?? [];
  return {
    label: p.command,
    description: `${p.id} · ${state}${last.length ? ` · ${last[last.length - 1]}` : ''}`,
    tooltip: [`${p.id}: ${p.command}`, state, ...last].join('\n'),
  };
}
