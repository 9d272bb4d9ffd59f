// A minimal client of `forgelint lsp`: VS Code starts the server over standard input and
// output and sends it the files it lints (jobspecs, TOML rule files and configs, the files of
// experiment directories); the server answers with diagnostics, quick fixes and hover text.
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration('forgelint').get('path') || 'forgelint';
  const server = { command, args: ['lsp'] };
  client = new LanguageClient(
    'forgelint',
    'forgelint',
    { run: server, debug: server },
    {
      // The server decides what each file is (by the nearest forgelint.toml) and ignores
      // the rest, so the selector only keeps unrelated buffers away from it.
      documentSelector: [
        { scheme: 'file', pattern: '**/*jobspec.json' },
        { scheme: 'file', pattern: '**/*.toml' },
        { scheme: 'file', pattern: '**/experiments/**' },
      ],
    },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
