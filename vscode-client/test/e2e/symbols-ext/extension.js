// A stand-in for a Python language server in the UI tier (no Python extension in code-server's
// test profile): workspace and document symbols of the workspace's *.py files. `def` and `class`
// lines are symbols; a symbol's whole range runs to its block's last non-blank line (by
// indentation), its container is the enclosing class, or the module (path without .py, dots for
// slashes). Like jedi and pyright, workspace symbols are located by the NAME only (one line) and
// the document symbols carry the whole range: pi's composer must widen the one from the other.
// pi reaches both through vscode.executeWorkspaceSymbolProvider / executeDocumentSymbolProvider,
// as it would a real server's.
const vscode = require('vscode');

const DEF = /^(\s*)(async\s+def|def|class)\s+([A-Za-z_]\w*)/;

function symbolsOf(uri, text, rel) {
  const lines = text.split('\n');
  const indentOf = (l) => l.match(/^\s*/)[0].length;
  const out = [];
  const stack = [];
  lines.forEach((line, i) => {
    const m = DEF.exec(line);
    if (!m) return;
    const indent = m[1].length;
    let end = i;
    for (let j = i + 1; j < lines.length; j++) {
      if (lines[j].trim() === '') continue;
      if (indentOf(lines[j]) <= indent) break;
      end = j;
    }
    while (stack.length && stack[stack.length - 1].indent >= indent) stack.pop();
    const container = stack.length ? stack[stack.length - 1].name : rel.replace(/\.py$/, '').replace(/\//g, '.');
    const isClass = m[2] === 'class';
    const kind = isClass ? vscode.SymbolKind.Class : stack.length ? vscode.SymbolKind.Method : vscode.SymbolKind.Function;
    const col = line.indexOf(m[3], m[1].length);
    const name = new vscode.Range(i, col, i, col + m[3].length);
    const range = new vscode.Range(i, 0, end, lines[end].length);
    const info = new vscode.SymbolInformation(m[3], kind, container, new vscode.Location(uri, name));
    const doc = new vscode.DocumentSymbol(m[3], '', kind, range, name);
    out.push({ info, doc, parent: stack.length ? stack[stack.length - 1].doc : undefined });
    if (isClass) stack.push({ indent, name: m[3], doc });
  });
  return out;
}

function activate(context) {
  context.subscriptions.push(
    vscode.languages.registerWorkspaceSymbolProvider({
      async provideWorkspaceSymbols(query) {
        const q = query.toLowerCase();
        const files = await vscode.workspace.findFiles('**/*.py', '**/{node_modules,.git,.venv}/**', 200);
        const out = [];
        for (const uri of files) {
          const text = Buffer.from(await vscode.workspace.fs.readFile(uri)).toString('utf8');
          const rel = vscode.workspace.asRelativePath(uri, false);
          for (const s of symbolsOf(uri, text, rel)) if (s.info.name.toLowerCase().includes(q)) out.push(s.info);
        }
        return out;
      },
    }),
    vscode.languages.registerDocumentSymbolProvider({ scheme: 'file', pattern: '**/*.py' }, {
      provideDocumentSymbols(doc) {
        const found = symbolsOf(doc.uri, doc.getText(), vscode.workspace.asRelativePath(doc.uri, false));
        for (const s of found) if (s.parent) s.parent.children.push(s.doc);
        return found.filter((s) => !s.parent).map((s) => s.doc);
      },
    }),
  );
}

module.exports = { activate, deactivate() {} };
