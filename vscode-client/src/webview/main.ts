// Placeholder: replaced by the real panel in the next commit.
declare function acquireVsCodeApi(): { postMessage(m: unknown): void };
const vscode = acquireVsCodeApi();
document.getElementById('app')!.textContent = 'pi';
vscode.postMessage({ type: 'ready' });
