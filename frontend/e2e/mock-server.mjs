// TEST-ONLY harness: serves the built UI (dist/) with a fake Wails bridge so
// the browser E2E script can be exercised without the Go app. The fake
// emulates Status/Ingest/Ask and their events with timers; it is never part
// of the shipped UI.
//
// It plays a first run: the embedding model is missing until DownloadModel is
// called (model:progress events), then loads for a moment (Status.loading),
// then the "app" indexes a sample library by itself (ingest:progress without
// an Ingest call) — the UI must follow all of it.
//
// Answers with verified claims are real `footnote ask --json` output
// (src/testdata/answer-*.json, captured from the CLI against fake-ollama):
// asking one of their questions streams that answer, with its claims,
// verdicts and support spans exactly as Go emits them; History and
// OpenDocument serve it and its passages.
//
//   node e2e/mock-server.mjs            start and print the URL
//   node e2e/mock-server.mjs --run-e2e  start, run e2e/app.e2e.mjs against it, exit with its code
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.resolve(here, '..', 'dist');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

// Recorded answers (see above), keyed by question.
const recorded = await Promise.all(
  ['answer-verified.json', 'answer-unsupported.json'].map(async (f) =>
    JSON.parse(await readFile(path.resolve(here, '..', 'src', 'testdata', f), 'utf8')),
  ),
);

// Runs in the page. Kept as a function so it is real, checked JavaScript.
function fakeWails(recordedAnswers) {
  const listeners = new Map();
  const emit = (name, payload) => {
    for (const cb of listeners.get(name) ?? []) cb(payload);
  };
  const citations = [1, 2].map((n) => ({
    n,
    doc_id: `doc-${n}`,
    section_id: n === 1 ? 'installing-on-linux' : 'first-run',
    snippet_id: `doc-${n}#s${n}`,
    source_url: '',
    title: n === 1 ? 'Installing Footnote' : 'Getting started',
    path: `/library/${n === 1 ? 'install' : 'start'}.md`,
    offsets: { start: 120 * n, end: 120 * n + 300, unit: 'char' },
    tokens: 64,
    score_norm: n === 1 ? 0.87 : 0.61,
    text:
      n === 1
        ? 'On Linux, download the AppImage from the releases page, mark it executable with chmod +x and run it.'
        : 'On first run Footnote asks for a folder to index and shows progress while it reads your documents.',
  }));
  const answerText =
    'To install Footnote on **Linux**:\n\n1. Download the AppImage [#1].\n2. Run `chmod +x Footnote.AppImage` and start it [#1].\n\nOn first run, pick a folder to index [#2]. (Not a citation: [1].)';
  const tokens = answerText.match(/\S+\s*|\s+/g);
  let docs = [];
  let seq = 0;
  const history = [];
  const timers = new Map();
  let model = 'missing'; // 'missing' → 'loading' → 'ready'
  const LOAD_MS = 1500;
  const sampleDoc = { doc_id: 'sample-1', title: 'Welcome to Footnote', path: '/samples/welcome.md', format: 'markdown', rev: 'r1', chunks: 4, indexed_at: new Date().toISOString() };
  const addDocs = (more) => {
    const ids = new Set(more.map((d) => d.doc_id));
    docs = [...docs.filter((d) => !ids.has(d.doc_id)), ...more];
  };

  // The app indexing a sample library by itself once the model is loaded.
  const startupIngest = () => {
    const total = 3;
    let done = 0;
    const tick = setInterval(() => {
      done += 1;
      if (done === total) addDocs([sampleDoc]);
      emit('ingest:progress', { files_done: done, files_total: total, chunks: done * 2, current: done < total ? `/samples/file${done}.md` : '', done: done === total });
      if (done === total) clearInterval(tick);
    }, 150);
  };

  window.runtime = {
    EventsOn(name, cb) {
      const set = listeners.get(name) ?? new Set();
      set.add(cb);
      listeners.set(name, set);
      return () => set.delete(cb);
    },
    EventsOff(name) {
      listeners.delete(name);
    },
    BrowserOpenURL() {},
  };

  window.go = {
    app: {
      App: {
        Status: async () => ({
          loading: model === 'loading',
          ready: model === 'ready',
          embed_model: model === 'ready' ? 'mock-embed' : '',
          embed_error: model === 'missing' ? 'The embedding model is not installed; click "Download model" to fetch it (about 90 MB).' : '',
          llm_model: 'mock-llm',
          ollama_host: 'http://127.0.0.1:11434',
          ollama_error: '',
          documents: docs.length,
          chunks: docs.reduce((a, d) => a + d.chunks, 0),
          data_dir: '/data',
          index_hash: model === 'ready' ? 'mock-index' : '',
        }),
        DownloadModel: () =>
          new Promise((resolve) => {
            const files = [
              { name: 'model.onnx', size: 90_000_000 },
              { name: 'tokenizer.json', size: 700_000 },
            ];
            const total = files.reduce((a, f) => a + f.size, 0);
            const steps = 4;
            let i = 0;
            const tick = setInterval(() => {
              const file = files[Math.floor(i / steps)];
              const part = (i % steps) + 1;
              const before = files.slice(0, Math.floor(i / steps)).reduce((a, f) => a + f.size, 0);
              const fileDone = Math.round((file.size * part) / steps);
              emit('model:progress', { file: file.name, file_done: fileDone, file_total: file.size, done: before + fileDone, total: total });
              i += 1;
              if (i < files.length * steps) return;
              clearInterval(tick);
              model = 'loading';
              setTimeout(() => {
                model = 'ready';
                startupIngest();
              }, LOAD_MS);
              resolve();
            }, 80);
          }),
        Documents: async () => docs,
        History: async (_query, limit) => history.slice(0, limit || history.length),
        // A recorded passage's document: its stored text starts with the passage (offset 0).
        OpenDocument: async (id) => {
          for (const a of recordedAnswers) {
            const c = (a.citations ?? []).find((x) => x.doc_id === id);
            if (c) return { doc_id: id, title: c.title, path: c.path, format: 'markdown', rev: c.rev, chunks: 1, indexed_at: c.created_at, text: c.text, chars: Array.from(c.text).length };
          }
          throw new Error(`document ${id} is not in the index`);
        },
        PickFolder: async () => '/library',
        Search: async () => [],
        Ingest: (paths) =>
          new Promise((resolve) => {
            const total = 4;
            let done = 0;
            const tick = setInterval(() => {
              done += 1;
              emit('ingest:progress', { files_done: done, files_total: total, chunks: done * 3, current: `${paths[0]}/file${done}.md`, done: done === total });
              if (done < total) return;
              clearInterval(tick);
              addDocs(citations.map((c) => ({ doc_id: c.doc_id, title: c.title, path: c.path, format: 'markdown', rev: 'r1', chunks: 6, indexed_at: new Date().toISOString() })));
              resolve({ files_seen: 5, files_indexed: 4, files_unchanged: 0, files_skipped: 1, files_failed: 0, chunks_embedded: 12, errors: [], duration_ms: 400 });
            }, 100);
          }),
        Ask: async (question) => {
          const id = `req-${++seq}`;
          const started = Date.now();
          const record = recordedAnswers.find((a) => a.question === question);
          if (record) {
            emit('answer:start', { request_id: id, question, citations: record.citations });
            const words = record.answer.match(/\S+\s*|\s+/g);
            let w = 0;
            const timer = setInterval(() => {
              if (w < words.length) {
                emit('answer:token', { request_id: id, token: words[w++] });
                return;
              }
              clearInterval(timer);
              timers.delete(id);
              const answer = { ...record, request_id: id };
              history.unshift(answer);
              emit('answer:done', { request_id: id, answer });
            }, 40);
            timers.set(id, timer);
            return id;
          }
          // Emit start before Ask resolves, as a fast backend might.
          emit('answer:start', { request_id: id, question, citations });
          emit('answer:token', { request_id: 'some-other-request', token: 'NOISE' });
          let i = 0;
          const timer = setInterval(() => {
            if (i < tokens.length) {
              emit('answer:token', { request_id: id, token: tokens[i++] });
              return;
            }
            clearInterval(timer);
            timers.delete(id);
            emit('answer:done', {
              request_id: id,
              answer: { request_id: id, question, answer: answerText, grounded: true, refusal_reason: null, citations, model: 'mock-llm', embed_model: 'mock-embed', stopped: false, duration_ms: Date.now() - started },
            });
          }, 40);
          timers.set(id, timer);
          return id;
        },
        Stop: async (id) => {
          clearInterval(timers.get(id));
          timers.delete(id);
        },
      },
    },
  };
}

export function startMockServer(port = 0) {
  const server = http.createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/__mock/wails.js') {
        res.writeHead(200, { 'content-type': TYPES['.js'] });
        res.end(`(${fakeWails.toString()})(${JSON.stringify(recorded)});\n`);
        return;
      }
      const rel = url.pathname === '/' ? 'index.html' : decodeURIComponent(url.pathname).replace(/^\/+/, '');
      const file = path.resolve(dist, rel);
      if (!file.startsWith(dist + path.sep)) {
        res.writeHead(403).end();
        return;
      }
      let body = await readFile(file);
      if (rel === 'index.html') {
        // A same-origin classic script, like Wails' own injected runtime, so the CSP stays as shipped.
        body = Buffer.from(body.toString('utf8').replace('<head>', '<head>\n    <script src="/__mock/wails.js"></script>'));
      }
      res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  return new Promise((resolve) => {
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, url: `http://127.0.0.1:${address.port}` });
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { server, url } = await startMockServer(Number(process.env.PORT || 0));
  console.log(`mock Footnote UI at ${url}`);
  if (process.argv.includes('--run-e2e')) {
    const child = spawn(process.execPath, [path.join(here, 'app.e2e.mjs')], {
      stdio: 'inherit',
      env: {
        ...process.env,
        FOOTNOTE_URL: url,
        FOOTNOTE_LIBRARY: process.env.FOOTNOTE_LIBRARY || '/library',
        FOOTNOTE_EXPECT_DOWNLOAD: '1',
        FOOTNOTE_EXPECT_STARTUP_INGEST: '1',
        FOOTNOTE_QUESTION: process.env.FOOTNOTE_QUESTION || recorded[0].question,
        FOOTNOTE_MISQUOTE_QUESTION: process.env.FOOTNOTE_MISQUOTE_QUESTION || recorded[1].question,
      },
    });
    child.on('exit', (code) => {
      server.close();
      process.exit(code ?? 1);
    });
  }
}
