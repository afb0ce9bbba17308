// The `pi.*` VS Code settings → the server's `pi` settings section (docs/protocol.md §1, §11).
// Pure: the vscode configuration is passed in as a getter, so unit tests cover the mapping.

/** Settings the server understands, in its names. Extension-only keys are not sent. */
export const SERVER_KEYS = [
  'provider',
  'model',
  'baseUrl',
  'api',
  'apiKeyEnv',
  'thinkingLevel',
  'toolExecution',
  'steeringMode',
  'followUpMode',
  'permissions',
  'edits',
  'followEdits',
  'contextWindow',
  'maxTokens',
  'readTimeout',
  'backgroundLimit',
  'models',
  'fauxScript',
  'systemPromptAppend',
  'contextFiles',
  'skills',
  'promptTemplates',
] as const;

/** Default key variable per provider (mirrors the server's table; used to pass a stored key). */
export const PROVIDER_ENV: Record<string, string> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  google: 'GEMINI_API_KEY',
  openrouter: 'OPENROUTER_API_KEY',
  groq: 'GROQ_API_KEY',
  'openai-compatible': 'OPENAI_COMPATIBLE_API_KEY',
  ollama: 'OLLAMA_API_KEY',
};

export type Getter = (key: string) => unknown;

/**
 * Build the server's settings object from `pi.*`. Unset / empty values are left out so the
 * server's defaults apply; `permissions` is built from `pi.permissions.bash` (and kept as an
 * object when the user wrote one).
 */
export function serverSettings(get: Getter): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of SERVER_KEYS) {
    const v = get(key);
    if (v === undefined || v === null || v === '') continue;
    if (key === 'permissions') {
      if (typeof v === 'object' && Object.keys(v).length > 0) out.permissions = v;
      continue;
    }
    if ((key === 'contextWindow' || key === 'maxTokens' || key === 'readTimeout') && (typeof v !== 'number' || v <= 0)) continue;
    if (key === 'models' && (!Array.isArray(v) || v.length === 0)) continue;
    if (key === 'followEdits' && v !== true) continue;
    if ((key === 'contextFiles' || key === 'skills' || key === 'promptTemplates') && typeof v !== 'boolean') continue;
    out[key] = v;
  }
  return out;
}

/** The environment variable a stored API key is handed over in. */
export function apiKeyVariable(provider: string | undefined, apiKeyEnv: string | undefined): string | undefined {
  if (apiKeyEnv && /^[A-Za-z_][A-Za-z0-9_]*$/.test(apiKeyEnv)) return apiKeyEnv;
  return provider ? PROVIDER_ENV[provider] : undefined;
}

/** `pi.server.mode`: how the extension runs pi-lsp (an extension-only key, never sent). */
export type ServerMode = 'stdio' | 'background';

/**
 * The mode that applies: `pi.server.mode` (default `background`), except that a background
 * server needs Unix domain sockets (not Windows) and a workspace folder — else stdio.
 */
export function serverModeFor(setting: unknown, platform: NodeJS.Platform, hasFolder: boolean): ServerMode {
  if (setting === 'stdio') return 'stdio';
  return platform !== 'win32' && hasFolder ? 'background' : 'stdio';
}
