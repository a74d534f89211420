#!/usr/bin/env python3
"""A learned detector tried against the cue rules (issue 38): logistic regression over where a
unit is (speaker, last in its message, in the session's last agent message, whether the person
wrote after it and how: a short yes/ok), its shape (ends on a question mark, list item, heading,
colon, figures, length), the cue rules' own verdict, and hashed words and word pairs.

Fitted on the dev split only, with C and the threshold chosen by 6-fold cross-validation over
whole dev projects; the test split (held-out projects) is scored once with that choice.

    cargo test --release -p elnor-engine --lib held_out   # with ELNOR_DETECT_DUMP=<dir>
    pip install numpy scipy scikit-learn
    python3 tests/detect/learned_trial.py <dir>

Result (2026-11-30): questions dev-CV P 0.77 R 0.26, test P 0.50 R 0.12 (8 taken; rules on
test P 0.30 R 0.28); decisions dev-CV P 0.14 R 0.04, test P 0.24 R 0.17 (21 taken; rules 0.33 /
0.07). With 76 dev questions and 100 dev decisions the model trades recall for precision and
what it learns does not carry to other people's projects; it is not in the engine.
"""
import collections
import glob
import json
import os
import re
import sys

import numpy as np
from scipy.sparse import hstack
from sklearn.feature_extraction import DictVectorizer
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

ROOT = os.path.dirname(os.path.abspath(__file__))


def jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load(split, gold, rules):
    rows = jsonl(os.path.join(ROOT, "units", f"{split}.jsonl"))
    for r in rows:
        r["y"] = gold[r["id"]]
        r["rule"] = rules[r["id"]]
    by_session = collections.defaultdict(list)
    for i, r in enumerate(rows):
        by_session[r["session"]].append(i)
    for idx in by_session.values():
        messages = collections.OrderedDict()
        for i in idx:
            messages.setdefault((rows[i]["turn"], rows[i]["speaker"]), []).append(i)
        keys = list(messages)
        for k, key in enumerate(keys):
            after = [kk for kk in keys[k + 1:] if kk[1] == "person"]
            reply = " ".join(rows[j]["text"] for j in messages[after[0]]) if after else ""
            for pos, i in enumerate(messages[key]):
                rows[i].update(pos=pos, reply=reply, replied=bool(after), after=len(keys) - k - 1)
    return rows


def shape(r):
    sp, t = r["speaker"], r["text"].strip()
    q = t.endswith("?") or t.endswith("？")
    reply = r["reply"].strip().lower()
    yes = bool(re.match(r"^(yes|yeah|yep|ok|okay|sure|go|do it|sounds good|please|let's|great|perfect|y\b)", reply))
    f = {
        "sp_" + sp: 1, "q": q, sp + "_q": q, "last_in_msg": r["last_in_message"],
        "in_last_agent": r["in_last_agent_message"], sp + "_in_last_agent_q": r["in_last_agent_message"] and q,
        "no_reply": not r["replied"], sp + "_no_reply_q": (not r["replied"]) and q,
        "reply_short": 0 < len(reply) < 40, "reply_yes": yes, sp + "_reply_yes": yes,
        "first_in_msg": r["pos"] == 0, "list": bool(re.match(r"^\s*([-*•]|\d+[.)])\s", r["text"])),
        "heading": t.startswith("#") or (t.startswith("**") and t.endswith("**")),
        "colon_end": t.endswith(":"), "figures": len(re.findall(r"\d", t)) / max(len(t), 1) > 0.15,
        "last_message": r["after"] == 0, "near_end": r["after"] <= 2, "long": len(t) > 200,
        "short": len(t) < 30, "rule_" + r["rule"]: 1,
    }
    return {k: float(v) for k, v in f.items()}


def fit_and_score(xd, yd, xt, groups, cs, thresholds):
    """Logistic regression on the dev split: C and the threshold chosen by the best F1 of a
    6-fold cross-validation over whole dev projects (`groups`); then fitted on all of dev and
    applied once to `xt`. Returns C, the threshold, dev-CV precision and recall, and the
    predictions on `xt`."""
    best = None
    for c in cs:
        oof = np.zeros(len(yd))
        for tr, te in GroupKFold(6).split(xd, yd, groups):
            m = LogisticRegression(C=c, max_iter=3000).fit(xd[tr], yd[tr])
            oof[te] = m.predict_proba(xd[te])[:, 1]
        for thr in thresholds:
            pred = oof >= thr
            tp = (pred & yd).sum()
            p, r = tp / max(pred.sum(), 1), tp / yd.sum()
            f1 = 2 * p * r / max(p + r, 1e-9)
            if best is None or f1 > best[0]:
                best = (f1, c, thr, p, r)
    _, c, thr, p, r = best
    pred = LogisticRegression(C=c, max_iter=3000).fit(xd, yd).predict_proba(xt)[:, 1] >= thr
    return c, thr, p, r, pred


def main():
    dump = sys.argv[1] if len(sys.argv) > 1 else "."
    gold = {}
    for f in sorted(glob.glob(os.path.join(ROOT, "labels", "gold", "*.jsonl"))):
        if not f.endswith(".titles.jsonl"):
            gold.update({l["id"]: l["label"] for l in jsonl(f)})
    rules = {}
    for split in ("dev", "test"):
        with open(os.path.join(dump, f"{split}.rules.tsv"), encoding="utf-8") as f:
            rules.update(dict(line.rstrip("\n").split("\t") for line in f))
    dev, test = load("dev", gold, rules), load("test", gold, rules)
    dv = DictVectorizer()
    hv = HashingVectorizer(n_features=2**18, ngram_range=(1, 2), alternate_sign=False,
                           token_pattern=r"(?u)\b\w+\b|[?？]")
    def features(rows, fit=False):
        s = [shape(r) for r in rows]
        xs = dv.fit_transform(s) if fit else dv.transform(s)
        xt = hv.transform([r["speaker"] + " " + r["text"].lower() for r in rows])
        return hstack([xs, xt * 0.5]).tocsr()
    xd, xt = features(dev, True), features(test)
    groups = [r["project"] for r in dev]
    for kind in ("question", "decision"):
        yd = np.array([r["y"] == kind for r in dev])
        yt = np.array([r["y"] == kind for r in test])
        c, thr, p, r, pred = fit_and_score(xd, yd, xt, groups, (0.3, 1, 3, 10), (0.2, 0.3, 0.4, 0.5, 0.6))
        tp = (pred & yt).sum()
        rt = np.array([r_["rule"] == kind for r_ in test])
        print(f"{kind}: dev-CV (C {c}, threshold {thr}) P {p:.2f} R {r:.2f} | test P {tp / max(pred.sum(), 1):.2f} "
              f"R {tp / yt.sum():.2f} ({pred.sum()} taken) | cue rules on test P {(rt & yt).sum() / max(rt.sum(), 1):.2f} "
              f"R {(rt & yt).sum() / yt.sum():.2f}")


if __name__ == "__main__":
    main()
