#!/usr/bin/env python3
"""Agreement between annotators A and B on the detection labels (issue 38).

Reads labels/A/*.jsonl and labels/B/*.jsonl (batches, not titles), pairs them by unit id, and
prints per split: units labelled by both, each annotator's counts, raw agreement, Cohen's kappa
over the three labels, and per type the positive agreement (2·both / (A + B)), which is what
matters for rare labels. `python3 tests/detect/agreement.py`
"""
import glob
import json
import os
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
LABELS = ("question", "decision", "neither")


def load(annotator):
    out = {}
    for path in sorted(glob.glob(os.path.join(HERE, "labels", annotator, "*.jsonl"))):
        if path.endswith(".titles.jsonl"):
            continue
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line:
                    row = json.loads(line)
                    out[row["id"]] = row["label"]
    return out


def split_of():
    out = {}
    for split in ("dev", "test"):
        with open(os.path.join(HERE, "units", f"{split}.jsonl"), encoding="utf-8") as f:
            for line in f:
                out[json.loads(line)["id"]] = split
    return out


def kappa(pairs):
    n = len(pairs)
    if n == 0:
        return float("nan")
    observed = sum(a == b for a, b in pairs) / n
    ca = Counter(a for a, _ in pairs)
    cb = Counter(b for _, b in pairs)
    expected = sum(ca[l] * cb[l] for l in LABELS) / (n * n)
    return (observed - expected) / (1 - expected) if expected < 1 else 1.0


def main():
    a, b = load("A"), load("B")
    splits = split_of()
    for split in ("test", "dev"):
        ids = [i for i in a if i in b and splits.get(i) == split]
        pairs = [(a[i], b[i]) for i in ids]
        if not pairs:
            print(f"{split}: no unit labelled by both")
            continue
        agree = sum(x == y for x, y in pairs) / len(pairs)
        print(
            f"{split}: {len(pairs)} units labelled by both; raw agreement {agree:.3f}, "
            f"Cohen's kappa {kappa(pairs):.3f}"
        )
        for label in ("question", "decision"):
            na = sum(x == label for x, _ in pairs)
            nb = sum(y == label for _, y in pairs)
            both = sum(x == label and y == label for x, y in pairs)
            pos = 2 * both / (na + nb) if na + nb else float("nan")
            print(f"  {label}: A {na}, B {nb}, both {both}, positive agreement {pos:.3f}")


if __name__ == "__main__":
    main()
