// Tier 2: project trust in VS Code (docs/context.md#project-trust). A project with its own
// prompt template: the first prompt asks on a permission card (pi/requestPermission, tool
// "trust") before its text is expanded — the pi/prompt answer waits for it —; trusted for this
// session, the project's template reaches the model expanded.
'use strict';
const assert = require('assert');
const fs = require('fs');
const { waitFor, scriptedSession, wsPath } = require('./lib/pi');
const vm = require('./lib/vm');

function text(message) {
  return typeof message.content === 'string' ? message.content : message.content.map((c) => c.text || '').join('');
}

describe('project context (extension host)', function () {
  let a;
  let srv;

  scriptedSession((s) => ({ a, srv } = s));
  after(() => fs.rmSync(wsPath('.pi'), { recursive: true, force: true }));

  it('the project trust question is a permission card; trusted, the project template expands', async () => {
    fs.mkdirSync(wsPath('.pi', 'prompts'), { recursive: true });
    fs.writeFileSync(wsPath('.pi', 'prompts', 'ship.md'), 'Ship $1 now.\n');
    srv.text('Shipped.');
    const sent = a.prompt('/ship v1');
    const card = await waitFor(a, (s) => vm.permissionCards(s)[0], 'the trust card');
    assert.match(card.title, /^Trust project files in /);
    assert.match(vm.permissionDetail(card), /\.pi\/prompts/);
    await vm.answerPermission(a, card, 'allowSession');
    await sent;
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Shipped.', 'the run to finish');
    await srv.waitRequests(1);
    const user = srv.messages(0).filter((m) => m.role === 'user').pop();
    assert.strictEqual(text(user), 'Ship v1 now.\n');
  });
});
