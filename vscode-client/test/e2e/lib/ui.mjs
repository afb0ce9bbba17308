// Small helpers for driving the code-server workbench in Chromium.
import { join } from 'node:path';

/** Run one named UI check into the tally; a failure gets a screenshot. */
export async function check(ctx, title, fn) {
  const t0 = Date.now();
  try {
    await fn();
    ctx.tally.record({ state: 'passed', title, ms: Date.now() - t0 });
  } catch (err) {
    const shot = join(ctx.out, `FAILED-${title.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}.png`);
    await ctx.page.screenshot({ path: shot }).catch(() => {});
    ctx.tally.record({ state: 'failed', title, error: `${err && err.stack || err}\nscreenshot: ${shot}` });
  }
}

/**
 * A measurement, not a check: `fn` takes figures (docs/performance.md) and returns them as a
 * line; they are reported as "measure", whatever they are, and never count as a pass. Only a
 * drive that breaks (`fn` throws: the figures could not be taken) fails. What the drive must
 * get right goes in a `check` of its own.
 */
export async function measure(ctx, title, fn) {
  try {
    const figures = await fn();
    ctx.tally.record({ state: 'measured', title, reason: String(figures ?? '') });
  } catch (err) {
    const shot = join(ctx.out, `FAILED-${title.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}.png`);
    await ctx.page.screenshot({ path: shot }).catch(() => {});
    ctx.tally.record({ state: 'failed', title: `measure: ${title}`, error: `${err && err.stack || err}\nscreenshot: ${shot}` });
  }
}

/** Open the workbench on a folder and wait until it has rendered. */
export async function openWorkbench(page, url) {
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  await page.locator('.part.statusbar').waitFor({ timeout: 60_000 });
  await page.locator('.part.editor').waitFor({ timeout: 60_000 });
}

/** Run a command through the palette (F1 — the browser does not intercept it). The
 * palette lists what was registered when it opened, so an extension still starting up is
 * waited for by reopening it. */
export async function runCommand(page, title, timeout = 60_000, { opensPicker = false } = {}) {
  const deadline = Date.now() + timeout;
  const input = page.locator('.quick-input-widget input');
  const row = page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
  for (;;) {
    await page.keyboard.press('Escape');
    await page.keyboard.press('F1');
    await input.waitFor({ timeout: 10_000 });
    await input.fill(`>${title}`);
    try {
      await row.waitFor({ timeout: 3_000 });
      break;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`command "${title}" never appeared in the palette`);
    }
  }
  await input.press('Enter');
  // a command that opens its own picker reuses the widget: the caller waits for its rows
  if (!opensPicker) await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
}

/** The frame of the webview whose document contains `selector`. */
export async function webviewFrame(page, selector, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    for (const f of page.frames()) {
      if (f.name() === 'active-frame' || f.url().includes('fake.html') || f.url().includes('index.html')) {
        try {
          if (await f.locator(selector).count() > 0) return f;
        } catch { /* detached */ }
      }
    }
    if (Date.now() > deadline) throw new Error(`no webview frame contains ${selector}`);
    await page.waitForTimeout(100);
  }
}
