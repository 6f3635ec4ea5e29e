#!/usr/bin/env python3
"""Writes a model's manifest (its manifest.json in models/registry.json): every file
its config's data rules select, with its size, SHA-256 and split. The split is by file, from a
hash of the path, so it never depends on file order.

    python3 -m training.make_manifest [MODEL]     (default pybyte; run from the repository root)

Run once when the data rules change; train.py and the evaluation then read only the manifest and
refuse files whose hash differs (a different Python patch release, for example). Rules: roots,
exclude_dirs, extensions (default .py), exclude_suffixes, unique_content (one path per content), min_bytes, max_bytes, and for text that is code written
by people, max_line_bytes (longer lines mark minified or generated files) and valid UTF-8."""
import hashlib
import json
import os
import sys

from . import registry

HERE = os.path.dirname(os.path.abspath(__file__))
COMMENT = ("The %s model's files, written by training/make_manifest.py from its config's data "
           "rules: path (a relative path is the repository's), size in bytes, SHA-256 and split "
           "(train, tuning, held-out). The trainer and the evaluation read only this list and "
           "refuse a file whose hash differs.")


def readable(data, rules):
    """Code written by people: valid UTF-8 without NUL bytes and without minified lines (checked
    when the rules set max_line_bytes)."""
    limit = rules.get("max_line_bytes")
    if not limit:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return b"\0" not in data and max(map(len, data.split(b"\n"))) <= limit


def select(rules):
    extensions = tuple(rules.get("extensions", [".py"]))
    excluded = tuple(rules.get("exclude_suffixes", []))
    repo = os.path.dirname(HERE)
    for root in rules["roots"]:
        relative = not os.path.isabs(root)  # the repository's (node_modules): listed relative
        root = os.path.join(repo, root)
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in rules["exclude_dirs"])
            for name in sorted(filenames):
                if not name.endswith(extensions) or (excluded and name.endswith(excluded)):
                    continue
                path = os.path.join(dirpath, name)
                if os.path.islink(path):
                    continue
                size = os.path.getsize(path)
                if rules["min_bytes"] <= size <= rules["max_bytes"]:
                    with open(path, "rb") as f:
                        if readable(f.read(), rules):
                            yield os.path.relpath(path, repo) if relative else path


def split_of(path, rules):
    """held-out: the report's files; tuning: the files inference settings are chosen on; train."""
    bucket = int.from_bytes(hashlib.sha256(path.encode()).digest()[:4], "little") % 100
    if bucket < rules["held_out_percent"]:
        return "held-out"
    if bucket < rules["held_out_percent"] + rules.get("tuning_percent", 0):
        return "tuning"
    return "train"


def main():
    entry = registry.model(sys.argv[1] if len(sys.argv) > 1 else None)
    with open(entry["config"]) as f:
        rules = json.load(f)["data"]
    rows = []
    seen = set()
    for path in select(rules):
        with open(os.path.join(os.path.dirname(HERE), path), "rb") as f:
            data = f.read()
        sha = hashlib.sha256(data).hexdigest()
        if rules.get("unique_content") and sha in seen:
            continue  # a copy of a file already listed (vendored twice): never in two splits
        seen.add(sha)
        rows.append((path, len(data), sha, split_of(path, rules)))
    out = entry["manifest"]
    registry.write_manifest(out, rows, COMMENT % entry["name"])
    for split in ("train", "tuning", "held-out"):
        part = [r for r in rows if r[3] == split]
        print("manifest: %d %s files (%d bytes)" % (len(part), split, sum(r[1] for r in part)),
              file=sys.stderr)
    print("manifest: -> %s" % out, file=sys.stderr)


if __name__ == "__main__":
    main()
