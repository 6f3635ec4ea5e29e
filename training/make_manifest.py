#!/usr/bin/env python3
"""Writes training/manifest.tsv: every file the config's data rules select, with its size, SHA-256
and split. The split is by file, from a hash of the path, so it never depends on file order.

Run once when the data rules change; train.py and the evaluation then read only the manifest and
refuse files whose hash differs (a different Python patch release, for example)."""
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def select(rules):
    for root in rules["roots"]:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in rules["exclude_dirs"])
            for name in sorted(filenames):
                if not name.endswith(".py"):
                    continue
                path = os.path.join(dirpath, name)
                if os.path.islink(path):
                    continue
                size = os.path.getsize(path)
                if rules["min_bytes"] <= size <= rules["max_bytes"]:
                    yield path


def split_of(path, rules):
    """held-out: the report's files; tuning: the files inference settings are chosen on; train."""
    bucket = int.from_bytes(hashlib.sha256(path.encode()).digest()[:4], "little") % 100
    if bucket < rules["held_out_percent"]:
        return "held-out"
    if bucket < rules["held_out_percent"] + rules.get("tuning_percent", 0):
        return "tuning"
    return "train"


def main():
    with open(os.path.join(HERE, "config.json")) as f:
        rules = json.load(f)["data"]
    rows = []
    for path in select(rules):
        with open(path, "rb") as f:
            data = f.read()
        rows.append((path, len(data), hashlib.sha256(data).hexdigest(),
                     split_of(path, rules)))
    out = os.path.join(HERE, "manifest.tsv")
    with open(out, "w") as f:
        f.write("# path\tbytes\tsha256\tsplit\n")
        for row in rows:
            f.write("%s\t%d\t%s\t%s\n" % row)
    for split in ("train", "tuning", "held-out"):
        part = [r for r in rows if r[3] == split]
        print("manifest: %d %s files (%d bytes)" % (len(part), split, sum(r[1] for r in part)),
              file=sys.stderr)
    print("manifest: -> %s" % out, file=sys.stderr)


if __name__ == "__main__":
    main()
