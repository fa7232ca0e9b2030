// The VS Code client of `v4t lsp`: starts the server for YAML files that
// match `v4t.filePattern` (LSP over standard input and output).
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate() {
  const config = vscode.workspace.getConfiguration("v4t");
  const server = { command: config.get("path", "v4t"), args: ["lsp"] };
  const options = {
    documentSelector: [
      { scheme: "file", language: "yaml", pattern: config.get("filePattern", "**/*.{yaml,yml}") },
    ],
  };
  client = new LanguageClient("v4t", "v4t", server, options);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
