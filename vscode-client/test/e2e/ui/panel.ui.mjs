// Tier 3: the packaged .vsix installed in code-server, driven like a user in Chromium:
// open the panel, type a prompt, watch the answer stream, see the tool card and the edit in
// the editor, click Undo on the hunk; then measure the panel's responsiveness under a long
// streamed answer and 300 tool cards (figures for docs/performance.md, reported as "measure"
// lines by `measure`, never counted as passes; what those drives must get right — the answer
// streams to its end, every card is there, the big session opens at its end — is a `check`
// of its own); last,
// answer "Always" on a permission card and revoke that rule in the rules manager, resume a
// 2,000-message session and measure an answer streamed into it.
//
// The timing drives (keys typed every 250/500 ms while answers stream at 200 tokens/s, the idle
// baselines, the 300-card scroll) run only with PI_UI_PERF=1: bench/vscode_panel_bench.sh sets
// it and prints the PI_PERF figures. Without it (the pytest suite) every check still runs —
// the long answers stream to their end, the 2,000-message session opens and takes an answer —
// with the answers streamed ≈ 25× faster and no keys typed through them.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { launchBrowser, workbenchUrl } from '../lib/browser.mjs';
import { check, measure, openWorkbench, runCommand, webviewFrame } from '../lib/ui.mjs';
import { armResumeProbe, readResumeProbe, startFrameProbe, stats, stopFrameProbe, describe as describeProbe } from '../lib/perf.mjs';

const require = createRequire(import.meta.url);
/** The performance drives on (bench/vscode_panel_bench.sh), or off (the suite: checks only). */
const PERF = process.env.PI_UI_PERF === '1';
/** The model's delay between 10-token chunks: 200 tokens/s for the figures, else ≈ 5,000/s
 * (still a stream of many deltas, without the 50 s of waiting). */
const STREAM_DELAY_MS = PERF ? 50 : 2;
const LIB = join(dirname(new URL(import.meta.url).pathname), '..', 'lib');

/** Guard a wait on our own scripted server (it never resolves if the request never comes). */
function within(promise, ms, what) {
  let timer;
  const t = new Promise((_, rej) => { timer = setTimeout(() => rej(new Error(`no ${what} within ${ms / 1000} s`)), ms); });
  return Promise.race([promise, t]).finally(() => clearTimeout(timer));
}
const { startScripted, gate, chunk } = require('../host/lib/openai.js');

// What the extension shows (the panel described in vscode-client/README.md).
export const PANEL_COMMAND = 'pi: Open panel';
const RULES_COMMAND = 'pi: Manage "always allow" rules';
const T = (id) => `[data-testid="${id}"]`;

/** A Markdown answer of about `tokens` tokens (4 characters each), in 10-token chunks. */
function longAnswerEvents(tokens) {
  const para = 'The quick agent reads `src/app.py`, plans a change and explains it in plain words. ';
  let text = '';
  let i = 0;
  while (text.length < tokens * 4) {
    i++;
    text += i % 12 === 0 ? `\n\n\`\`\`python\ndef step_${i}(x):\n    return x + ${i}\n\`\`\`\n\n` : para;
    if (i % 5 === 0) text += `\n\n### Part ${i}\n\n`;
  }
  const events = [chunk({ role: 'assistant', content: '' })];
  for (let k = 0; k < text.length; k += 40) events.push(chunk({ content: text.slice(k, k + 40) }));
  events.push(chunk({}, 'stop'));
  return events;
}

/** The last "### Part N" heading of `longAnswerEvents(tokens)`: seen only when the whole answer is. */
function lastPartOf(tokens) {
  const text = longAnswerEvents(tokens).map((e) => (e.choices && e.choices[0].delta.content) || '').join('');
  const parts = [...text.matchAll(/### (Part \d+)/g)];
  return parts[parts.length - 1][1];
}

function manyToolCalls(n) {
  const events = [chunk({ role: 'assistant', content: 'Listing everything.' })];
  for (let i = 0; i < n; i++) {
    events.push(chunk({ tool_calls: [{ index: i, id: `call_ls_${i}`, type: 'function',
      function: { name: 'ls', arguments: JSON.stringify({ path: 'src' }) } }] }));
  }
  events.push(chunk({}, 'tool_calls'));
  return events;
}

export async function runUi({ server, ws, scratch, out, tally, modelPort, piCommand }) {
  const srv = await startScripted(modelPort);
  const browser = await launchBrowser(scratch);
  const { page } = browser;
  const ctx = { page, out, tally };
  let panel;
  const shot = (name) => page.screenshot({ path: join(out, `${name}.png`) });
  try {
    await check(ctx, 'workbench renders with the extension installed', async () => {
      await openWorkbench(page, workbenchUrl(server.url, ws));
    });

    await check(ctx, 'src/app.py opens in an editor', async () => {
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+p');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor();
      await input.fill('app.py');
      await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'app.py' }).first().waitFor();
      await input.press('Enter');
      await page.locator('.monaco-editor .view-lines', { hasText: 'def greet' }).waitFor();
    });

    await check(ctx, 'the pi panel opens from the command palette', async () => {
      await runCommand(page, PANEL_COMMAND);
      panel = await webviewFrame(page, T('prompt'));
      // opened after the server started: the panel still gets the model list (the picker)
      await panel.locator(T('model-picker')).waitFor({ timeout: 30_000 });
      await shot('01-panel-open');
    });
    if (!panel) return; // that check failed: the rest needs the panel

    const g = gate();
    srv.tools([['edit', { path: 'src/app.py', edits: [{ oldText: '"Hello, "', newText: '"Hi, "' }] }]],
      { text: 'I will make the greeting shorter, then check the result for you.', pieces: 8, gate: g, gateAfter: 4 });
    srv.text('Done: the greeting now says **Hi**.');

    await check(ctx, 'a typed prompt streams its answer into the panel', async () => {
      await panel.locator(T('prompt')).click();
      await panel.locator(T('prompt')).pressSequentially('Make the greeting shorter');
      await panel.locator(T('prompt')).press('Enter');
      await within(g.reached, 30_000, 'the model request');
      await panel.locator(T('message-user'), { hasText: 'Make the greeting shorter' }).waitFor();
      await panel.locator(T('message-assistant'), { hasText: 'I will make' }).waitFor();
      const partial = await panel.locator(T('message-assistant')).last().innerText();
      if (partial.includes('check the result for you')) throw new Error(`whole answer shown before the gate: ${partial}`);
      await shot('02-streaming');
      g.open();
      await panel.locator(T('message-assistant'), { hasText: 'the greeting now says' }).waitFor();
    });

    await check(ctx, 'the edit tool card is shown done, and the edit is in the editor buffer', async () => {
      await panel.locator(`${T('tool-card')}[data-tool="edit"][data-status="done"]`).first().waitFor();
      await page.locator('.monaco-editor .view-lines', { hasText: '"Hi, "' }).waitFor();
      await shot('03-tool-card-and-edit');
    });

    await check(ctx, 'clicking Undo on the hunk reverts it in the editor', async () => {
      const lens = page.locator('.monaco-editor .codelens-decoration a', { hasText: /^Undo/ }).first();
      await lens.waitFor({ timeout: 15_000 });
      await shot('04-hunk-codelens');
      await lens.click();
      await page.locator('.monaco-editor .view-lines', { hasText: '"Hello, "' }).waitFor();
      await shot('05-after-undo');
    });

    await check(ctx, 'review keys pressed in the focused editor during a run: Alt+F5 moves to a change, Ctrl+Alt+Y keeps it, Ctrl+Alt+N undoes the next', async () => {
      const g2 = gate();
      srv.tools([['edit', { path: 'src/app.py', edits: [{ oldText: '"Hello, "', newText: '"Hey, "' }, { oldText: 'a + b', newText: 'a * b' }] }]]);
      srv.text('Now explaining both changes at length, piece by piece.', { pieces: 6, gate: g2, gateAfter: 3 });
      await panel.locator(T('prompt')).fill('Change the greeting and the sum.');
      await panel.locator(T('prompt')).press('Enter');
      await within(g2.reached, 30_000, 'the second model request');
      try {
        const lenses = page.locator('.monaco-editor .codelens-decoration a', { hasText: /^Keep/ });
        await lenses.nth(1).waitFor({ timeout: 15_000 });
        if (!(await panel.locator(T('stop')).isVisible())) throw new Error('the run is not going: the keys must be pressed during it');
        // the editor focused, the cursor at the top: the keys as a user presses them
        await page.locator('.monaco-editor .view-lines', { hasText: 'def greet' }).first().click();
        await page.keyboard.press('Control+Home');
        await page.keyboard.press('Alt+F5');
        await page.locator('.monaco-editor .current-line').first().waitFor();
        await page.keyboard.press('Control+Alt+Y');
        await lenses.nth(1).waitFor({ state: 'detached', timeout: 15_000 }); // one hunk left
        await page.keyboard.press('Alt+F5');
        await page.keyboard.press('Control+Alt+N');
        await page.locator('.monaco-editor .view-lines', { hasText: 'a + b' }).waitFor({ timeout: 15_000 });
        await lenses.first().waitFor({ state: 'detached', timeout: 15_000 });
        const text = (await page.locator('.monaco-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
        if (!text.includes('"Hey, "')) throw new Error(`the kept change is gone: ${text}`);
        if (!(await panel.locator(T('stop')).isVisible())) throw new Error('the run ended before the keys were pressed');
        await shot('05b-review-keys');
      } finally {
        g2.open(); // whatever happened, the run goes on to its end: the next checks start clean
      }
      await panel.locator(T('message-assistant'), { hasText: 'piece by piece' }).waitFor({ timeout: 30_000 });
      await panel.locator(T('stop')).waitFor({ state: 'hidden' });
    });

    // --- responsiveness: figures, not assertions --------------------------------------
    const perf = {};
    // the idle baseline: the same typing as while streaming (one key every 500 ms), nothing
    // streaming; sampled before and after the stream and pooled, so that a change of the
    // machine's load during the run weighs on both sides of the ratio
    const idleRaw = { frames: [], keys: [] };
    const typeIdle = async (label) => {
      const input = panel.locator(T('prompt'));
      await input.click();
      await startFrameProbe(panel);
      for (let i = 0; i < 20; i++) {
        await input.press('x');
        await page.waitForTimeout(500);
      }
      const r = await stopFrameProbe(panel, { raw: true });
      idleRaw.frames.push(...r.raw.frames);
      idleRaw.keys.push(...r.raw.keys);
      perf[label] = { frames: r.frames, input: r.input };
      await input.fill('');
    };
    if (PERF) {
      await measure(ctx, 'typing into the idle panel (before the stream)', async () => {
        await typeIdle('idleBefore');
        return describeProbe('idle panel', perf.idleBefore);
      });
    }

    const LAST_PART = lastPartOf(10_000);
    await check(ctx, PERF ? 'a 10,000-token answer streamed at 200 tokens/s while the user types arrives whole'
      : 'a 10,000-token streamed answer arrives whole', async () => {
      // the hunk undone above reaches the model as a note with this run's one call
      srv.enqueue({ events: longAnswerEvents(10_000), delayMs: STREAM_DELAY_MS });
      await panel.locator(T('prompt')).fill('Explain at length.');
      await panel.locator(T('prompt')).press('Enter');
      await panel.locator(T('message-user'), { hasText: 'Explain at length.' }).waitFor();
      if (PERF) await startFrameProbe(panel);
      // type while it streams: one key every 500 ms of wall time (the input-latency sample)
      const input = panel.locator(T('prompt'));
      const t0 = Date.now();
      const finished = panel.locator(T('message-assistant'), { hasText: 'Part 1' }).last();
      await finished.waitFor({ timeout: 30_000 });
      if (PERF) {
        while (await panel.locator(T('stop')).isVisible().catch(() => false)) {
          await input.press('x');
          await page.waitForTimeout(500);
          if (Date.now() - t0 > 120_000) throw new Error('the long answer did not finish within 120 s');
        }
        perf.stream = await stopFrameProbe(panel);
        perf.stream.seconds = (Date.now() - t0) / 1000;
        await input.fill('');
      } else {
        await panel.locator(T('stop')).waitFor({ state: 'hidden', timeout: 120_000 });
      }
      await shot('06-long-answer');
      const answer = (await panel.locator(T('message-assistant')).last().textContent()) || '';
      if (!answer.includes(LAST_PART)) throw new Error(`the answer ends before its last part (${LAST_PART}): …${answer.slice(-200)}`);
    });
    if (PERF) {
      await measure(ctx, 'frames and key→frame latency while that answer streamed', () => {
        if (!perf.stream) throw new Error('no figures: the stream drive above failed');
        return `${describeProbe('10k-token stream at 200 tok/s', perf.stream)}; ${perf.stream.seconds.toFixed(1)} s`;
      });

      await measure(ctx, 'typing into the idle panel (after the stream)', async () => {
        await panel.locator(T('stop')).waitFor({ state: 'hidden' });
        await typeIdle('idleAfter');
        perf.idle = { frames: stats(idleRaw.frames), input: stats(idleRaw.keys) };
        return describeProbe('idle panel, before + after the stream', perf.idle);
      });
    }

    await check(ctx, 'the undo note is a muted "pi was told" marker, not the user\'s words', async () => {
      const told = panel.locator(T('notice-told'));
      await told.first().waitFor();
      await told.first().scrollIntoViewIfNeeded();
      const line = (await told.first().locator('summary').textContent()) || '';
      if (!/^pi was told: you undid src\/app\.py lines? \d+(-\d+)?$/.test(line.trim())) throw new Error(`marker text: ${line}`);
      const mine = (await panel.locator(T('message-user'), { hasText: 'Explain at length.' }).textContent()) || '';
      if (/undid/.test(mine)) throw new Error(`the note is inside the user's bubble: ${mine}`);
      await told.first().locator('summary').click();
      await told.first().locator('pre', { hasText: 'The user reviewed your edits' }).waitFor();
      await shot('06b-told-marker');
    });

    await check(ctx, 'a run of 300 tool calls ends with its answer after the cards', async () => {
      srv.enqueue({ events: manyToolCalls(300) });
      srv.text('Listed.');
      await panel.locator(T('prompt')).fill('List it 300 times.');
      await panel.locator(T('prompt')).press('Enter');
      await panel.locator(T('message-assistant'), { hasText: 'Listed.' }).waitFor({ timeout: 120_000 });
      const done = await panel.locator(`${T('tool-card')}[data-tool="ls"][data-status="done"]`).count();
      if (done < 1) throw new Error('no finished ls card before the answer');
      if (await panel.locator(`${T('tool-card')}[data-tool="ls"]:not([data-status="done"])`).count()) {
        throw new Error('an ls card is not done after the answer');
      }
    });
    if (PERF) await measure(ctx, 'scrolling and typing in a session with 300 tool cards', async () => {
      await startFrameProbe(panel);
      const transcript = panel.locator(T('transcript'));
      for (let i = 0; i < 20; i++) {
        await transcript.hover();
        await page.mouse.wheel(0, i < 10 ? -800 : 800);
        await panel.locator(T('prompt')).press('y');
      }
      perf.cards = await stopFrameProbe(panel);
      perf.cards.toolCards = await panel.locator(T('tool-card')).count();
      await shot('07-300-tool-cards');
      return describeProbe(`300 tool cards (${perf.cards.toolCards} in DOM)`, perf.cards);
    });

    // last: the runs above are scripted turn by turn
    await check(ctx, 'Manage "always allow" rules revokes the rule ticked in its picker', async () => {
      // a rule, from answering "Always" on the permission card
      srv.tools([['bash', { command: 'git status' }]]);
      srv.text('Ran git status.');
      await panel.locator(T('prompt')).fill('Check the status.');
      await panel.locator(T('prompt')).press('Enter');
      const always = panel.locator(`${T('permission-card')}[data-status="pending"] ${T('permission-allow-always')}`).first();
      await always.waitFor({ timeout: 30_000 });
      await always.click();
      await panel.locator(T('message-assistant'), { hasText: 'Ran git status.' }).waitFor({ timeout: 30_000 });
      // the rules manager lists it; tick it and press OK
      await runCommand(page, RULES_COMMAND, 60_000, { opensPicker: true });
      const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: 'git status' }).first();
      await row.waitFor({ timeout: 30_000 });
      await shot('07b-rules-manager');
      const box = row.getByRole('checkbox');
      if (await box.count()) await box.first().click();
      else await row.click();
      await page.locator('.quick-input-widget', { hasText: '1 Selected' }).first().waitFor({ timeout: 10_000 });
      await page.locator('.quick-input-widget .quick-input-action', { hasText: 'OK' }).first().click();
      await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
      // revoked: the manager now finds no rule
      await runCommand(page, RULES_COMMAND);
      await page.locator('.notifications-toasts', { hasText: 'no "always allow" rules' }).first().waitFor({ timeout: 30_000 });
      await shot('07c-rules-revoked');
    });

    await check(ctx, '"Revert this change" on an edit card reverts it; the notice undoes that', async () => {
      srv.tools([['edit', { path: 'src/app.py', edits: [{ oldText: 'a + b', newText: 'a - b' }] }]]);
      srv.text('Subtracting now.');
      await panel.locator(T('prompt')).fill('Subtract instead.');
      await panel.locator(T('prompt')).press('Enter');
      await panel.locator(T('message-assistant'), { hasText: 'Subtracting now.' }).waitFor({ timeout: 60_000 });
      await page.locator('.monaco-editor .view-lines', { hasText: 'a - b' }).waitFor();
      const card = panel.locator(`${T('tool-card')}[data-tool="edit"][data-status="done"]`).last();
      await card.hover();
      await card.locator(T('revert-tool-call')).click();
      await page.locator('.monaco-editor .view-lines', { hasText: 'a + b' }).waitFor();
      // the reverted change is no longer under review: its Keep/Undo lens goes
      await page.locator('.monaco-editor .codelens-decoration a', { hasText: /^Keep/ }).first().waitFor({ state: 'detached', timeout: 15_000 });
      await shot('08-reverted-tool-call');
      await panel.locator(T('undo-restore')).last().click();
      await page.locator('.monaco-editor .view-lines', { hasText: 'a - b' }).waitFor();
    });

    await check(ctx, 'plan mode, the todo checklist and a question card in the panel', async () => {
      const todos = (...st) => st.map((status, i) => ({ id: String(i + 1), content: `Step ${i + 1} of the plan`, status }));
      await panel.locator(T('prompt')).fill('/new ');  // (the trailing space closes the / menu)
      await panel.locator(T('prompt')).press('Enter');
      await panel.locator(T('empty')).waitFor();
      await panel.locator(T('mode-toggle')).click();
      await panel.locator(T('mode'), { hasText: 'plan mode' }).waitFor();
      srv.tools([['todo', { todos: todos('in_progress', 'pending') }]]);
      srv.tools([['todo', { todos: todos('completed', 'in_progress') }]]);
      srv.tools([['ask', { question: 'Keep the old greeting as an option?', options: [{ label: 'Yes' }, { label: 'No', description: 'remove it' }] }]]);
      srv.tools([['todo', { todos: todos('completed', 'completed') }]]);
      srv.text('Plan: 1. add a flag. 2. test it.');
      srv.text('Carrying it out.');
      await panel.locator(T('prompt')).fill('Plan the greeting change.');
      await panel.locator(T('prompt')).press('Enter');
      await panel.locator(T('question-card')).last().waitFor();
      await panel.locator(`${T('plan-item')}[data-status="in_progress"]`, { hasText: 'Step 2' }).waitFor();
      await shot('plan-1-question-and-checklist');
      await panel.locator(T('question-option-1')).last().click();
      await panel.locator(T('message-assistant'), { hasText: 'Plan: 1. add a flag' }).waitFor();
      const done = await panel.locator(`${T('plan-item')}[data-status="completed"]`).count();
      if (done !== 2) throw new Error(`the checklist shows ${done} of 2 items completed`);
      await panel.locator(T('question-status'), { hasText: 'Answered: No' }).waitFor();
      await panel.locator(T('start-plan'), { hasText: 'Start with this plan' }).waitFor();
      await shot('plan-2-ready');
      await panel.locator(T('start-plan')).click();
      await panel.locator(T('message-assistant'), { hasText: 'Carrying it out.' }).waitFor();
      if (await panel.locator(T('mode')).isVisible()) throw new Error('still shown in plan mode after Start');
      await shot('plan-3-carrying-out');
    });

    await check(ctx, 'a 2,000-message session with 500 tool cards resumes at its last answer', async () => {
      // written through pi-lsp's own session store, where the server looks for this workspace
      const python = join(dirname(piCommand), 'python');
      const sessionId = execFileSync(python, [join(LIB, 'big_session.py'), ws, join(scratch, 'xdg-data'), '--rounds', '500'],
        { encoding: 'utf8' }).trim();
      await panel.locator(T('history')).click();
      const row = panel.locator(T('session-row'), { hasText: 'Question 0' }).first();
      await row.waitFor({ timeout: 30_000 });
      await armResumeProbe(panel, 2000);
      const clicked = Date.now();
      await row.click();
      const r = await readResumeProbe(panel);
      await panel.locator(T('message-assistant'), { hasText: 'Part 499 greets the user' }).waitFor({ timeout: 30_000 });
      // interactive: a key in the input gets its frame (timed only for the figures)
      let after = {};
      if (PERF) {
        await startFrameProbe(panel);
        const input = panel.locator(T('prompt'));
        for (let i = 0; i < 10; i++) {
          await input.press('z');
          await page.waitForTimeout(200);
        }
        after = await stopFrameProbe(panel);
        await input.fill('');
      }
      perf.resume = {
        sessionId,
        messages: r.messages,
        toolCards: await panel.locator(T('tool-card')).count(),
        answerToInteractiveMs: r.receivedToIdleMs,
        clickToInteractiveMs: Math.round(r.idleEpoch - clicked),
        inputAfter: after.input,
      };
      await shot('09-big-session');
    });
    await measure(ctx, 'resuming that session', () => {
      if (!perf.resume) throw new Error('no figures: the resume drive above failed');
      return `${perf.resume.messages} messages (${perf.resume.toolCards} tool cards in DOM): answer→interactive ${perf.resume.answerToInteractiveMs} ms, click→interactive ${perf.resume.clickToInteractiveMs} ms`;
    });

    const BIG_LAST_PART = lastPartOf(4_000);
    await check(ctx, 'answers streamed into the panel holding the 2,000-message session complete', async () => {
      if (!perf.resume) throw new Error('the resume above failed: no long transcript to stream into');
      const input = panel.locator(T('prompt'));
      if (!PERF) {
        // the suite: one 4,000-token answer, fast, no keys typed through it
        srv.enqueue({ events: longAnswerEvents(4_000), delayMs: STREAM_DELAY_MS });
        await input.fill('Explain it all again.');
        await input.press('Enter');
        await panel.locator(T('message-user'), { hasText: 'Explain it all again.' }).waitFor();
        await panel.locator(T('message-assistant'), { hasText: 'The quick agent reads' }).last().waitFor({ timeout: 30_000 });
        await panel.locator(T('stop')).waitFor({ state: 'hidden', timeout: 120_000 });
        const answer = (await panel.locator(T('message-assistant')).last().textContent()) || '';
        if (!answer.includes(BIG_LAST_PART)) throw new Error(`the answer ends before its last part (${BIG_LAST_PART}): …${answer.slice(-200)}`);
        await shot('10-stream-into-big-session');
        return;
      }
      // One key every 250 ms (twice the fresh panel's rate: more keys per sample): 30 idle keys,
      // a 4,000-token answer typed through, 30 idle keys, another answer, 30 idle keys. The idle
      // keys are pooled, and so are the two streams', so a drift of the machine's load during
      // the run weighs on both sides of the ratio.
      const idle = { frames: [], keys: [] };
      const typeIdleLong = async () => {
        await input.click();
        await startFrameProbe(panel);
        for (let i = 0; i < 30; i++) {
          await input.press('x');
          await page.waitForTimeout(250);
        }
        const r = await stopFrameProbe(panel, { raw: true });
        idle.frames.push(...r.raw.frames);
        idle.keys.push(...r.raw.keys);
        await input.fill('');
      };
      const streamed = { frames: [], keys: [], seconds: 0, longTasks: [] };
      let n = 0;
      const streamLong = async (shotName) => {
        const prompt = `Explain it all again (${++n}).`;
        srv.enqueue({ events: longAnswerEvents(4_000), delayMs: STREAM_DELAY_MS });
        await input.fill(prompt);
        await input.press('Enter');
        await panel.locator(T('message-user'), { hasText: prompt }).waitFor();
        await startFrameProbe(panel);
        const t0 = Date.now();
        await panel.locator(T('message-assistant'), { hasText: 'The quick agent reads' }).last().waitFor({ timeout: 30_000 });
        let keys = 0;
        while (await panel.locator(T('stop')).isVisible().catch(() => false)) {
          await input.press('x');
          await page.waitForTimeout(250);
          if (++keys === 20 && shotName) await shot(shotName);
          if (Date.now() - t0 > 120_000) throw new Error('the answer did not finish within 120 s');
        }
        const r = await stopFrameProbe(panel, { raw: true });
        streamed.seconds += (Date.now() - t0) / 1000;
        streamed.frames.push(...r.raw.frames);
        streamed.keys.push(...r.raw.keys);
        streamed.longTasks.push(r.longTasks);
        await input.fill('');
        await panel.locator(T('stop')).waitFor({ state: 'hidden' });
      };
      await typeIdleLong();
      await streamLong('10a-streaming-into-big-session');
      await typeIdleLong();
      await streamLong(null);
      await typeIdleLong();
      const idleStats = { frames: stats(idle.frames), input: stats(idle.keys) };
      const stream = { frames: stats(streamed.frames), input: stats(streamed.keys), seconds: +streamed.seconds.toFixed(1), longTasks: streamed.longTasks };
      perf.longStream = {
        messages: perf.resume.messages,
        idle: idleStats,
        stream,
        idleKeyP95: idleStats.input.p95,
        streamKeyP95: stream.input.p95,
        ratio: +(stream.input.p95 / idleStats.input.p95).toFixed(2),
        maxFrameStreaming: stream.frames.max,
      };
      // one line in the log (CI's too): the figures outlive the run's scratch directories
      console.log(`PI_PERF ${JSON.stringify({ longStream: perf.longStream })}`);
      await shot('10-stream-into-big-session');
    });
    if (PERF) await measure(ctx, 'streaming into the 2,000-message session vs idle key→frame p95', () => {
      const l = perf.longStream;
      if (!l) throw new Error('no figures: the long-transcript stream above failed');
      return `${l.streamKeyP95}/${l.idleKeyP95} ms = ${l.ratio}× over ${l.messages} messages, max frame while streaming ${l.maxFrameStreaming} ms`;
    });

    await check(ctx, 'pi: Review Changes puts a finding in the Problems panel (issue 43)', async () => {
      // the workspace becomes a git repository with a seeded defect (tests/support/review_repo.py's division)
      const git = (...args) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: ws });
      writeFileSync(join(ws, 'review_calc.py'), 'def average(values):\n    if not values:\n        return 0.0\n    return sum(values) / len(values)\n');
      git('init', '-q');
      git('add', 'review_calc.py');
      git('commit', '-q', '-m', 'before', '--', 'review_calc.py');
      writeFileSync(join(ws, 'review_calc.py'), 'def average(values):\n    total = 0\n    for v in values:\n        total += v\n    return total / len(values)\n');
      srv.reset();
      srv.tools([['report_finding', { path: 'review_calc.py', line: 5, severity: 'error', title: 'Division by zero', body: 'an empty list' }]]);
      srv.text('One finding.');
      await runCommand(page, 'pi: Review Changes');
      await page.keyboard.press('Escape');
      await page.keyboard.press('Control+Shift+M');
      await page.locator('.markers-panel .monaco-list-row', { hasText: 'Division by zero' }).first().waitFor({ timeout: 60_000 });
      await shot('10-review-problems-panel');
    });

    if (perf.idle && perf.stream) {
      perf.streamVsIdle = {
        idleKeyP95: perf.idle.input.p95,
        streamKeyP95: perf.stream.input.p95,
        ratio: +(perf.stream.input.p95 / perf.idle.input.p95).toFixed(2),
        maxFrameStreaming: perf.stream.frames.max,
        longTasksStreaming: perf.stream.longTasks,
      };
      const r = perf.streamVsIdle;
      console.log(`PI_PERF ${JSON.stringify({ streamVsIdle: r })}`);
      await measure(ctx, 'streaming vs idle key→frame p95', () => `${r.streamKeyP95}/${r.idleKeyP95} ms = ${r.ratio}×, max frame while streaming ${r.maxFrameStreaming} ms; long tasks ${JSON.stringify(r.longTasksStreaming)}`);
    }
    writeFileSync(join(out, 'perf.json'), JSON.stringify(perf, null, 2));
  } finally {
    await browser.close();
    await srv.close();
  }
}
