// Tier 2 (issue 42): the agent starts a dev server in the background; the run does not wait for
// it; the Background processes view lists it (command, running) and its stop button ends it.
// "Start the dev server, curl it, then stop it" end to end: the model reads it with bash_output
// and stops it with bash_kill; no process remains (the process table).
'use strict';
const assert = require('assert');
const fs = require('fs');
const { waitFor, scriptedSession, wsPath } = require('./lib/pi');
const vm = require('./lib/vm');

const SERVER = [
  'import http.server, pathlib',
  "srv = http.server.HTTPServer(('127.0.0.1', 0), http.server.SimpleHTTPRequestHandler)",
  "pathlib.Path('port.txt').write_text(str(srv.server_address[1]))",
  "print('serving', flush=True)",
  'srv.serve_forever()',
  '',
].join('\n');
const CURL = 'until [ -s port.txt ]; do sleep 0.05; done; python3 -c "import urllib.request; '
  + "print('status', urllib.request.urlopen('http://127.0.0.1:' + open('port.txt').read() + '/').status)\"";

/** Live (not zombie) processes whose command line contains `marker`. */
function processesWith(marker) {
  const found = [];
  for (const pid of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const state = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(')').pop().trim().split(' ')[0];
      if (cmd.includes(marker) && state !== 'Z') found.push(Number(pid));
    } catch { /* it ended meanwhile */ }
  }
  return found;
}

/** Every tool result the model was sent in request `i`. */
function toolResults(srv, i) {
  return srv.messages(i).filter((m) => m.role === 'tool')
    .map((m) => (typeof m.content === 'string' ? m.content : m.content.map((c) => c.text || '').join('')));
}

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

  it('starts a dev server, curls it, reads it and stops it without the run ever blocking', async () => {
    const marker = `vscode-dev-${Date.now()}-${Math.floor(Math.random() * 1e6)}`;
    fs.writeFileSync(wsPath(`${marker}.py`), SERVER);
    srv.tools([['bash', { command: `python3 -u ${marker}.py`, background: true }]]);
    srv.tools([['bash', { command: CURL }]]);
    srv.tools([['bash_output', { id: 'bg1' }]]);
    srv.text('Serving.');
    srv.tools([['bash_kill', { id: 'bg1' }]]);
    srv.text('Stopped.');
    // every bash call may ask: answer each card until the run has ended with `last`
    const runTo = async (prompt, last) => {
      const first = srv.requests.length;
      await a.prompt(prompt);
      for (;;) {
        const s = await waitFor(a, (st) => vm.permissionCards(st)[0]
          || (srv.requests.length > first && !vm.isStreaming(st) && vm.lastAssistantText(st) === last), `"${last}" or a permission card`);
        const card = vm.permissionCards(a.state())[0];
        if (!card) return s;
        await vm.answerPermission(a, card, 'allowOnce');
      }
    };
    await runTo('Start the server and curl it.', 'Serving.');
    // the run has ended; the server runs on and the view lists it
    assert.ok(processesWith(marker).length > 0, 'the server runs on after the run');
    const row = await until(() => a.processes().find((p) => p.id === 'bg1' && p.running), 'the running server in the view');
    assert.strictEqual(row.command, `python3 -u ${marker}.py`);
    const seen = toolResults(srv, 3).join('\n');
    assert.match(seen, /status 200/);
    assert.match(seen, /"GET \/ HTTP\/1\.1" 200/);
    await runTo('Stop it.', 'Stopped.');
    assert.match(toolResults(srv, 5).join('\n'), /bg1 \(python3 -u .*\): killed/);
    await until(() => a.processes().find((p) => p.id === 'bg1' && !p.running), 'the view to show it ended');
    await until(() => processesWith(marker).length === 0, 'no process left');
  });
});
