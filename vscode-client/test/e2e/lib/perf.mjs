// Responsiveness probes run inside the webview's frame (through CDP, so the webview's CSP
// does not apply): frame intervals from requestAnimationFrame, and input latency measured
// from a key event's timestamp to the next animation frame after it was handled.
// Figures only: nothing here asserts on time (performance lives in docs/performance.md).

export async function startFrameProbe(frame) {
  await frame.evaluate(() => {
    const w = window;
    w.__piProbe = { frames: [], keys: [], longTasks: [], running: true };
    // Long tasks (≥ 50 ms) on this main thread, with whose they were: `self` (the panel's
    // own code) or the workbench around it (`…-ancestor`, `unknown`), which shares the thread
    if (w.__piLongTasks) w.__piLongTasks.disconnect();
    try {
      w.__piLongTasks = new PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          if (w.__piProbe.running) w.__piProbe.longTasks.push({ name: e.name, ms: Math.round(e.duration) });
        }
      });
      w.__piLongTasks.observe({ type: 'longtask' });
    } catch { /* no Long Tasks API */ }
    let last = performance.now();
    const tick = (t) => {
      if (!w.__piProbe.running) return;
      w.__piProbe.frames.push(t - last);
      last = t;
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    if (w.__piKeyProbe) return; // one listener for every probe of this document
    w.__piKeyProbe = true;
    document.addEventListener('keydown', (e) => {
      const start = e.timeStamp;
      requestAnimationFrame(() => { if (w.__piProbe.running) w.__piProbe.keys.push(performance.now() - start); });
    }, true);
  });
}

export function stats(xs) {
  if (xs.length === 0) return { n: 0 };
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return {
    n: s.length,
    p50: +q(0.5).toFixed(1),
    p95: +q(0.95).toFixed(1),
    max: +s[s.length - 1].toFixed(1),
    over50: s.filter((x) => x > 50).length,
  };
}

function summariseLongTasks(tasks) {
  const by = {};
  for (const t of tasks) {
    const k = t.name === 'self' ? 'panel' : 'other';
    by[k] = by[k] || { n: 0, maxMs: 0, names: {} };
    by[k].n++;
    by[k].maxMs = Math.max(by[k].maxMs, t.ms);
    by[k].names[t.name] = (by[k].names[t.name] || 0) + 1;
  }
  return by;
}

/** The probe's figures; with `raw`, also the samples (to pool several probes). */
export async function stopFrameProbe(frame, { raw = false } = {}) {
  const { frames, keys, longTasks } = await frame.evaluate(() => {
    window.__piProbe.running = false;
    return { frames: window.__piProbe.frames.slice(1), keys: window.__piProbe.keys, longTasks: window.__piProbe.longTasks };
  });
  const out = { frames: stats(frames), input: stats(keys), longTasks: summariseLongTasks(longTasks) };
  return raw ? { ...out, raw: { frames, keys } } : out;
}

/**
 * Arm a probe for the next `loadSession` of at least `minMessages` messages: from the moment the
 * webview receives it (the event's timestamp, before any handler) to the first moment the main
 * thread is free again after the frame that shows it (a task queued from a frame callback that
 * runs after the panel's own: reduce + render + style/layout of that frame). Epoch times too,
 * to compare with the test's own clock.
 */
export async function armResumeProbe(frame, minMessages) {
  await frame.evaluate((min) => {
    const w = window;
    w.__piResume = null;
    const onMessage = (e) => {
      const acts = e.data && e.data.type === 'actions' ? e.data.actions : [];
      const load = acts.find((a) => a.type === 'loadSession' && a.messages.length >= min);
      if (!load) return;
      window.removeEventListener('message', onMessage);
      const received = e.timeStamp;
      requestAnimationFrame(() => setTimeout(() => {
        const now = performance.now();
        w.__piResume = {
          messages: load.messages.length,
          receivedToIdleMs: +(now - received).toFixed(1),
          receivedEpoch: performance.timeOrigin + received,
          idleEpoch: performance.timeOrigin + now,
        };
      }, 0));
    };
    window.addEventListener('message', onMessage);
  }, minMessages);
}

export async function readResumeProbe(frame) {
  await frame.waitForFunction(() => window.__piResume !== null, null, { timeout: 60_000 });
  return frame.evaluate(() => window.__piResume);
}

export function describe(label, m) {
  const f = m.frames;
  const i = m.input;
  return `${label}: frames n=${f.n} p50=${f.p50} ms p95=${f.p95} ms max=${f.max} ms (>50 ms: ${f.over50}); `
    + `input→next frame n=${i.n} p50=${i.p50} ms p95=${i.p95} ms max=${i.max} ms`;
}
