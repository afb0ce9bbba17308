// The panel's top: the model picker (or name), thinking level, edits mode, context meter and
// session cost; the server banner (starting / missing / crashed); the MCP servers list.

import { clear, fmtCost, fmtTokens, h } from './dom';
import { app, post } from './state';

export const header = h('div.header', { 'data-testid': 'header' });
export const banner = h('div.banner', { 'data-testid': 'banner' });
export const mcpEl = h('details.mcp', { 'data-testid': 'mcp-servers', hidden: true });

export function paintHeader(): void {
  clear(header);
  const top = h('div.header-row');
  const bottom = h('div.header-row.small');
  header.append(top, bottom);
  // Model picker (pi/models) or the model's name.
  if (app.vm.features.models && app.models.length > 0) {
    const sel = h('select.model', { 'data-testid': 'model-picker', title: 'Model for this session' });
    const groups = new Map<string, HTMLOptGroupElement>();
    for (const m of app.models) {
      let g = groups.get(m.provider);
      if (!g) {
        g = h('optgroup', { label: m.provider });
        groups.set(m.provider, g);
        sel.append(g);
      }
      const o = h('option', { value: `${m.provider}\u0000${m.id}`, text: m.name || m.id, title: `${m.id} (${m.provider})` });
      if (app.vm.model && m.id === app.vm.model.id && (!app.vm.model.provider || app.vm.model.provider === m.provider)) o.selected = true;
      g.append(o);
    }
    if (app.vm.model && !app.models.some((m) => m.id === app.vm.model!.id)) {
      sel.prepend(h('option', { value: `\u0000${app.vm.model.id}`, text: app.vm.model.name || app.vm.model.id, selected: true }));
    }
    sel.addEventListener('change', () => {
      const [provider, model] = sel.value.split('\u0000');
      post(provider ? { type: 'setModel', provider, model } : { type: 'setModel', model });
    });
    top.append(sel);
  } else if (app.vm.model) {
    top.append(h('span.model-name', { 'data-testid': 'model-name', title: app.vm.model.provider ? `${app.vm.model.id} (${app.vm.model.provider})` : app.vm.model.id, text: app.vm.model.name || app.vm.model.id }));
  }
  const think = h('select.thinking', { 'data-testid': 'thinking', title: 'Thinking level' });
  for (const lvl of ['off', 'minimal', 'low', 'medium', 'high', 'xhigh']) {
    think.append(h('option', { value: lvl, text: `thinking: ${lvl}`, selected: (app.vm.thinkingLevel ?? 'off') === lvl }));
  }
  think.addEventListener('change', () => post({ type: 'setThinking', level: think.value }));
  bottom.append(think);
  const edits = h('select.edits', { 'data-testid': 'edits-mode', title: 'How edits arrive: at once (then Keep / Undo), or after you confirm each' });
  edits.append(
    h('option', { value: 'apply', text: 'edits: apply', selected: app.settings.edits === 'apply' }),
    h('option', { value: 'confirm', text: 'edits: confirm', selected: app.settings.edits === 'confirm' }),
  );
  edits.addEventListener('change', () => post({ type: 'setEdits', mode: edits.value === 'confirm' ? 'confirm' : 'apply' }));
  bottom.append(edits);
  // Context meter and session cost.
  const used = app.vm.contextTokens;
  const win = app.vm.contextWindow;
  const meter = h('span.meter', { 'data-testid': 'context-meter' });
  if (used !== null && win) {
    const pct = Math.min(100, Math.round((used / win) * 100));
    meter.title = `Context: ${used} of ${win} tokens (${pct}%)`;
    const fill = h('span.meter-fill', { 'data-level': pct > 85 ? 'high' : pct > 60 ? 'mid' : 'low' });
    fill.style.width = `${pct}%`; // CSSOM, allowed under the CSP (inline style attributes are not)
    meter.append(h('span.meter-bar', {}, fill));
    meter.append(h('span.meter-text', { text: `${fmtTokens(used)}/${fmtTokens(win)}` }));
  } else if (win) {
    meter.title = `Context window: ${win} tokens`;
    meter.append(h('span.meter-text', { text: `–/${fmtTokens(win)}` }));
  }
  bottom.append(meter);
  const u = app.vm.usage;
  if (u.input + u.output > 0) {
    bottom.append(
      h('span.cost.muted', {
        'data-testid': 'session-usage',
        title: `Session: ${u.input} input, ${u.output} output, ${u.cacheRead} cache read, ${u.cacheWrite} cache write tokens`,
        text: `${fmtTokens(u.input + u.cacheRead + u.cacheWrite)}↑ ${fmtTokens(u.output)}↓${u.cost > 0 ? ` ${fmtCost(u.cost)}` : ''}`,
      }),
    );
  }
  top.append(
    h('span.spacer'),
    h('button.icon', { 'data-testid': 'history', title: 'Session history', text: '☰', onclick: () => post({ type: 'listSessions' }) }),
    h('button.icon', { 'data-testid': 'new-session', title: 'New session', text: '+', onclick: () => post({ type: 'newSession' }) }),
  );
}

/** The MCP servers (docs/protocol.md §14): state, tool count, message, a Restart button each. */
export function paintMcp(): void {
  const open = mcpEl.open;
  clear(mcpEl);
  const servers = app.vm.mcp;
  mcpEl.hidden = servers.length === 0;
  if (servers.length === 0) return;
  const ready = servers.filter((s) => s.state === 'ready').length;
  const failed = servers.some((s) => s.state === 'failed');
  mcpEl.append(
    h('summary', {
      'data-testid': 'mcp-summary',
      text: `MCP servers: ${ready}/${servers.length} ready${failed ? ' · some failed' : ''}`,
    }),
  );
  for (const s of servers) {
    const tools = s.state === 'ready' ? ` · ${s.toolCount} tool${s.toolCount === 1 ? '' : 's'}` : '';
    mcpEl.append(
      h(
        'div.mcp-server',
        { 'data-testid': 'mcp-server', 'data-state': s.state, title: `${s.source}: ${s.target}` },
        h('span.mcp-name', { text: s.name }),
        h('span.mcp-state', { text: `${s.state}${tools}${s.message ? `: ${s.message}` : ''}` }),
        h('button.link', {
          text: 'Restart',
          'data-testid': 'mcp-restart',
          onclick: () => post({ type: 'mcpRestart', name: s.name }),
        }),
      ),
    );
  }
  mcpEl.open = open || failed;
}

export function paintBanner(): void {
  clear(banner);
  const s = app.vm.server;
  banner.hidden = s.status === 'running';
  if (s.status === 'running') return;
  banner.dataset.status = s.status;
  const text =
    s.status === 'starting'
      ? 'Starting the pi server…'
      : s.status === 'missing'
        ? s.message ?? 'The pi-lsp server was not found.'
        : s.message ?? `The pi server is ${s.status}.`;
  banner.append(h('div', { 'data-testid': 'server-status', text }));
  if (s.status !== 'starting') {
    banner.append(
      h(
        'div.buttons',
        {},
        // not found: the one-click install into a managed environment (src/install/managed.ts)
        ...(s.status === 'missing'
          ? [h('button.primary', { text: 'Install server', 'data-testid': 'install-server', onclick: () => post({ type: 'installServer' }) })]
          : []),
        h(s.status === 'missing' ? 'button.secondary' : 'button.primary', { text: 'Retry', onclick: () => post({ type: 'retryServer' }) }),
        h('button.secondary', { text: 'Settings', onclick: () => post({ type: 'openSettings' }) }),
        h('button.secondary', { text: 'Set API key', onclick: () => post({ type: 'setApiKey' }) }),
      ),
    );
  }
}
