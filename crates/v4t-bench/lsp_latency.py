#!/usr/bin/env python3
"""Latency of `v4t lsp` as an editor sees it (docs/benchmark.md).

    python3 crates/v4t-bench/lsp_latency.py target/release/v4t TEMPLATE [--edits N]

Opens TEMPLATE, then (N times) appends a comment line as an incremental
change and measures the time from that change to the diagnostics published
for the new text (the debounce included), then times hover, completion
and definition requests at every node template name (median and maximum).
Prints one line per figure. Timings are measured, never asserted.
"""
import json, os, queue, statistics, subprocess, sys, threading, time

def main():
    exe, path = sys.argv[1], os.path.abspath(sys.argv[2])
    edits = int(sys.argv[sys.argv.index("--edits") + 1]) if "--edits" in sys.argv else 5
    p = subprocess.Popen([exe, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    q = queue.Queue()

    def reader():
        while True:
            length = None
            while True:
                line = p.stdout.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            q.put((time.perf_counter(), json.loads(p.stdout.read(length))))

    threading.Thread(target=reader, daemon=True).start()

    def send(m):
        b = json.dumps(m).encode()
        p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(b) + b)
        p.stdin.flush()

    ids = iter(range(1, 1 << 30))

    def request(method, params):
        i = next(ids)
        start = time.perf_counter()
        send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        while True:
            t, m = q.get(timeout=120)
            if m.get("id") == i:
                return t - start, m.get("result")

    def diagnostics(uri):
        while True:
            t, m = q.get(timeout=600)
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                return t

    uri = "file://" + path
    text = open(path, encoding="utf-8").read()
    request("initialize", {"processId": None, "rootUri": None, "capabilities": {}})
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    start = time.perf_counter()
    send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
          "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": 0, "text": text}}})
    print(f"size: {len(text.encode()) / 1e6:.2f} MB")
    print(f"open -> diagnostics: {(diagnostics(uri) - start) * 1000:.0f} ms")
    lines = text.count("\n")
    times = []
    for n in range(edits):
        time.sleep(1.0)  # let the presets' diagnostics of the last edit pass
        while not q.empty():
            q.get()
        end = {"line": lines + n, "character": 0}
        start = time.perf_counter()
        send({"jsonrpc": "2.0", "method": "textDocument/didChange",
              "params": {"textDocument": {"uri": uri, "version": n + 1},
                         "contentChanges": [{"range": {"start": end, "end": end}, "text": f"# edit {n}\n"}]}})
        times.append(diagnostics(uri) - start)
    print(f"change -> diagnostics: median {statistics.median(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms")
    positions = []
    in_nodes = False
    for i, line in enumerate(text.split("\n")):
        if line.strip() == "node_templates:":
            in_nodes, indent = True, len(line) - len(line.lstrip()) + 4
        elif in_nodes and line[:indent].strip() == "" and len(line) > indent and line[indent] not in " #" and line.rstrip().endswith(":"):
            positions.append((i, indent + 1))
        if len(positions) >= 50:
            break
    for method in ["textDocument/hover", "textDocument/completion", "textDocument/definition"]:
        took = []
        for line, col in positions:
            params = {"textDocument": {"uri": uri}, "position": {"line": line, "character": col}}
            took.append(request(method, params)[0])
            # The second hover at the same place is served from the cache.
        print(f"{method}: median {statistics.median(took) * 1000:.1f} ms, max {max(took) * 1000:.1f} ms ({len(took)} positions)")
    request("shutdown", None)
    send({"jsonrpc": "2.0", "method": "exit"})
    p.wait(timeout=30)

main()
