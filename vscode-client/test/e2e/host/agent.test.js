// Tier 2: the extension in code-server's real extension host, against the real pi-lsp and a
// scripted model server. Each test acts at a known point of the stream (a gate in the
// scripted reply), and waits on the panel's view model — never on time.
'use strict';
const assert = require('assert');
const { gate } = require('./lib/openai');
const { waitFor, scriptedSession, userTexts } = require('./lib/pi');
const vm = require('./lib/vm');

describe('pi agent panel (extension host)', function () {
  let a;
  let srv;

  scriptedSession((s) => ({ a, srv } = s));

  it('activates, finds the server from pi.server.command and talks to it', async () => {
    const st = a.state();
    assert.strictEqual(vm.serverStatus(st), 'running', JSON.stringify(vm.server(st)));
    const res = await a.client.sendRequest('pi/sessions', {});
    assert.ok(Array.isArray(res.sessions));
    const info = a.client.initializeResult && a.client.initializeResult.serverInfo;
    assert.ok(info && /pi/i.test(info.name), `serverInfo: ${JSON.stringify(info)}`);
  });

  it('streams a prompt into the panel view model', async () => {
    const g = gate();
    srv.text('Hello from the scripted model, streamed in pieces.', { pieces: 6, gate: g, gateAfter: 3 });
    const sent = a.prompt('Say hello');
    await g.reached;
    await sent;
    // part of the answer is shown while the reply is still open
    const partial = await waitFor(a, (s) => {
      const t = vm.lastAssistantText(s);
      return t && t.length > 0 && vm.isStreaming(s) ? t : null;
    }, 'a partial answer while streaming');
    assert.ok('Hello from the scripted model, streamed in pieces.'.startsWith(partial), partial);
    assert.notStrictEqual(partial, 'Hello from the scripted model, streamed in pieces.');
    g.open();
    await waitFor(a, (s) => !vm.isStreaming(s)
      && vm.lastAssistantText(s) === 'Hello from the scripted model, streamed in pieces.', 'the whole answer');
    assert.deepStrictEqual(vm.userTexts(a.state()), ['Say hello']);
    // the context meter shows the server's estimate after the run (system prompt, tools and
    // the exchange: far more than the scripted server's usage figures)
    await waitFor(a, (s) => ((s.contextTokens ?? 0) > 500 ? s.contextTokens : null), 'the context meter from pi/state');
  });

  it('steering sent during a run lands in turn 2', async () => {
    const g = gate();
    srv.text('First answer, still streaming.', { pieces: 5, gate: g, gateAfter: 2 });
    srv.text('Second answer, after the steer.');
    await a.prompt('Tell me something.');
    await g.reached;
    const res = await a.prompt('Actually, be brief.', 'steer');
    assert.strictEqual(res && res.delivered, 'steer');
    g.open();
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Second answer, after the steer.',
      'the second turn to finish');
    await srv.waitRequests(2);
    assert.deepStrictEqual(userTexts(srv.messages(1)).slice(-1), ['Actually, be brief.']);
    // the panel shows the steer as a user message between the two answers, in turn 2
    const st = a.state();
    assert.deepStrictEqual(vm.userTexts(st), ['Tell me something.', 'Actually, be brief.']);
    const steer = vm.userItems(st)[1];
    assert.strictEqual(vm.deliveredTurn(steer), 2, JSON.stringify(steer));
  });

  it('interrupt stops the turn and starts a new run with the text', async () => {
    assert.strictEqual(vm.features(a.state()).interrupt, true, 'the server advertises deliverAs "interrupt"');
    const g = gate();
    srv.text('A long answer that will be interrupted.', { pieces: 6, gate: g, gateAfter: 2 });
    srv.text('Answer to the interruption.');
    await a.prompt('Explain everything.');
    await g.reached;
    const res = await a.prompt('Stop, do this instead.', 'interrupt');
    assert.strictEqual(res.delivered, 'interrupt');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Answer to the interruption.',
      'the interrupting run to finish');
    const st = a.state();
    assert.deepStrictEqual(vm.userTexts(st), ['Explain everything.', 'Stop, do this instead.']);
    assert.ok(vm.assistantItems(st).some((m) => vm.stopReason(m) === 'aborted'), 'first answer shown as stopped');
  });

  it('abort ends the run, keeps the partial answer and never sends the queue', async () => {
    const g = gate();
    srv.text('Partial answer then nothing.', { pieces: 6, gate: g, gateAfter: 3 });
    await a.prompt('Go on.');
    await g.reached;
    await waitFor(a, (s) => vm.lastAssistantText(s), 'a partial answer');
    const queued = await a.prompt('queued follow-up', 'followUp');
    assert.strictEqual(queued.delivered, 'followUp');
    const res = await a.abort();
    assert.strictEqual(res.aborted, true);
    await waitFor(a, (s) => !vm.isStreaming(s), 'the run to stop');
    const st = a.state();
    const last = vm.assistantItems(st).slice(-1)[0];
    assert.strictEqual(vm.stopReason(last), 'aborted');
    assert.ok('Partial answer then nothing.'.startsWith(vm.text(last)), vm.text(last));
    // §7: the queue stays queued (and visible) for the next run
    assert.strictEqual(vm.features(st).queue, true, 'the server advertises pi/queue');
    assert.deepStrictEqual(st.queue.followUp.map((q) => q.text), ['queued follow-up']);
    assert.strictEqual(srv.requests.length, 1, 'no second model call after abort');
    g.open();
  });
});
