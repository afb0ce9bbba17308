// Tier 2: the todo list, the agent's questions and plan mode (docs/protocol.md v3) through the
// panel's own paths: a scripted run writes a todo list, updates it twice and asks a question;
// the user answers in the card; the checklist ends in the final state. Plan mode hides write
// and edit, and "Start with this plan" (setMode act) starts the run that carries it out.
'use strict';
const assert = require('assert');
const { waitFor, scriptedSession, userTexts } = require('./lib/pi');
const vm = require('./lib/vm');

const todos = (...statuses) =>
  statuses.map((status, i) => ({ id: String(i + 1), content: `step ${i + 1}`, status }));

describe('plan mode, todo list and questions (extension host)', function () {
  let a;
  let srv;

  scriptedSession((s) => ({ a, srv } = s));

  it('the checklist follows todo_update and the answer to a question is the tool result', async () => {
    srv.tools([['todo', { todos: todos('in_progress', 'pending') }]]);
    srv.tools([['todo', { todos: todos('completed', 'in_progress') }]]);
    srv.tools([['ask', { question: 'Tabs or spaces?', options: [{ label: 'Tabs' }, { label: 'Spaces', description: 'four' }], allowFreeText: true }]]);
    srv.tools([['todo', { todos: todos('completed', 'completed') }]]);
    srv.text('All done.');
    await a.prompt('Work through it.');
    const card = await waitFor(a, (s) => vm.questionCards(s)[0], 'a question card');
    assert.strictEqual(card.question, 'Tabs or spaces?');
    assert.deepStrictEqual(card.options.map((o) => o.label), ['Tabs', 'Spaces']);
    assert.deepStrictEqual(vm.todo(a.state()).map((t) => t.status), ['completed', 'in_progress']);
    await vm.answerQuestion(a, card, ['Spaces'], 'four of them');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'All done.', 'the run to finish');
    assert.deepStrictEqual(vm.todo(a.state()).map((t) => t.status), ['completed', 'completed']);
    await srv.waitRequests(4);
    const result = srv.messages(3).filter((m) => m.role === 'tool').pop();
    assert.match(String(result.content), /The user chose "Spaces"\.\nThe user wrote: four of them/);
  });

  it('a message typed while a question waits answers it', async () => {
    srv.tools([['ask', { question: 'Which file?', options: [{ label: 'a.py' }, { label: 'b.py' }] }]]);
    srv.text('Thanks.');
    await a.prompt('Ask me.');
    await waitFor(a, (s) => vm.questionCards(s)[0], 'a question card');
    const r = await a.prompt('neither, use c.py');
    assert.strictEqual(r.delivered, 'answer');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Thanks.', 'the run to finish');
    await srv.waitRequests(2);
    const result = srv.messages(1).filter((m) => m.role === 'tool').pop();
    assert.match(String(result.content), /The user wrote: neither, use c.py/);
  });

  it('plan mode hides write and edit; "Start with this plan" carries it out', async () => {
    await a.webviewMessage({ type: 'setMode', mode: 'plan' });
    await waitFor(a, (s) => s.mode === 'plan', 'plan mode');
    srv.text('Plan: 1. create notes.txt');
    srv.text('Done.');
    await a.prompt('Plan a notes file.');
    await waitFor(a, (s) => !vm.isStreaming(s) && s.planReady, 'the planning run to end');
    await srv.waitRequests(1);
    const names = (srv.requests[0].body.tools || []).map((t) => t.function.name);
    assert.ok(!names.includes('write') && !names.includes('edit'), names.join(','));
    assert.ok(names.includes('read') && names.includes('bash'), names.join(','));
    await a.webviewMessage({ type: 'setMode', mode: 'act' });
    await waitFor(a, (s) => s.mode === 'act' && !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Done.', 'the run that carries it out');
    assert.match(userTexts(srv.messages(1)).pop(), /approved your plan/);
    const actNames = (srv.requests[1].body.tools || []).map((t) => t.function.name);
    assert.ok(actNames.includes('write'), actNames.join(','));
  });
});
