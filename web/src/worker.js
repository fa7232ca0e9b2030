// The library runs here, off the page's thread: typing never waits for a
// resolution. Messages: {id, cmd, template, request} → {id, cmd, answer, ms}.
import init, * as v4t from './pkg/v4t_wasm.js';
import wasmUrl from './pkg/v4t_wasm_bg.wasm?url';
import { unzip } from './csar.js';

// A small variable template resolved once at start: the browser compiles a
// module's functions on their first call, which would otherwise slow the
// page's first resolution down by most of a second.
const WARM_UP = `tosca_definitions_version: tosca_variability_1_0
topology_template:
  variability:
    inputs: {big: {type: boolean, default: false}}
    presets: {large: {inputs: {big: true}}}
    options: {pruning: true}
  node_templates:
    app:
      type: tosca.nodes.SoftwareComponent
      requirements:
        - host: {node: small, conditions: {not: {variability_input: big}}}
        - host: {node: large, conditions: {variability_input: big}}
    small: {type: tosca.nodes.Compute}
    large: {type: tosca.nodes.Compute}
`;
const ready = init({ module_or_path: wasmUrl }).then(() => {
  v4t.resolve(WARM_UP, '{"presets": ["large"]}');
});

const commands = {
  resolve: (t, r) => v4t.resolve(t, r),
  enrich: (t, r) => v4t.enrich(t, r),
  validate: (t, r) => v4t.validate(t, r),
  explain: (t, r) => v4t.explain(t, r),
  analyze: (t, r) => v4t.analyze(t, r),
  graph: (t, r) => v4t.graph(t, r),
  variability: (t) => v4t.variability(t),
  csar_entry: (t) => v4t.csar_entry(t),
};

self.onmessage = async ({ data }) => {
  const { id, cmd, template, request } = data;
  if (cmd === 'unzip') {
    // Archives are unpacked here too: a zip bomb never blocks the page.
    unzip(new Uint8Array(template)).then(
      (files) => self.postMessage({ id, cmd, answer: { ok: true, files } }),
      (e) => self.postMessage({ id, cmd, answer: { ok: false, error: e.message } }),
    );
    return;
  }
  try {
    await ready;
    const start = performance.now();
    const answer = JSON.parse(commands[cmd](template, JSON.stringify(request ?? {})));
    const ms = performance.now() - start;
    self.postMessage({ id, cmd, answer, ms });
  } catch (e) {
    // A trap inside the module (it should never panic) leaves it unusable:
    // the page starts a new worker.
    self.postMessage({ id, cmd, crashed: String(e && e.message || e) });
  }
};
