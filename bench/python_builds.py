"""Two builds of the native Python module side by side: analyze (parse + tokenize + positions) of
the same .py files of /usr/lib/python3.11 (200 B to 200 KB, sorted, the first 600), the builds
alternated in child processes so that both see the same machine load; median seconds per pass.
For a change that should not move speed (bench/builds.mjs is the package's counterpart).

    /usr/bin/python3 bench/python_builds.py BASELINE/build/python THIS/build/python [REPEATS]
        [--lexical]

--lexical analyzes with the grammar's own tokens instead of llama3's.
"""
import glob, json, os, statistics, subprocess, sys
LEXICAL = '--lexical' in sys.argv
sys.argv = [a for a in sys.argv if a != '--lexical']
files = sorted(f for f in glob.glob('/usr/lib/python3.11/**/*.py', recursive=True) if 200 <= os.path.getsize(f) <= 200_000)[:600]
child = r'''
import sys, time, json
import hirope
files = json.load(sys.stdin)
tok = hirope.load_tokenizer("llama3")
texts = [open(f, "rb").read().decode("utf-8", "replace") for f in files]
for t in texts[:50]: hirope.analyze(t, filename="x.py", tokenizer=tok)
t0 = time.perf_counter(); n = 0
for f, t in zip(files, texts): n += len(hirope.analyze(t, filename=f, tokenizer=tok).ids)
print(json.dumps([time.perf_counter() - t0, n]))
'''
if LEXICAL:
    child = child.replace('tok = hirope.load_tokenizer("llama3")', 'tok = None').replace(', tokenizer=tok)', ')')
builds = {'base': sys.argv[1], 'this': sys.argv[2]}
times = {k: [] for k in builds}
for r in range(int(sys.argv[3]) if len(sys.argv) > 3 else 5):
    for k, p in builds.items():
        out = subprocess.run(['/usr/bin/python3', '-c', child], input=json.dumps(files), capture_output=True, text=True, env={**os.environ, 'PYTHONPATH': p})
        if out.returncode: print(out.stderr[-2000:]); sys.exit(1)
        s, n = json.loads(out.stdout); times[k].append(s)
m = {k: statistics.median(v) for k, v in times.items()}
print(f"{len(files)} files, {n} tokens; median s: base {m['base']:.3f}, this {m['this']:.3f}; base/this = {m['base']/m['this']:.3f}")
