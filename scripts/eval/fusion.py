#!/usr/bin/env python3
"""Compares ways of fusing search's two lists offline, on the lists the LoCoMo tier writes.

    ELNOR_LOCOMO_DUMP=/tmp/lists.jsonl cargo test -p elnor-engine --test locomo -- --ignored
    python3 scripts/eval/fusion.py /tmp/lists.jsonl

Each line of the dump holds one question's evidence turns and the engine's lexical and
embedding lists (20 hits each, with each list's own score). Every fusion is printed for the
conversations the search's parameters are chosen on (0-2) and, apart, for the ones that only
confirm (3-4): a fusion is kept only if it holds on both. Recall@k is the share of a question's
evidence turns among its first k hits, averaged over questions, as the test computes it.
"""
import json
import sys

TUNE = {0, 1, 2}


def recall(ranked, evidence, k):
    return len(set(ranked[:k]) & set(evidence)) / len(evidence)


def minmax(items):
    if not items:
        return {}
    scores = [s for _, s in items]
    low, high = min(scores), max(scores)
    span = high - low
    return {d: ((s - low) / span if span > 1e-9 else 1.0) for d, s in items}


def blend(weight):
    def fuse(lexical, vector):
        lex, vec = minmax(lexical), minmax(vector)
        ids = list(dict.fromkeys([d for d, _ in lexical] + [d for d, _ in vector]))
        score = {d: weight * lex.get(d, 0.0) + (1 - weight) * vec.get(d, 0.0) for d in ids}
        sim = dict(vector)
        return sorted(ids, key=lambda d: (-score[d], d not in lex, -sim.get(d, -9)))
    return fuse


def switch(ratio, weight):
    """Lexical alone when its best score is >= ratio x its fifth, else blend(weight)."""
    inner = blend(weight)

    def fuse(lexical, vector):
        scores = [s for _, s in lexical]
        if len(scores) >= 5 and scores[0] >= ratio * scores[4]:
            return [d for d, _ in lexical] + [d for d, _ in vector if d not in dict(lexical)]
        return inner(lexical, vector)
    return fuse


def rrf(k, vector_weight=1.0):
    def fuse(lexical, vector):
        score = {}
        for rank, (d, _) in enumerate(lexical):
            score[d] = score.get(d, 0) + 1 / (k + rank + 1)
        for rank, (d, _) in enumerate(vector):
            score[d] = score.get(d, 0) + vector_weight / (k + rank + 1)
        return sorted(score, key=lambda d: -score[d])
    return fuse


def main(path):
    rows = [json.loads(line) for line in open(path)]
    fusions = [
        ("lexical alone", lambda l, v: [d for d, _ in l]),
        ("embedding alone", lambda l, v: [d for d, _ in v]),
    ]
    fusions += [(f"min-max, lexical {w:.1f}", blend(w)) for w in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)]
    fusions += [
        (f"switch at {r}x, else lexical {w:.1f}", switch(r, w))
        for r in (1.1, 1.2, 1.5) for w in (0.4, 0.5, 0.6)
    ]
    fusions += [(f"rrf k={k}", rrf(k)) for k in (1, 10, 60)]
    print(f"{'fusion':40} {'tune 0-2 @1/@5/@10':>22}   {'confirm 3-4 @1/@5/@10':>22}")
    for name, fuse in fusions:
        cells = []
        for part in (True, False):
            sel = [r for r in rows if (r["conversation"] in TUNE) == part]
            ranked = [fuse([tuple(x) for x in r["lexical"]], [tuple(x) for x in r["vector"]]) for r in sel]
            figs = [sum(recall(rk, r["evidence"], k) for rk, r in zip(ranked, sel)) / len(sel) for k in (1, 5, 10)]
            cells.append(" / ".join(f"{f:.3f}" for f in figs))
        print(f"{name:40} {cells[0]:>22}   {cells[1]:>22}")


if __name__ == "__main__":
    main(sys.argv[1])
