// Throwaway extension: a webview view with an input that echoes into a transcript, and an
// API object for extension-host tests. It exists only to prove the test plumbing.
const vscode = require('vscode');

function activate(context) {
  const seen = [];
  const emitter = new vscode.EventEmitter();
  const provider = {
    resolveWebviewView(view) {
      view.webview.options = { enableScripts: true };
      view.webview.html = `<!doctype html><html><body>
<div id="log" data-testid="transcript"></div>
<input id="in" data-testid="prompt" placeholder="Ask pi">
<script>
const vscode = acquireVsCodeApi();
const input = document.getElementById('in');
input.addEventListener('keydown', (e) => {
  if (e.key === 'Enter') { vscode.postMessage({ text: input.value }); input.value = ''; }
});
window.addEventListener('message', (e) => {
  const p = document.createElement('p'); p.textContent = e.data.echo; document.getElementById('log').append(p);
});
</script></body></html>`;
      view.webview.onDidReceiveMessage((m) => {
        seen.push(m.text);
        emitter.fire(m.text);
        view.webview.postMessage({ echo: 'echo: ' + m.text });
      });
    },
  };
  context.subscriptions.push(
    vscode.window.registerWebviewViewProvider('piFixture.view', provider),
    vscode.commands.registerCommand('piFixture.show', () =>
      vscode.commands.executeCommand('piFixture.view.focus')),
  );
  return { seen, onDidReceive: emitter.event, hello: () => 'hello from the fixture' };
}

module.exports = { activate, deactivate() {} };
