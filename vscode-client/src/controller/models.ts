// Models and MCP servers: the model picker's list, switching the session's model and thinking
// level (docs/protocol.md §11), and the MCP servers the panel lists (§14), looked at again
// while one is starting.

import type { SetModelParams } from '../protocol/generated';
import { type Host, updateSetting } from './host';

export class ModelControl {
  private mcpTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly host: Host) {}

  /** The model picker's list (when the server has models). */
  async list(): Promise<void> {
    if (!this.host.features().has('models')) return;
    try {
      const m = await this.host.rpc().models({ sessionId: this.host.state().sessionId ?? undefined });
      this.host.post({ type: 'models', models: m.models ?? [], current: m.current ?? null });
    } catch (err) {
      this.host.log(`the model list failed: ${String(err)}`);
    }
  }

  async setModel(model: string, provider?: string, thinkingLevel?: string): Promise<void> {
    const sessionId = this.host.state().sessionId;
    if (!sessionId || !this.host.features().has('models')) return;
    const params: SetModelParams = { sessionId, model };
    if (provider) params.provider = provider;
    if (thinkingLevel) params.thinkingLevel = thinkingLevel as SetModelParams['thinkingLevel'];
    await this.host.rpc().setModel(params);
    await this.host.refresh(sessionId);
  }

  async setThinking(level: string): Promise<void> {
    const m = this.host.state().model;
    if (m && this.host.features().has('models')) {
      await this.setModel(m.id, m.provider, level);
    } else {
      // No model yet (nothing configured): the setting, where it is set now.
      await updateSetting('thinkingLevel', level);
    }
    this.host.dispatch({ type: 'state', state: { thinkingLevel: level } });
  }

  /** The MCP servers, for the panel's list. */
  async pullMcp(): Promise<void> {
    if (!this.host.features().has('mcp')) return;
    try {
      const r = await this.host.rpc().mcp({});
      this.host.dispatch({ type: 'state', state: { mcp: r.servers ?? [] } });
    } catch (err) {
      this.host.log(`the MCP server list failed: ${String(err)}`);
    }
    this.pollMcp();
  }

  /** While a server is starting, look again every 2 s (its state and tools change by itself). */
  pollMcp(): void {
    if (this.mcpTimer || !this.host.state().mcp.some((s) => s.state === 'starting')) return;
    this.mcpTimer = setTimeout(() => {
      this.mcpTimer = undefined;
      void this.pullMcp();
    }, 2000);
  }

  /** The panel's Restart button of one MCP server. */
  async restartMcp(name: string): Promise<void> {
    const r = await this.host.rpc().mcp({ op: 'restart', name, sessionId: this.host.state().sessionId ?? undefined });
    this.host.dispatch({ type: 'state', state: { mcp: r.servers ?? [] } });
    this.pollMcp();
  }

  dispose(): void {
    if (this.mcpTimer) clearTimeout(this.mcpTimer);
  }
}
