// Server → client requests shown in the transcript: permission prompts (§8) and the ask tool's
// questions, each a card that stays (answered / withdrawn) after it is settled.

import type { PermissionItem, QuestionItem } from '../types';
import type { Draft } from './draft';
import { obj, str } from './parse';

export function askQuestion(d: Draft, requestKey: string, p: Record<string, unknown>): void {
  const options = Array.isArray(p.options)
    ? (p.options as unknown[]).map((o) => {
        const r = obj(o);
        const opt: { label: string; description?: string } = { label: str(r.label) };
        if (typeof r.description === 'string' && r.description) opt.description = r.description;
        return opt;
      })
    : [];
  const item: QuestionItem = {
    kind: 'question',
    id: `q:${requestKey}`,
    requestKey,
    toolCallId: str(p.toolCallId),
    question: str(p.question),
    options,
    allowFreeText: p.allowFreeText === true,
    multiSelect: p.multiSelect === true,
    status: 'pending',
    rev: 0,
  };
  d.push(item);
  d.vm.questions = [...d.vm.questions, d.get<QuestionItem>(item.id) as QuestionItem];
}

export function askPermission(d: Draft, requestKey: string, p: Record<string, unknown>): void {
  const options = Array.isArray(p.options)
    ? (p.options as unknown[]).map((o) => {
        const r = obj(o);
        return { id: str(r.id), label: str(r.label) || str(r.id), kind: str(r.kind) };
      })
    : [];
  const item: PermissionItem = {
    kind: 'permission',
    id: `p:${requestKey}`,
    requestKey,
    toolCallId: str(p.toolCallId),
    tool: str(p.tool),
    title: str(p.title) || `Allow ${str(p.tool)}?`,
    detail: str(p.detail),
    options,
    status: 'pending',
    rev: 0,
  };
  d.push(item);
  d.vm.permissions = [...d.vm.permissions, d.get<PermissionItem>(item.id) as PermissionItem];
}

export function settlePermission(d: Draft, requestKey: string, answer: string | undefined, withdrawn: boolean): void {
  d.update<PermissionItem>(`p:${requestKey}`, (p) => {
    p.status = withdrawn ? 'withdrawn' : 'answered';
    if (answer !== undefined) p.answer = answer;
  });
  d.vm.permissions = d.vm.permissions.filter((p) => p.requestKey !== requestKey);
}

export function settleQuestion(
  d: Draft,
  requestKey: string,
  answer: string | undefined,
  status: QuestionItem['status'],
): void {
  d.update<QuestionItem>(`q:${requestKey}`, (q) => {
    q.status = status;
    if (answer !== undefined) q.answer = answer;
  });
  d.vm.questions = d.vm.questions.filter((q) => q.requestKey !== requestKey);
}
