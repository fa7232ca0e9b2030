// The playground page: an editor per file, the variant pickers, and panes
// that show what the library (in a Web Worker) answers.
import { EditorView, basicSetup } from 'codemirror';
import { EditorState } from '@codemirror/state';
import { yaml } from '@codemirror/lang-yaml';
import { lintGutter, setDiagnostics } from '@codemirror/lint';
import { readHash, writeHash } from './url.js';

const TEMPLATE = 'template.yaml';
/** Longest URL hash written back (a template beyond it is not linkable). */
const MAX_HASH = 1 << 20;
/** A command that takes longer is stopped (the worker is replaced). */
const TIMEOUT_MS = 20000;

const $ = (id) => document.getElementById(id);

// ---- The worker ----------------------------------------------------------

let worker;
let nextId = 1;
const pending = new Map();

function startWorker() {
  worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = ({ data }) => {
    const job = pending.get(data.id);
    if (!job) return;
    pending.delete(data.id);
    clearTimeout(job.timer);
    if (data.crashed) {
      restartWorker(`internal error: ${data.crashed}`);
      job.resolve({ ok: false, diagnostics: [{ severity: 'error', code: 'V4T090', message: `internal error: ${data.crashed}`, notes: [] }] });
    } else {
      job.resolve({ ...data.answer, ms: data.ms });
    }
  };
}

/** Stops the worker and fails what it was doing with `why`. */
function restartWorker(why) {
  worker.terminate();
  for (const [, job] of pending) {
    clearTimeout(job.timer);
    job.resolve({ ok: false, diagnostics: [{ severity: 'error', code: 'V4T090', message: why, notes: [] }] });
  }
  pending.clear();
  startWorker();
}

/** Runs `cmd` in the worker; resolves to its answer (never rejects). */
function call(cmd, template, request, transfer = []) {
  return new Promise((resolve) => {
    const id = nextId++;
    const timer = setTimeout(() => {
      if (pending.has(id)) restartWorker(`stopped after ${TIMEOUT_MS / 1000} s: the template takes too long in the browser; try the command line`);
    }, TIMEOUT_MS);
    pending.set(id, { resolve, timer });
    worker.postMessage({ id, cmd, template, request }, transfer);
  });
}

// ---- Files and editors ---------------------------------------------------

/** path → EditorState; the template first. */
const files = new Map();
let current = TEMPLATE;
let view;

function newState(text) {
  return EditorState.create({
    doc: text,
    extensions: [basicSetup, yaml(), lintGutter(), EditorView.updateListener.of((u) => {
      if (u.docChanged) changed();
    })],
  });
}

function text(path) {
  if (path === current) return view.state.doc.toString();
  return files.get(path)?.doc.toString() ?? '';
}

function extraFiles() {
  const out = {};
  for (const path of files.keys()) if (path !== TEMPLATE) out[path] = text(path);
  return out;
}

function showTab(path) {
  files.set(current, view.state);
  current = path;
  view.setState(files.get(path));
  renderTabs();
  markEditor();
}

function renderTabs() {
  const tabs = $('tabs');
  tabs.replaceChildren();
  for (const path of files.keys()) {
    const b = document.createElement('button');
    b.textContent = path;
    b.className = path === current ? 'active' : '';
    b.onclick = () => showTab(path);
    tabs.append(b);
  }
  const add = document.createElement('button');
  add.textContent = '+ file';
  add.title = 'Add a file beside the template (an imported types file, lib/...)';
  add.onclick = () => {
    const path = prompt('Path of the new file, relative to the template (e.g. lib/types.yaml):');
    if (path && !files.has(path)) {
      files.set(path, newState('tosca_definitions_version: tosca_simple_yaml_1_3\n'));
      showTab(path);
      changed();
    }
  };
  tabs.append(add);
}

/** Replaces every file (an example, an upload, a link). */
function openFiles(template, extra = {}) {
  files.clear();
  files.set(TEMPLATE, newState(template));
  for (const [path, t] of Object.entries(extra)) files.set(path, newState(t));
  current = TEMPLATE;
  view.setState(files.get(TEMPLATE));
  renderTabs();
}

// ---- The variant ---------------------------------------------------------

let declared = { presets: [], inputs: [] };
let presets = [];
let inputs = {};

function renderVariant() {
  const box = $('presets');
  box.replaceChildren();
  for (const p of declared.presets) {
    const label = document.createElement('label');
    const check = document.createElement('input');
    check.type = 'checkbox';
    check.name = 'preset';
    check.value = p.name;
    check.checked = presets.includes(p.name);
    check.onchange = () => {
      presets = check.checked ? [...presets, p.name] : presets.filter((x) => x !== p.name);
      refresh();
    };
    label.title = p.description ?? '';
    label.append(check, ` ${p.name}${p.title ? ` (${p.title})` : ''}`);
    box.append(label);
  }
  if (!declared.presets.length) box.textContent = 'none';
  const ibox = $('inputs');
  ibox.replaceChildren();
  for (const input of declared.inputs) {
    const label = document.createElement('label');
    label.append(`${input.name} `);
    const select = document.createElement('select');
    select.name = input.name;
    const options = [['', `— (${input.default === null ? 'unset' : `default ${JSON.stringify(input.default)}`})`]];
    for (const v of input.values) options.push([JSON.stringify(v), String(v)]);
    const assigned = input.name in inputs ? JSON.stringify(inputs[input.name]) : '';
    if (assigned && !options.some(([v]) => v === assigned)) options.push([assigned, assigned]);
    for (const [value, shown] of options) {
      const o = document.createElement('option');
      o.value = value;
      o.textContent = shown;
      select.append(o);
    }
    if (!input.values.length) {
      const o = document.createElement('option');
      o.value = '?';
      o.textContent = 'other…';
      select.append(o);
    }
    select.value = assigned;
    select.onchange = () => {
      let value = select.value;
      if (value === '?') {
        const typed = prompt(`Value of ${input.name} (JSON, or a plain string):`);
        if (typed === null) return renderVariant();
        try { value = JSON.stringify(JSON.parse(typed)); } catch { value = JSON.stringify(typed); }
      }
      if (value === '') delete inputs[input.name];
      else inputs[input.name] = JSON.parse(value);
      renderVariant();
      refresh();
    };
    label.append(select);
    ibox.append(label);
  }
  if (!declared.inputs.length) ibox.textContent = 'none';
}

// ---- Diagnostics ---------------------------------------------------------

let diagnostics = [];

function position(doc, line, column) {
  const l = doc.line(Math.min(Math.max(line, 1), doc.lines));
  return Math.min(l.from + Math.max(column - 1, 0), l.to);
}

/** Inline markers for the diagnostics of the file in the editor. */
function markEditor() {
  const doc = view.state.doc;
  const marks = diagnostics
    .filter((d) => d.file === current && d.line)
    .map((d) => {
      const from = position(doc, d.line, d.column);
      const to = Math.max(from, position(doc, d.end_line ?? d.line, d.end_column ?? d.column));
      return { from, to: to === from ? Math.min(from + 1, doc.length) : to, severity: d.severity, message: `${d.message} [${d.code}]` };
    });
  view.dispatch(setDiagnostics(view.state, marks));
}

function showDiagnostics(list, okText) {
  diagnostics = list;
  const ul = $('diagnostics');
  ul.replaceChildren();
  for (const d of list) {
    const li = document.createElement('li');
    li.className = d.severity;
    const where = d.line ? `${d.file}:${d.line}:${d.column}` : '';
    const notes = (d.notes ?? []).map((n) => `\n  note: ${n.message}${n.line ? ` (${n.file}:${n.line}:${n.column})` : ''}`).join('');
    li.textContent = `${where}${where ? ' ' : ''}${d.severity} ${d.code}: ${d.message}${notes}`;
    li.style.whiteSpace = 'pre-wrap';
    if (d.line && files.has(d.file)) {
      li.onclick = () => {
        if (d.file !== current) showTab(d.file);
        const at = position(view.state.doc, d.line, d.column);
        view.dispatch({ selection: { anchor: at }, scrollIntoView: true });
        view.focus();
      };
    }
    ul.append(li);
  }
  if (!list.length) {
    const li = document.createElement('li');
    li.className = 'ok';
    li.textContent = okText;
    ul.append(li);
  }
  markEditor();
}

// ---- Panes ---------------------------------------------------------------

let pane = 'resolved';
for (const b of document.querySelectorAll('#panes button')) {
  b.onclick = () => {
    pane = b.dataset.pane;
    for (const x of document.querySelectorAll('#panes button')) x.classList.toggle('active', x === b);
    for (const x of document.querySelectorAll('.pane')) x.classList.toggle('active', x.id === `pane-${pane}`);
    refreshPane();
  };
}

function request(extra = {}) {
  return {
    files: extraFiles(),
    presets,
    inputs: Object.keys(inputs).length ? JSON.stringify(inputs) : '',
    now_ms: Date.now(),
    ...extra,
  };
}

/** The answer of the latest call of each kind only (older ones are stale). */
const latest = {};
async function latestCall(kind, cmd, req) {
  const ticket = (latest[kind] = (latest[kind] ?? 0) + 1);
  const answer = await call(cmd, text(TEMPLATE), req);
  return ticket === latest[kind] ? answer : null;
}

function status(message) {
  $('status').textContent = message;
}

async function resolveNow() {
  const answer = await latestCall('resolve', 'resolve', request());
  if (!answer) return;
  $('output').textContent = answer.ok ? answer.output : '';
  if (answer.ok) status(`resolved in ${answer.ms.toFixed(1)} ms`);
  else status('does not resolve');
  window.v4tLastResolveMs = answer.ms;
  showDiagnostics(answer.diagnostics, 'no problems: the variant resolves');
  document.body.dataset.resolved = String(latest.resolve);
}

async function variabilityNow() {
  const answer = await latestCall('variability', 'variability');
  if (!answer) return;
  declared = { presets: answer.presets ?? [], inputs: answer.inputs ?? [] };
  renderVariant();
}

async function graphNow() {
  const variant = $('graph-variant').checked;
  const [picture, mermaid] = await Promise.all([
    latestCall('graph', 'graph', request({ format: 'svg', resolved: variant })),
    latestCall('mermaid', 'graph', request({ format: 'mermaid', resolved: variant })),
  ]);
  if (picture) {
    if (picture.ok) $('graph').innerHTML = picture.graph;
    else $('graph').replaceChildren(errorText(picture));
  }
  if (mermaid) $('mermaid').textContent = mermaid.ok ? mermaid.graph : '';
}
$('graph-variant').onchange = () => graphNow();
$('copy-mermaid').onclick = () => navigator.clipboard?.writeText($('mermaid').textContent);

function errorText(answer) {
  const p = document.createElement('p');
  p.className = 'error-text';
  p.textContent = (answer.diagnostics ?? []).filter((d) => d.severity === 'error').map((d) => d.message).join('\n') || answer.error || 'failed';
  return p;
}

let explainedElement = null;
async function explainNow() {
  const answer = await latestCall('explain', 'explain', request());
  if (!answer) return;
  const ul = $('elements');
  ul.replaceChildren();
  const e = answer.explanation;
  if (!e) return ul.append(errorText(answer));
  if (e.error) ul.append(errorText(answer));
  for (const x of e.elements) {
    const li = document.createElement('li');
    li.className = `${x.present ? 'present' : 'absent'}${x.id === explainedElement ? ' selected' : ''}`;
    li.textContent = `${x.display}: ${x.summary}`;
    li.onclick = () => {
      explainedElement = x.id;
      for (const y of ul.children) y.classList.remove('selected');
      li.classList.add('selected');
      showWhy(x);
    };
    ul.append(li);
    if (x.id === explainedElement) showWhy(x);
  }
}

function showWhy(x) {
  const why = $('why');
  why.replaceChildren();
  const h = document.createElement('h3');
  h.textContent = `${x.display} is ${x.present ? 'present' : 'absent'}`;
  const p = document.createElement('p');
  p.textContent = x.summary;
  why.append(h, p);
  if (x.decision.by !== 'conditions') {
    const d = document.createElement('p');
    d.textContent = x.decision.by === 'objective' ? `decided by the objective "${x.decision.objective}" (${x.decision.goal})` : `decided by tie-breaking: ${x.decision.rule}`;
    why.append(d);
  }
  const ul = document.createElement('ul');
  for (const r of x.reasons) {
    const li = document.createElement('li');
    li.textContent = `${r.message}${r.line ? ` (${r.file}:${r.line}:${r.column})` : ''}`;
    ul.append(li);
  }
  why.append(ul);
}

$('run-analyze').onclick = async () => {
  const out = $('analysis');
  out.textContent = 'analysing…';
  const answer = await latestCall('analyze', 'analyze', request());
  if (!answer) return;
  out.replaceChildren();
  const a = answer.analysis;
  if (!a) return out.append(errorText(answer));
  const count = (c) => `${c.count}${c.exact ? '' : ' (at least)'}`;
  const rows = [
    ['configurations', a.configurations],
    ['valid configurations', count(a.valid)],
    ['topologies', `${count(a.topologies)}${a.determined ? '' : ' (the optimiser picks among them)'}`],
    ['core (always present)', a.core.join(', ') || '—'],
    ['dead (never present)', a.dead.join(', ') || '—'],
    ['inputs without effect', a.irrelevant.join(', ') || '—'],
    ['presets', a.presets.map((p) => `${p.name}: ${p.error ? `fails: ${p.error}` : p.same_as ? `same as ${p.same_as}` : 'resolves'}`).join('; ') || '—'],
  ];
  const table = document.createElement('table');
  for (const [k, v] of rows) {
    const tr = table.insertRow();
    tr.insertCell().textContent = k;
    tr.insertCell().textContent = String(v);
  }
  out.append(table);
  if (a.failures.length) {
    const h = document.createElement('h3');
    h.textContent = 'Failing configurations';
    const ul = document.createElement('ul');
    for (const f of a.failures) {
      const li = document.createElement('li');
      li.textContent = `${count(f.configurations)} × ${f.message} [${f.code}]${f.witness ? ` — e.g. ${JSON.stringify(f.witness)}` : ''}`;
      ul.append(li);
    }
    out.append(h, ul);
  }
};

async function enrichedNow() {
  const answer = await latestCall('enrich', 'enrich', request());
  if (answer) $('enriched').textContent = answer.ok ? answer.output : (answer.diagnostics ?? []).map((d) => d.message).join('\n');
}

async function validateNow() {
  const answer = await latestCall('validate', 'validate', request());
  if (!answer) return;
  const ul = $('validation');
  ul.replaceChildren();
  for (const d of answer.diagnostics) {
    const li = document.createElement('li');
    li.className = d.severity;
    li.textContent = `${d.line ? `${d.file}:${d.line}:${d.column} ` : ''}${d.severity} ${d.code}: ${d.message}`;
    ul.append(li);
  }
  if (!answer.diagnostics.length) ul.textContent = 'valid TOSCA';
}

function refreshPane() {
  if (pane === 'picture') graphNow();
  else if (pane === 'explain') explainNow();
  else if (pane === 'enriched') enrichedNow();
  else if (pane === 'validate') validateNow();
}

// ---- Updates -------------------------------------------------------------

function writeUrl() {
  const hash = writeHash({ template: text(TEMPLATE), presets, inputs });
  if (hash.length <= MAX_HASH) history.replaceState(null, '', hash);
}

function refresh() {
  writeUrl();
  resolveNow();
  refreshPane();
}

let typing;
function changed() {
  clearTimeout(typing);
  typing = setTimeout(() => {
    variabilityNow();
    refresh();
  }, 150);
}

// ---- Examples and uploads ------------------------------------------------

const bundled = import.meta.glob(
  ['../../examples/*/*.yaml', '../../examples/*/TOSCA-Metadata/TOSCA.meta', '../../examples/*/profiles/**/*.yaml', '../../examples/*/lib/**/*.yaml'],
  { query: '?raw', import: 'default', eager: true },
);
const examples = {};
for (const [path, content] of Object.entries(bundled)) {
  const [, name, rest] = path.match(/examples\/([^/]+)\/(.*)$/);
  (examples[name] ??= {})[rest] = content;
}
for (const name of Object.keys(examples).sort()) {
  const o = document.createElement('option');
  o.value = name;
  o.textContent = name;
  $('examples').append(o);
}

/** Opens a CSAR's files (path → text): its entry template and the files beside it. */
async function openCsar(all, preset = []) {
  const listing = Object.fromEntries(Object.keys(all).map((p) => [p, p.endsWith('TOSCA.meta') ? all[p] : '']));
  const answer = await call('csar_entry', JSON.stringify(listing));
  if (!answer.ok) return showDiagnostics(answer.diagnostics, '');
  const dir = answer.entry.includes('/') ? answer.entry.replace(/[^/]*$/, '') : '';
  const extra = {};
  for (const [path, content] of Object.entries(all)) {
    if (path === answer.entry || !path.startsWith(dir) || path.includes('TOSCA-Metadata/')) continue;
    if (/\.ya?ml$/.test(path)) extra[path.slice(dir.length)] = content;
  }
  presets = preset;
  inputs = {};
  openFiles(all[answer.entry], extra);
  changed();
}

$('examples').onchange = () => {
  const name = $('examples').value;
  if (name) openCsar(examples[name]);
};

$('csar').onchange = async () => {
  const file = $('csar').files[0];
  if (!file) return;
  status(`reading ${file.name}…`);
  const bytes = await file.arrayBuffer();
  const answer = await call('unzip', bytes, undefined, [bytes]);
  $('csar').value = '';
  if (!answer.ok) {
    status('');
    $('output').textContent = '';
    return showDiagnostics([{ severity: 'error', code: 'V4T003', message: `could not read CSAR "${file.name}": ${answer.error ?? answer.diagnostics?.[0]?.message}`, notes: [] }], '');
  }
  await openCsar(answer.files);
};

// ---- Start ---------------------------------------------------------------

startWorker();
view = new EditorView({ parent: $('editor'), state: newState('') });
window.addEventListener('hashchange', () => start());

function start() {
  let state = {};
  try {
    state = readHash(location.hash);
  } catch (e) {
    showDiagnostics([{ severity: 'error', code: 'V4T002', message: `the link cannot be read: ${e.message}`, notes: [] }], '');
  }
  if (state.template === undefined) {
    state.template = text(TEMPLATE) || examples['web-app']?.['template.yaml'] || '';
  }
  if (state.template === text(TEMPLATE) && JSON.stringify(state.presets ?? []) === JSON.stringify(presets)
      && JSON.stringify(state.inputs ?? {}) === JSON.stringify(inputs)) return;
  presets = state.presets ?? [];
  inputs = state.inputs ?? {};
  openFiles(state.template);
  variabilityNow();
  refresh();
}
start();
