import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { QuestionItem } from '../../src/model/types';
import { parseWebviewMessage } from '../../src/protocol/messages';
import { Driver } from './helpers';

const ITEMS = [
  { id: '1', content: 'Read the parser', status: 'completed' },
  { id: '2', content: 'Fix it', status: 'in_progress' },
];

describe('plan mode, todo list and questions', () => {
  test('todo_update replaces the whole list; pi/state restores it and the mode', () => {
    const d = new Driver();
    d.ev({ type: 'todo_update', items: ITEMS });
    assert.deepEqual(d.vm.todo, ITEMS);
    d.ev({ type: 'todo_update', items: [{ id: '1', content: 'Read the parser', status: 'bogus' }] });
    assert.deepEqual(d.vm.todo, [{ id: '1', content: 'Read the parser', status: 'pending' }]);
    const fresh = new Driver();
    fresh.act({ type: 'state', state: { sessionId: 'S', mode: 'plan', todo: ITEMS } });
    assert.equal(fresh.vm.mode, 'plan');
    assert.deepEqual(fresh.vm.todo, ITEMS);
  });

  test('"Start with this plan" applies once a run in plan mode has ended', () => {
    const d = new Driver();
    d.ev({ type: 'mode_update', mode: 'plan' });
    assert.equal(d.vm.mode, 'plan');
    assert.equal(d.vm.planReady, false);
    d.ev({ type: 'agent_start' }, { type: 'agent_end', messages: [] });
    assert.equal(d.vm.planReady, true);
    d.ev({ type: 'mode_update', mode: 'act' });
    assert.equal(d.vm.mode, 'act');
    assert.equal(d.vm.planReady, false);
  });

  test('the todo list and mode survive a reload of the same session, not a switch', () => {
    const d = new Driver();
    d.ev({ type: 'todo_update', items: ITEMS }, { type: 'mode_update', mode: 'plan' });
    d.act({ type: 'loadSession', sessionId: 'S', messages: [] });
    assert.deepEqual(d.vm.todo, ITEMS);
    assert.equal(d.vm.mode, 'plan');
    d.act({ type: 'loadSession', sessionId: 'T', messages: [] });
    assert.deepEqual(d.vm.todo, []);
    assert.equal(d.vm.mode, 'act');
  });

  test('a question card is pending, then answered, dismissed or withdrawn at the end of the run', () => {
    const d = new Driver();
    d.act({
      type: 'questionAsk',
      requestKey: 'q1',
      params: {
        toolCallId: 'c1',
        question: 'Which?',
        options: [{ label: 'A', description: 'first' }, { label: 'B' }],
        allowFreeText: true,
        multiSelect: false,
      },
    });
    const card = d.vm.items[0] as QuestionItem;
    assert.equal(card.kind, 'question');
    assert.equal(card.status, 'pending');
    assert.deepEqual(card.options, [{ label: 'A', description: 'first' }, { label: 'B' }]);
    assert.equal(card.allowFreeText, true);
    assert.equal(d.vm.questions.length, 1);
    d.act({ type: 'questionDone', requestKey: 'q1', status: 'answered', answer: 'B' });
    assert.equal((d.vm.items[0] as QuestionItem).status, 'answered');
    assert.equal((d.vm.items[0] as QuestionItem).answer, 'B');
    assert.equal(d.vm.questions.length, 0);
    d.act({ type: 'questionAsk', requestKey: 'q2', params: { question: 'Again?', options: [] } });
    d.act({ type: 'questionDone', requestKey: 'q2', status: 'dismissed' });
    assert.equal((d.vm.items[1] as QuestionItem).status, 'dismissed');
    d.act({ type: 'questionAsk', requestKey: 'q3', params: { question: 'Third?', options: [] } });
    d.ev({ type: 'agent_start' }, { type: 'agent_end', messages: [] });
    assert.equal((d.vm.items[2] as QuestionItem).status, 'withdrawn');
    assert.equal(d.vm.questions.length, 0);
  });

  test('the answer and setMode messages are validated', () => {
    parseWebviewMessage({ type: 'answer', requestKey: 'q1', answers: ['A'], text: 'more' });
    parseWebviewMessage({ type: 'answer', requestKey: 'q1', answers: [], cancelled: true });
    parseWebviewMessage({ type: 'setMode', mode: 'plan' });
    assert.throws(() => parseWebviewMessage({ type: 'setMode', mode: 'yolo' }), /mode must be one of/);
    assert.throws(() => parseWebviewMessage({ type: 'answer', requestKey: 'q', answers: 'A' }), /must be a list/);
  });
});
