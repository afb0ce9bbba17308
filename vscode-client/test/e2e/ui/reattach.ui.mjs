// Tier 3: reloading the window mid-run (pi.server.mode "background", the default). The
// answer streams to a gate; the window reloads; once the old window's connection is gone (the
// background server's log says so) the model streams on with no window attached, to a second
// gate; the reloaded window re-attaches and must show the partial answer (replayed), then the
// rest live: the answer whole, once, in one assistant message after one user message.
// Without the background server the reload ends the run; without the resume + replay the
// reloaded panel misses the streamed part — either way this fails. Then five more reloads in
// the same code-server session, by the palette's Developer: Reload Window and page.reload.
import { createRequire } from 'node:module';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser, workbenchUrl } from '../lib/browser.mjs';
import { backgroundFiles } from '../lib/codeserver.mjs';
import { createWorkspace } from '../lib/workspace.mjs';
import { check, openWorkbench, runCommand, webviewFrame } from '../lib/ui.mjs';

const require = createRequire(import.meta.url);
const { startScripted, gate, chunk } = require('../host/lib/openai.js');

const T = (id) => `[data-testid="${id}"]`;
const PIECES = ['Alpha one. ', 'Bravo two. ', 'Charlie three. ', 'Delta four. ', 'Echo five. ', 'Foxtrot six. ',
  'Golf seven. ', 'Hotel eight. ', 'India nine. ', 'Juliet ten. ', 'Kilo eleven. ', 'Lima twelve.'];
const ANSWER = PIECES.join('');
const norm = (s) => s.replace(/\s+/g, ' ').trim();

/** Resolve once `file` holds more than `count` lines matching `re` (the server's log). */
async function logLines(file, re, count, ms = 30_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const n = existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => re.test(l)).length : 0;
    if (n > count) return n;
    if (Date.now() > deadline) throw new Error(`${file}: no new line matching ${re} within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function within(promise, ms, what) {
  let timer;
  const t = new Promise((_, rej) => { timer = setTimeout(() => rej(new Error(`no ${what} within ${ms / 1000} s`)), ms); });
  return Promise.race([promise, t]).finally(() => clearTimeout(timer));
}

/** Open the panel and wait until the server is connected (the "Starting…" banner is gone).
 * Right after a reload the palette may not open yet: try again until it does. */
async function openPanel(page) {
  const deadline = Date.now() + 90_000;
  for (;;) {
    try {
      await runCommand(page, 'pi: Open panel');
      break;
    } catch (err) {
      if (Date.now() > deadline) throw err;
    }
  }
  const panel = await webviewFrame(page, T('prompt'), 60_000);
  await panel.locator(T('server-status')).waitFor({ state: 'detached', timeout: 90_000 });
  return panel;
}

export async function runUi({ server, ws: shared, scratch, out, tally, modelPort }) {
  // A workspace of its own, so its own background server: the earlier module's window may
  // still hold the shared workspace's (code-server keeps a closed tab's extension host a while).
  const settings = JSON.parse(readFileSync(join(shared, '.vscode', 'settings.json'), 'utf8'));
  const ws = createWorkspace(scratch, 'ws-reattach', { settings });
  const srv = await startScripted(modelPort);
  const browser = await launchBrowser(scratch);
  const { page } = browser;
  const ctx = { page, out, tally };
  const shot = (name) => page.screenshot({ path: join(out, `${name}.png`) });
  const bg = backgroundFiles(scratch, ws);
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    await check(ctx, 'reload the window mid-run: the answer completes in the panel, nothing missing or doubled', async () => {
      await openWorkbench(page, workbenchUrl(server.url, ws));
      let panel = await openPanel(page);
      await panel.locator(T('prompt')).fill('/new ');  // a session of its own (the trailing space closes the / menu)
      await panel.locator(T('prompt')).press('Enter');
      await panel.locator(T('empty')).waitFor();

      const g1 = gate();
      const g2 = gate();
      const events = [chunk({ role: 'assistant', content: '' }), ...PIECES.map((p) => chunk({ content: p })), chunk({}, 'stop')];
      // stop before piece 4 (shown, then the reload) and before piece 8 (streamed with no window)
      srv.enqueue({ events, gates: [{ gate: g1, after: 4 }, { gate: g2, after: 8 }] });
      await panel.locator(T('prompt')).fill('Tell me slowly.');
      await panel.locator(T('prompt')).press('Enter');
      await within(g1.reached, 30_000, 'model request');
      if (!existsSync(bg.record)) throw new Error(`no background server recorded at ${bg.record} (pi.server.mode background)`);
      await panel.locator(T('message-assistant'), { hasText: 'Charlie three.' }).waitFor();
      await shot('reattach-1-before-reload');

      const disconnects = readFileSync(bg.log, 'utf8').split('\n').filter((l) => /client disconnected/.test(l)).length;
      // reload the window (in code-server, Developer: Reload Window reloads the page)
      const reloaded = page.reload({ waitUntil: 'load', timeout: 90_000 });
      // the old window's connection is gone; the run goes on with no window attached
      await logLines(bg.log, /client disconnected/, disconnects);
      g1.open();
      await within(g2.reached, 30_000, 'second gate');
      await reloaded;
      await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
      await page.locator('.part.statusbar').waitFor({ timeout: 60_000 });
      panel = await openPanel(page);
      // what streamed while no window was attached is there, and the run is still going
      await panel.locator(T('message-assistant'), { hasText: 'Golf seven.' }).waitFor({ timeout: 60_000 });
      await panel.locator(`${T('message-assistant')}[data-streaming="true"]`).waitFor();
      await shot('reattach-2-after-reload');
      g2.open();
      await panel.locator(`${T('message-assistant')}[data-streaming="false"]`, { hasText: 'Lima twelve.' }).waitFor({ timeout: 60_000 });
      await shot('reattach-3-complete');

      const users = await panel.locator(T('message-user')).allInnerTexts();
      if (users.length !== 1 || !users[0].includes('Tell me slowly.')) throw new Error(`user messages: ${JSON.stringify(users)}`);
      const answers = await panel.locator(`${T('message-assistant')} .text`).allInnerTexts();
      if (answers.length !== 1 || norm(answers[0]) !== norm(ANSWER)) {
        throw new Error(`assistant text: ${JSON.stringify(answers)}\nexpected: ${JSON.stringify(ANSWER)}`);
      }
      // and the model was asked once: the reload neither restarted nor repeated the run
      if (srv.requests.length !== 1) throw new Error(`${srv.requests.length} model requests`);
    });

    // Five reloads in this one code-server session, one per answer, alternating the command a
    // user runs (the palette's Developer: Reload Window) and page.reload, each at another point
    // of the answer (before any text, early, midway, late, at the last piece) and with the rest
    // released either once the old window is gone or at once (racing the re-attach).
    await check(ctx, 'five reloads mid-answer (palette Reload Window and page.reload, at different points): every answer completes once, in order', async () => {
      let panel = await openPanel(page);
      await panel.locator(T('prompt')).fill('/new ');
      await panel.locator(T('prompt')).press('Enter');
      await panel.locator(T('empty')).waitFor();
      const before = srv.requests.length;
      const rounds = [
        { how: 'palette', after: 1, wait: true },
        { how: 'page', after: 3, wait: false },
        { how: 'palette', after: 6, wait: false },
        { how: 'page', after: 9, wait: true },
        { how: 'palette', after: PIECES.length, wait: false },
      ];
      const answerOf = (k) => PIECES.map((piece) => `${piece.trim()} (${k})`).join(' ');
      for (const [k, round] of rounds.entries()) {
        const g = gate();
        const pieces = PIECES.map((piece) => `${piece.trim()} (${k}) `);
        const events = [chunk({ role: 'assistant', content: '' }), ...pieces.map((c) => chunk({ content: c })), chunk({}, 'stop')];
        srv.enqueue({ events, gates: [{ gate: g, after: round.after }] });
        await panel.locator(T('prompt')).fill(`Question ${k}.`);
        await panel.locator(T('prompt')).press('Enter');
        await within(g.reached, 30_000, `model request ${k}`);
        if (round.after > 1) await panel.locator(T('message-assistant'), { hasText: pieces[round.after - 2].trim() }).waitFor();
        const disconnects = readFileSync(bg.log, 'utf8').split('\n').filter((l) => /client disconnected/.test(l)).length;
        const loaded = page.waitForEvent('load', { timeout: 90_000 });
        await page.locator('.part.editor').first().click(); // the palette's keys go to the workbench, not the panel
        if (round.how === 'palette') await runCommand(page, 'Developer: Reload Window', 60_000, { opensPicker: true });
        else void page.reload({ waitUntil: 'load', timeout: 90_000 }).catch(() => {});
        if (round.wait) await logLines(bg.log, /client disconnected/, disconnects);
        g.open();
        await loaded;
        await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
        await page.locator('.part.statusbar').waitFor({ timeout: 60_000 });
        panel = await openPanel(page);
        await panel.locator(`${T('message-assistant')}[data-streaming="false"]`, { hasText: pieces[pieces.length - 1].trim() }).waitFor({ timeout: 60_000 });
        await shot(`reattach-5x-${k}-${round.how}`);
      }
      // (a user message's text, then its hover actions: Restore …, Fork)
      const users = (await panel.locator(T('message-user')).allInnerTexts()).map(norm);
      if (users.length !== rounds.length || users.some((u, k) => !u.startsWith(`Question ${k}.`))) {
        throw new Error(`user messages: ${JSON.stringify(users)}`);
      }
      const answers = (await panel.locator(`${T('message-assistant')} .text`).allInnerTexts()).map(norm);
      const expected = rounds.map((_, k) => norm(answerOf(k)));
      if (JSON.stringify(answers) !== JSON.stringify(expected)) {
        throw new Error(`answers: ${JSON.stringify(answers)}\nexpected: ${JSON.stringify(expected)}`);
      }
      if (srv.requests.length - before !== rounds.length) throw new Error(`${srv.requests.length - before} model requests for ${rounds.length} prompts`);
    });
    // A second window on the same folder while this one holds its background server (which
    // serves one connection): it gets a server of its own over stdio, and the failed attempt
    // is the extension's to handle, not a toast of the library's over the panel's input (seen
    // covering the prompt of a later module's window).
    await check(ctx, 'a second window on a folder whose background server is held falls back to stdio without an error toast', async () => {
      const second = await browser.context.newPage();
      try {
        await openWorkbench(second, workbenchUrl(server.url, ws));
        await openPanel(second);
        const toasts = await second.locator('.notifications-toasts .notification-toast').allInnerTexts();
        const bad = toasts.filter((t) => /couldn't create connection|failed to start/i.test(t));
        if (bad.length) {
          await second.screenshot({ path: join(out, 'reattach-6-second-window.png') });
          throw new Error(`error toasts in the second window: ${JSON.stringify(bad)}`);
        }
      } finally {
        await second.close();
      }
    });
  } finally {
    if (errors.length) writeFileSync(join(out, 'reattach-console-errors.log'), errors.join('\n'));
    await browser.close();
    await srv.close();
  }
}
