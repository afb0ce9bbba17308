// Tier 2: MCP servers (docs/protocol.md §14). A Claude Code `.mcp.json` with the real
// `mcp-server-time` (installed beside the pi-lsp under test) dropped into the workspace: one
// trust card, one permission card, the call's tool card naming the server and the tool, and the
// panel's server list with state, tool count and a working Restart.
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { scriptedSession, waitFor, CFG, wsPath } = require('./lib/pi');
const vm = require('./lib/vm');

const CONVERT = { source_timezone: 'Europe/Berlin', time: '12:00', target_timezone: 'Asia/Tokyo' };

describe('MCP servers (extension host)', function () {
  let a;
  let srv;
  const file = wsPath('.mcp.json');

  scriptedSession((s) => ({ a, srv } = s));
  before(() => {
    // the `test` extra installs it beside pi-lsp: missing means a broken install, a failure
    const time = path.join(path.dirname(CFG.PI_E2E_SERVER || ''), 'mcp-server-time');
    assert.ok(fs.existsSync(time), `mcp-server-time is not installed beside ${CFG.PI_E2E_SERVER}`);
    fs.writeFileSync(file, JSON.stringify({ mcpServers: { time: { command: time } } }));
  });
  after(async () => {
    if (fs.existsSync(file)) fs.unlinkSync(file); // the next specs see no MCP server
    if (a) await a.client.sendRequest('pi/mcp', {}); // the server drops it
  });

  it('asks trust once, asks the call, shows the tool card and the server list', async () => {
    srv.tools([['mcp__time__convert_time', CONVERT]]);
    srv.text('It is 20:00 in Tokyo.');
    await a.prompt('What time is noon in Berlin in Tokyo?');
    const trust = await waitFor(a, (s) => vm.permissionCards(s)[0], 'the trust card');
    assert.match(trust.title, /\.mcp\.json/);
    await vm.answerPermission(a, trust, 'allowAlways');
    const call = await waitFor(a, (s) => vm.permissionCards(s).find((c) => c.requestKey !== trust.requestKey), 'the call card');
    assert.match(vm.permissionDetail(call), /Asia\/Tokyo/);
    await vm.answerPermission(a, call, 'allowOnce');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'It is 20:00 in Tokyo.', 'the run to finish');
    const card = vm.toolCards(a.state()).find((t) => t.toolName === 'mcp__time__convert_time');
    assert.ok(card, 'a tool card for the MCP call');
    assert.strictEqual(card.status, 'done');
    assert.match(card.title, /^MCP time: convert_time /);
    const server = await waitFor(a, (s) => (s.mcp || []).find((m) => m.name === 'time' && m.state === 'ready'), 'the server listed ready');
    assert.strictEqual(server.toolCount, 2);
    assert.strictEqual(server.source, 'project');
  });

  it('Restart restarts the server from the panel', async () => {
    await a.webviewMessage({ type: 'mcpRestart', name: 'time' });
    const server = await waitFor(a, (s) => (s.mcp || []).find((m) => m.name === 'time' && m.state === 'ready'), 'ready after the restart');
    assert.strictEqual(server.toolCount, 2);
  });
});
