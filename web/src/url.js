// The state in the URL: #template=<base64url UTF-8>&presets=a,b&inputs=<base64url JSON>.

/** base64url (no padding) of the UTF-8 bytes of `text`. */
export function encode(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The text whose UTF-8 bytes `b64` encodes (base64url or base64). */
export function decode(b64) {
  const binary = atob(b64.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

/** {template, presets, inputs} from a location hash; missing parts undefined. */
export function readHash(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const state = {};
  if (params.has('template')) state.template = decode(params.get('template'));
  if (params.has('presets')) state.presets = params.get('presets').split(',').filter(Boolean);
  if (params.has('inputs')) state.inputs = JSON.parse(decode(params.get('inputs')));
  return state;
}

/** The hash for a state. */
export function writeHash({ template, presets, inputs }) {
  let hash = `#template=${encode(template)}`;
  if (presets.length) hash += `&presets=${presets.map(encodeURIComponent).join(',')}`;
  if (inputs && Object.keys(inputs).length) hash += `&inputs=${encode(JSON.stringify(inputs))}`;
  return hash;
}
