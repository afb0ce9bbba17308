import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initialState, reduce } from '../../src/model/reducer';

test('a text delta streams into the assistant item', () => {
  let vm = initialState();
  const ev = (seq: number, event: Record<string, unknown>) => {
    vm = reduce(vm, { type: 'event', note: { sessionId: 'S', seq, event: event as { type: string } } }).vm;
  };
  ev(1, { type: 'agent_start' });
  ev(2, { type: 'turn_start' });
  ev(3, { type: 'message_start', message: { role: 'assistant', content: [] } });
  ev(4, { type: 'message_update', assistantMessageEvent: { type: 'text_start', contentIndex: 0 } });
  ev(5, { type: 'message_update', assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta: 'Hi' } });
  const a = vm.items[0];
  assert.equal(a.kind, 'assistant');
  assert.deepEqual(a.kind === 'assistant' && a.blocks, [{ type: 'text', text: 'Hi' }]);
});
