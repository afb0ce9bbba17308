// Feature detection: what the server declares in its `initialize` answer
// (`capabilities.experimental.pi`, docs/protocol.md#declared-features). Read once per
// connection; no probe requests, no error-message matching. A server without the declaration
// (older than it) has the v1 contract only.

import type { PiFeatures, PiServerCapabilities } from './generated';

export type FeatureName = keyof PiFeatures;

/** The declaration, or `null` when the server makes none (or a malformed one). */
export function readDeclaration(experimental: unknown): PiServerCapabilities | null {
  if (!experimental || typeof experimental !== 'object') return null;
  const pi = (experimental as { pi?: unknown }).pi;
  if (!pi || typeof pi !== 'object') return null;
  const { protocolVersion, features } = pi as { protocolVersion?: unknown; features?: unknown };
  if (typeof protocolVersion !== 'number' || !features || typeof features !== 'object') return null;
  const clean: PiFeatures = {};
  for (const [name, version] of Object.entries(features)) {
    if (typeof version === 'number' && Number.isInteger(version) && version >= 1) clean[name as FeatureName] = version;
  }
  return { protocolVersion, features: clean };
}

/** What one connection's server can do. */
export class ServerFeatures {
  static readonly NONE = new ServerFeatures(null);

  constructor(readonly declaration: PiServerCapabilities | null) {}

  /** The feature is declared, at `version` or newer. */
  has(name: FeatureName, version = 1): boolean {
    return (this.declaration?.features[name] ?? 0) >= version;
  }

  /** For the log: `queue@1 review@1 …`, or why there is nothing. */
  describe(): string {
    const d = this.declaration;
    if (!d) return 'no pi features declared (a server older than protocol v2: v1 controls only)';
    const list = Object.entries(d.features).map(([k, v]) => `${k}@${v}`);
    return `pi protocol v${d.protocolVersion}: ${list.join(' ') || 'no features'}`;
  }
}
