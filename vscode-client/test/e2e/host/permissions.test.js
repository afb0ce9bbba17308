// Tier 2: `bash` asks through pi/requestPermission (docs/protocol.md §8); the panel shows an inline
// card (never a modal), and the answer given through the panel's own message path decides.
'use strict';
const assert = require('assert');
const { waitFor, scriptedSession } = require('./lib/pi');
const vm = require('./lib/vm');

function toolResultText(messages) {
  const results = messages.filter((m) => m.role === 'tool');
  const last = results[results.length - 1];
  if (!last) return '';
  return typeof last.content === 'string' ? last.content : last.content.map((c) => c.text || '').join('');
}

describe('the permission card (extension host)', function () {
  let a;
  let srv;

  scriptedSession((s) => ({ a, srv } = s));

  it('allow once runs the command', async () => {
    srv.tools([['bash', { command: 'echo permitted-$((40+2))' }]]);
    srv.text('It ran.');
    await a.prompt('Run the echo.');
    const card = await waitFor(a, (s) => vm.permissionCards(s)[0], 'a permission card');
    assert.match(vm.permissionDetail(card), /echo permitted-\$\(\(40\+2\)\)/);
    await vm.answerPermission(a, card, 'allowOnce');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'It ran.', 'the run to finish');
    assert.strictEqual(vm.permissionCards(a.state()).length, 0, 'the card is answered');
    await srv.waitRequests(2);
    assert.match(toolResultText(srv.messages(1)), /permitted-42/);
  });

  it('deny with a reason gives the reason to the model', async () => {
    srv.tools([['bash', { command: 'rm -rf build' }]]);
    srv.text('Fine, I will not.');
    await a.prompt('Clean up.');
    const card = await waitFor(a, (s) => vm.permissionCards(s)[0], 'a permission card');
    await vm.answerPermission(a, card, 'deny', 'keep the build folder');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Fine, I will not.', 'the run to finish');
    await srv.waitRequests(2);
    const result = toolResultText(srv.messages(1));
    assert.match(result, /keep the build folder/);
    const bashCard = vm.toolCards(a.state()).find((c) => vm.toolName(c) === 'bash');
    assert.strictEqual(vm.toolStatus(bashCard), 'error');
  });
});
