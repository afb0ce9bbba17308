// Tier 3: a prompt sent while the panel still says "Starting the pi server…". The server
// command is a wrapper that blocks on a FIFO until this test writes to it, so start-up lasts
// exactly as long as the test wants. The prompt typed and sent meanwhile must show as waiting
// in the transcript, then reach the model and the transcript once the server runs. A second
// window's server refuses to start (the wrapper exits): the prompt must come back into the
// input box with the reason shown. Before the fix the input was cleared and the prompt lost.
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { launchBrowser, workbenchUrl } from '../lib/browser.mjs';
import { createWorkspace } from '../lib/workspace.mjs';
import { check, openWorkbench, runCommand, webviewFrame } from '../lib/ui.mjs';

const require = createRequire(import.meta.url);
const { startScripted } = require('../host/lib/openai.js');

const T = (id) => `[data-testid="${id}"]`;

/** A workspace whose server command waits on a FIFO: `go` starts pi-lsp, `fail` exits. */
function gatedWorkspace(scratch, name, settings, piCommand) {
  const fifo = join(scratch, `${name}.fifo`);
  execFileSync('mkfifo', [fifo]);
  const wrapper = join(scratch, `${name}-server.sh`);
  writeFileSync(
    wrapper,
    `#!/bin/sh\n# held until the test writes to the FIFO\nread what < '${fifo}'\n` +
      `if [ "$what" = fail ]; then echo 'start-up refused by the test' >&2; exit 3; fi\n` +
      `exec '${piCommand}' "$@"\n`,
  );
  chmodSync(wrapper, 0o755);
  const ws = createWorkspace(scratch, name, {
    settings: { ...settings, 'pi.server.command': wrapper, 'pi.server.args': [], 'pi.server.mode': 'stdio' },
  });
  let released = false;
  const release = (what) => {
    released = true;
    return writeFile(fifo, `${what}\n`);
  };
  // a check that failed before releasing leaves no server blocked behind it
  return { ws, release, cleanup: () => (released ? undefined : release('fail')) };
}

async function openStartingPanel(page) {
  let panel = await webviewFrame(page, T('prompt'), 5_000).catch(() => null); // restored with the window
  if (!panel) {
    await page.locator('.part.editor').first().click(); // the palette's keys go to the workbench
    await runCommand(page, 'pi: Open panel');
    panel = await webviewFrame(page, T('prompt'), 60_000);
  }
  await panel.locator(T('server-status'), { hasText: 'Starting the pi server' }).waitFor({ timeout: 30_000 });
  return panel;
}

export async function runUi({ server, ws: shared, scratch, out, tally, modelPort, piCommand }) {
  const settings = JSON.parse(readFileSync(join(shared, '.vscode', 'settings.json'), 'utf8'));
  const srv = await startScripted(modelPort);
  const browser = await launchBrowser(scratch);
  const { page } = browser;
  const ctx = { page, out, tally };
  const shot = (name) => page.screenshot({ path: join(out, `${name}.png`) });
  const gates = [];
  try {
    await check(ctx, 'a prompt sent while the server starts waits in the transcript, then reaches the model', async () => {
      const gated = gatedWorkspace(scratch, 'ws-early', settings, piCommand);
      gates.push(gated);
      await openWorkbench(page, workbenchUrl(server.url, gated.ws));
      const panel = await openStartingPanel(page);
      srv.text('Hello back, now that I am up.');
      const input = panel.locator(T('prompt'));
      await input.fill('Hello before the server is up.');
      await input.press('Enter');
      const waiting = panel.locator(T('message-waiting'), { hasText: 'Hello before the server is up.' });
      await waiting.waitFor({ timeout: 10_000 });
      await panel.locator(T('message-waiting'), { hasText: 'will send when the server is ready' }).waitFor();
      if ((await input.inputValue()) !== '') throw new Error(`input: ${JSON.stringify(await input.inputValue())}`);
      if (srv.requests.length !== 0) throw new Error('the model was asked before the server ran');
      await shot('early-1-waiting');
      await gated.release('go');
      await panel.locator(T('message-assistant'), { hasText: 'Hello back, now that I am up.' }).waitFor({ timeout: 90_000 });
      await panel.locator(T('message-user'), { hasText: 'Hello before the server is up.' }).waitFor();
      await waiting.waitFor({ state: 'detached' });
      await shot('early-2-sent');
      const users = await panel.locator(T('message-user')).allInnerTexts();
      if (users.length !== 1) throw new Error(`user messages: ${JSON.stringify(users)}`);
      const asked = JSON.stringify(srv.messages(0));
      if (srv.requests.length !== 1 || !asked.includes('Hello before the server is up.')) {
        throw new Error(`model requests: ${srv.requests.length}; first: ${asked.slice(0, 400)}`);
      }
    });

    for (const g of gates) void g.cleanup();

    await check(ctx, 'a prompt sent while a server fails to start comes back into the input box with the reason', async () => {
      const gated = gatedWorkspace(scratch, 'ws-early-fail', settings, piCommand);
      gates.push(gated);
      await openWorkbench(page, workbenchUrl(server.url, gated.ws));
      const panel = await openStartingPanel(page);
      const input = panel.locator(T('prompt'));
      await input.fill('Keep me if the server fails.');
      await input.press('Enter');
      await panel.locator(T('message-waiting'), { hasText: 'Keep me if the server fails.' }).waitFor({ timeout: 10_000 });
      await gated.release('fail');
      await panel.locator('.notice.error', { hasText: 'back in the input box' }).waitFor({ timeout: 90_000 });
      if ((await input.inputValue()) !== 'Keep me if the server fails.') throw new Error(`input: ${JSON.stringify(await input.inputValue())}`);
      if ((await panel.locator(T('message-waiting')).count()) !== 0) throw new Error('still shown as waiting');
      // said once, in the transcript: no toast over the input box that holds the text again
      if ((await panel.locator('.toast', { hasText: 'not sent' }).count()) !== 0) throw new Error('a toast repeats the reason');
      await shot('early-3-failed');
    });
  } finally {
    for (const g of gates) void g.cleanup();
    await browser.close();
    await srv.close();
  }
}
