#!/usr/bin/env python3
"""A detector over sentence embeddings, tried against the cue rules (issue 38): the features of
`learned_trial.py` (position, shape, what followed, the rules' verdict) plus each unit's vector,
the vector again by who said it (person / agent), and the previous unit's vector at half weight.
Logistic regression fitted on the dev split only, C and the threshold chosen by 6-fold
cross-validation over whole dev projects; the test split (held-out projects) scored once.

    cargo test --release -p elnor-engine --lib held_out              # with ELNOR_DETECT_DUMP=<dump>
    ELNOR_UNITS_OUT=<vec> cargo test --release -p elnor-engine --lib embed_detect_units -- --ignored
    pip install numpy scipy scikit-learn
    python3 tests/detect/embedding_trial.py <dump> <vec> [multilingual-e5-small|all-minilm-l6-v2]
    (EMBED_WEIGHT=3 scales the vectors against the other features)

Result (2026-12-07, e5, weight 1): questions dev-CV P 0.78 R 0.28, test P 0.62 R 0.16 (8 taken);
decisions dev-CV P 0.16 R 0.18, test P 0.21 R 0.34. Weight 3: questions test P 0.38 R 0.19,
decisions test P 0.37 R 0.38 (dev-CV P 0.20 R 0.20). MiniLM: questions test P 0.33 R 0.25,
decisions P 0.20 R 0.31. The cue rules on test: questions P 0.30 R 0.28, decisions P 0.33 R 0.07.
Far from P 0.85 / R 0.6 on both kinds, and what dev's cross-validation predicts does not hold on
the held-out projects; not in the engine.
"""
import glob
import json
import os
import sys

import numpy as np
from scipy.sparse import csr_matrix, hstack
from sklearn.feature_extraction import DictVectorizer

ROOT = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, ROOT)
import learned_trial as lt  # noqa: E402


def vectors(folder, split, model, n):
    return np.fromfile(os.path.join(folder, f"{split}.{model}.f32"), dtype="<f4").reshape(n, -1)


def previous(rows, e):
    out = np.zeros_like(e)
    for i in range(1, len(rows)):
        if rows[i]["session"] == rows[i - 1]["session"]:
            out[i] = e[i - 1]
    return out


def main():
    dump, folder = sys.argv[1], sys.argv[2]
    model = sys.argv[3] if len(sys.argv) > 3 else "multilingual-e5-small"
    weight = float(os.environ.get("EMBED_WEIGHT", "1.0"))
    gold = {}
    for f in sorted(glob.glob(os.path.join(ROOT, "labels", "gold", "*.jsonl"))):
        if not f.endswith(".titles.jsonl"):
            gold.update({l["id"]: l["label"] for l in lt.jsonl(f)})
    rules = {}
    for split in ("dev", "test"):
        with open(os.path.join(dump, f"{split}.rules.tsv"), encoding="utf-8") as f:
            rules.update(dict(line.rstrip("\n").split("\t") for line in f))
    dev, test = lt.load("dev", gold, rules), lt.load("test", gold, rules)
    ed, et = vectors(folder, "dev", model, len(dev)), vectors(folder, "test", model, len(test))
    dv = DictVectorizer()
    shape_d = dv.fit_transform([lt.shape(r) for r in dev])
    shape_t = dv.transform([lt.shape(r) for r in test])

    def features(shape, rows, e):
        who = np.array([[r["speaker"] == "person", r["speaker"] == "agent"] for r in rows], dtype=float)
        by_who = np.hstack([e * who[:, :1], e * who[:, 1:2]])
        return hstack([shape, csr_matrix(e * weight), csr_matrix(by_who * weight),
                       csr_matrix(previous(rows, e) * weight * 0.5)]).tocsr()

    xd, xt = features(shape_d, dev, ed), features(shape_t, test, et)
    groups = [r["project"] for r in dev]
    for kind in ("question", "decision"):
        yd = np.array([r["y"] == kind for r in dev])
        yt = np.array([r["y"] == kind for r in test])
        c, thr, p, r, pred = lt.fit_and_score(xd, yd, xt, groups, (0.1, 0.3, 1, 3),
                                              (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9))
        tp = (pred & yt).sum()
        print(f"{kind}: dev-CV (C {c}, threshold {thr}) P {p:.2f} R {r:.2f} | test P "
              f"{tp / max(pred.sum(), 1):.2f} R {tp / yt.sum():.2f} ({pred.sum()} taken, {yt.sum()} gold)")


if __name__ == "__main__":
    main()
