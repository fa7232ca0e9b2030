// A zipped CSAR read in the browser, with limits: at most MAX_ENTRIES
// entries and MAX_BYTES inflated in all, counted while inflating (declared
// sizes may lie), so a zip bomb stops early with an error.
import { Unzip, UnzipInflate } from 'fflate';

export const MAX_ENTRIES = 4096;
export const MAX_BYTES = 16 * 1024 * 1024;

/** The text files of the zip archive `bytes` (path → text). */
export function unzip(bytes) {
  return new Promise((resolve, reject) => {
    const files = {};
    let entries = 0;
    let total = 0;
    let failed = false;
    const fail = (message) => {
      if (!failed) {
        failed = true;
        reject(new Error(message));
      }
    };
    const unzipper = new Unzip((file) => {
      if (failed) return;
      entries += 1;
      if (entries > MAX_ENTRIES) return fail(`the archive has more than ${MAX_ENTRIES} entries`);
      const path = file.name;
      if (path.endsWith('/')) return;
      if (path.startsWith('/') || path.includes('\\') || path.split('/').some((p) => p === '..' || p === '.')) {
        return fail(`the entry "${path}" is not a plain relative path`);
      }
      const chunks = [];
      file.ondata = (err, chunk, final) => {
        if (failed) return;
        if (err) return fail(`the entry "${path}" cannot be read: ${err.message}`);
        total += chunk.length;
        if (total > MAX_BYTES) {
          file.terminate();
          return fail(`the archive inflates to more than ${MAX_BYTES / 1048576} MB (a zip bomb?)`);
        }
        chunks.push(chunk);
        if (final) {
          const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
          let at = 0;
          for (const c of chunks) { all.set(c, at); at += c.length; }
          try {
            files[path] = new TextDecoder('utf-8', { fatal: true }).decode(all);
          } catch {
            // Binary files (artifacts) are not needed to resolve.
          }
        }
      };
      file.start();
    });
    unzipper.register(UnzipInflate);
    try {
      // Fed in slices: a bomb is noticed before much is inflated.
      const step = 64 * 1024;
      for (let i = 0; i < bytes.length && !failed; i += step) {
        unzipper.push(bytes.subarray(i, i + step), i + step >= bytes.length);
      }
    } catch (e) {
      fail(`not a zip archive: ${e.message}`);
    }
    if (!failed) {
      if (entries === 0) fail('not a zip archive (no entries)');
      else resolve(files);
    }
  });
}
