import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ToolItem } from '../../src/model/types';
import { Driver, upd } from './helpers';

const taskCard = (d: Driver) => d.vm.items.find((i): i is ToolItem => i.kind === 'tool' && i.toolName === 'task');

function child(d: Driver, seq: number, event: Record<string, unknown>, parent = 'S'): Driver {
  return d.act({ type: 'event', note: { sessionId: 'C1', parentSessionId: parent, seq, event: event as { type: string } } });
}

test('a task card carries its child: state, live transcript, usage at the end', () => {
  const d = new Driver();
  d.ev(
    { type: 'agent_start' },
    { type: 'tool_execution_start', toolCallId: 'call_t', toolName: 'task', args: { description: 'look', prompt: 'p' } },
    {
      type: 'subagent_update',
      childSessionId: 'C1',
      toolCallId: 'call_t',
      agent: 'general',
      description: 'look',
      state: 'running',
    },
  );
  assert.equal(taskCard(d)?.child?.state, 'running');
  child(d, 1, { type: 'agent_start' });
  child(d, 2, { type: 'tool_execution_start', toolCallId: 'c_1', toolName: 'read', args: { path: 'a.py' } });
  child(d, 3, {
    type: 'tool_execution_end',
    toolCallId: 'c_1',
    toolName: 'read',
    result: { content: [{ type: 'text', text: 'def f(): pass' }] },
    isError: false,
  });
  child(d, 4, upd('text_delta', 0, { delta: 'It defines ' }));
  child(d, 5, upd('text_delta', 0, { delta: 'f.' }));
  child(d, 6, upd('text_delta', 0, { delta: 'ignored' }), 'OTHER'); // another session's child
  const entries = taskCard(d)?.child?.entries ?? [];
  assert.deepEqual(
    entries.map((e) => [e.kind, e.text, e.status]),
    [
      ['tool', 'read a.py — def f(): pass', 'done'],
      ['text', 'It defines f.', undefined],
    ],
  );
  d.ev({
    type: 'subagent_update',
    childSessionId: 'C1',
    toolCallId: 'call_t',
    agent: 'general',
    description: 'look',
    state: 'completed',
    usage: { turns: 2, input: 10, output: 4, cacheRead: 0, cacheWrite: 0, cost: 0 },
  });
  const done = taskCard(d)?.child;
  assert.equal(done?.state, 'completed');
  assert.equal(done?.usage?.turns, 2);
  assert.equal(done?.entries.length, 2); // the transcript is kept
  // the parent's own stream is untouched by the child's events
  assert.equal(d.vm.lastSeq, 4);
});
