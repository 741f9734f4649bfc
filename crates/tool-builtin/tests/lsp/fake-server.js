// A minimal language server for the LSP tool's tests: the paths a real server does not
// take on demand. Usage: node fake-server.js MODE
//
//   crash-on-request  answers `initialize`, then exits with code 3 (after a line on stderr)
//                     on any other request
//   silent-hover      answers `initialize` (hover offered), never answers `hover`
//   config            on `hover`, asks the client for `workspace/configuration` section
//                     `fake.answer` and answers the hover with what the client said
//   no-features       answers `initialize` with no capabilities at all
//
// Every mode answers `shutdown` and exits on `exit`.
'use strict';

const mode = process.argv[2] || 'config';
let buffer = Buffer.alloc(0);
let nextId = 1000;
const waiting = new Map();

function send(message) {
  const body = Buffer.from(JSON.stringify(Object.assign({ jsonrpc: '2.0' }, message)), 'utf8');
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}

function capabilities() {
  if (mode === 'no-features') return {};
  return { hoverProvider: true, textDocumentSync: 1 };
}

function handle(message) {
  if (message.method === undefined && waiting.has(message.id)) {
    waiting.get(message.id)(message);
    waiting.delete(message.id);
    return;
  }
  const { id, method } = message;
  if (id === undefined) {
    if (method === 'exit') process.exit(0);
    return;
  }
  if (method === 'initialize') {
    send({ id, result: { capabilities: capabilities(), serverInfo: { name: 'fake', version: mode } } });
  } else if (method === 'shutdown') {
    send({ id, result: null });
  } else if (mode === 'crash-on-request') {
    process.stderr.write(`fake server: crashing on ${method}\n`);
    process.exit(3);
  } else if (mode === 'silent-hover' && method === 'textDocument/hover') {
    // Never answered.
  } else if (mode === 'config' && method === 'textDocument/hover') {
    const ask = nextId++;
    waiting.set(ask, (reply) => {
      const value = reply.result ? JSON.stringify(reply.result[0]) : `error ${JSON.stringify(reply.error)}`;
      send({ id, result: { contents: { kind: 'markdown', value: `configured: ${value}` } } });
    });
    send({ id: ask, method: 'workspace/configuration', params: { items: [{ section: 'fake.answer' }] } });
  } else {
    send({ id, error: { code: -32601, message: `${method} is not implemented by the fake server` } });
  }
}

process.stdin.on('data', (chunk) => {
  buffer = Buffer.concat([buffer, chunk]);
  for (;;) {
    const end = buffer.indexOf('\r\n\r\n');
    if (end < 0) return;
    const match = /Content-Length: *(\d+)/i.exec(buffer.slice(0, end).toString('ascii'));
    const length = match ? Number(match[1]) : 0;
    if (buffer.length < end + 4 + length) return;
    const body = buffer.slice(end + 4, end + 4 + length).toString('utf8');
    buffer = buffer.slice(end + 4 + length);
    handle(JSON.parse(body));
  }
});
process.stdin.on('end', () => process.exit(0));
