// Tier 2 (issue 42): the agent starts a dev server in the background; the run does not wait for
// it; the Background processes view lists it (command, running) and its stop button ends it.
'use strict';
const assert = require('assert');
const { waitFor, scriptedSession } = require('./lib/pi');
const vm = require('./lib/vm');

function until(fn, what, ms = 20000) {
  const deadline = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const tick = () => {
      const v = fn();
      if (v) return resolve(v);
      if (Date.now() > deadline) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 50);
    };
    tick();
  });
}

describe('background processes (extension host)', function () {
  let a;
  let srv;

  scriptedSession((s) => ({ a, srv } = s));

  it('lists the process the agent started and stops it', async () => {
    srv.tools([['bash', { command: "sh -c 'echo serving; sleep 600'", background: true }]]);
    srv.text('The server runs.');
    await a.prompt('Start the server.');
    const card = await waitFor(a, (s) => vm.permissionCards(s)[0] || (!vm.isStreaming(s) && vm.lastAssistantText(s) === 'The server runs.'), 'a permission card or the end');
    if (card && card.kind === 'permission') await vm.answerPermission(a, card, 'allowOnce');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'The server runs.', 'the run to end');
    const row = await until(() => a.processes().find((p) => p.id === 'bg1' && p.running), 'the running process in the view');
    assert.strictEqual(row.command, "sh -c 'echo serving; sleep 600'");
    await a.stopProcess('bg1');
    await until(() => a.processes().find((p) => p.id === 'bg1' && !p.running), 'the process to end');
  });
});
