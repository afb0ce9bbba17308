// One version for pi-lsp, this extension and the Neovim plugin (pi_lsp/__init__.py is the
// source; tests/test_version.py checks package.json agrees), and the pi protocol version this
// extension is written against: a server declaring an older one gets a warning.

/** `capabilities.experimental.pi.protocolVersion` this extension needs. */
export const REQUIRED_PROTOCOL = 3;

/** A warning when the server is older than this extension needs (undefined: it is not). */
export function protocolWarning(declared: number | null, serverVersion: string | undefined, extensionVersion: string): string | undefined {
  const have = declared ?? 1; // a server without the declaration has the v1 contract
  if (have >= REQUIRED_PROTOCOL) return undefined;
  return `pi: the server (pi-lsp ${serverVersion ?? '?'}) speaks pi protocol v${have}; this extension (${extensionVersion}) needs v${REQUIRED_PROTOCOL}. Update the server (pi: Install server) or use the bundled one.`;
}
