#!/usr/bin/env python3
"""Offline LoCoMo retrieval sketch: BM25 variants, per-conversation statistics.

How the windows of `views/search` (issue 39) were chosen before the engine was changed: the
engine's lexical ranker re-written as a few lines of BM25, and variants of it, scored on LoCoMo's
development half the way `crates/engine/tests/locomo.rs` scores the engine. Reads
../shared/eval/locomo-dev/locomo_dev.json in place (or $ELNOR_LOCOMO). Conversations 0-2 = DEV
(choose), 3-4 = CONFIRM (report only). Pure Python, one process, about 2 minutes; needs
`pip install snowballstemmer`, and NLTK's English stop words from the `stop-words` crate the
engine builds with (in cargo's registry).

Usage: python3 scripts/eval/locomo_window.py [section ...]
       sections: base window prf bm25 extra (default: all)
"""
import json
import math
import re
import sys
from collections import Counter, defaultdict

import snowballstemmer

import glob
import os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
DATA = os.environ.get("ELNOR_LOCOMO") or os.path.join(ROOT, "..", "shared", "eval", "locomo-dev", "locomo_dev.json")
_LISTS = sorted(glob.glob(os.path.expanduser("~/.cargo/registry/src/*/stop-words-0.10*/src/nltk/english")))
if not _LISTS:
    sys.exit("NLTK's English stop words come from the stop-words crate: run a cargo build first")
STOP = set(open(_LISTS[-1]).read().split())  # NLTK english, 198 words
assert len(STOP) == 198
STEM = snowballstemmer.stemmer("english")
TOK = re.compile(r"[^\W_]+", re.UNICODE)  # split on every non-alphanumeric character (apostrophes too)
_stem_cache = {}


def words(text):
    """lower-cased alphanumeric runs, NLTK stop words removed (unstemmed)"""
    return [w for w in TOK.findall(text.lower()) if w not in STOP]


def stem(w):
    s = _stem_cache.get(w)
    if s is None:
        s = _stem_cache[w] = STEM.stemWord(w)
    return s


def stems(text):
    return [stem(w) for w in words(text)]


# ----------------------------------------------------------------------------------------------
# data

def load():
    convs = json.load(open(DATA))
    out = []
    for ci, c in enumerate(convs):
        conv = c["conversation"]
        sess = sorted((int(k.split("_")[1]), k) for k in conv
                      if re.fullmatch(r"session_\d+", k))
        turns = []  # dicts: id, text, session, pos
        for sn, k in sess:
            for pos, t in enumerate(conv[k]):
                turns.append({"id": t["dia_id"], "text": t["text"], "sess": sn, "pos": pos})
        ids = {t["id"] for t in turns}
        qs = []
        for qa in c["qa"]:
            # an entry may hold several ids ("D8:6; D9:17"); ids that do not exist are dropped
            raw = [e for x in (qa.get("evidence") or []) for e in re.split(r"[;,\s]+", x) if e]
            ev = [e for e in dict.fromkeys(raw) if e in ids]
            if ev:
                qs.append({"q": qa["question"], "ev": set(ev), "cat": qa["category"]})
        out.append({"turns": turns, "qs": qs})
    return out


# ----------------------------------------------------------------------------------------------
# documents: each turn -> {field: Counter(terms)}

def neighbours(turns, i, before, after):
    """texts of up to `before` previous and `after` next turns in the same session"""
    s = turns[i]["sess"]
    prev = [turns[j]["text"] for j in range(i - before, i) if j >= 0 and turns[j]["sess"] == s]
    nxt = [turns[j]["text"] for j in range(i + 1, i + 1 + after)
           if j < len(turns) and turns[j]["sess"] == s]
    return prev, nxt


def build_docs(turns, window):
    """window: dict with
         main_before, main_after : neighbours put into the main stemmed text
         nb_before, nb_after     : neighbours put into a separate stemmed field 'nb'
       fields: 'main' (stemmed own+main neighbours), 'ident' (own words unstemmed), 'nb' (optional)"""
    docs = []
    for i, t in enumerate(turns):
        p, n = neighbours(turns, i, window.get("main_before", 1), window.get("main_after", 0))
        d = {"main": Counter(stems(" ".join(p + [t["text"]] + n))),
             "ident": Counter(words(t["text"]))}
        if window.get("own_stemmed"):
            d["own"] = Counter(stems(t["text"]))
        if window.get("nb_before", 0) or window.get("nb_after", 0):
            p2, n2 = neighbours(turns, i, window.get("nb_before", 0), window.get("nb_after", 0))
            # exclude neighbours already in main
            mb, ma = window.get("main_before", 1), window.get("main_after", 0)
            p2 = p2[:max(0, len(p2) - mb)] if window.get("nb_before", 0) > mb else []
            n2 = n2[ma:] if window.get("nb_after", 0) > ma else []
            d["nb"] = Counter(stems(" ".join(p2 + n2)))
        docs.append(d)
    return docs


class Index:
    def __init__(self, docs, k1=1.2, b=0.75, delta=0.0):
        self.N = len(docs)
        self.docs = docs
        self.k1, self.b, self.delta = k1, b, delta
        self.fields = {}
        for f in docs[0].keys():
            post = defaultdict(list)
            lens = []
            for di, d in enumerate(docs):
                c = d[f]
                lens.append(sum(c.values()))
                for term, tf in c.items():
                    post[term].append((di, tf))
            avg = (sum(lens) / len(lens)) or 1.0
            self.fields[f] = (post, lens, avg)

    def df(self, f, term):
        return len(self.fields[f][0].get(term, ()))

    def idf(self, f, term):
        n = self.df(f, term)
        return math.log(1 + (self.N - n + 0.5) / (n + 0.5))

    def score(self, query):
        """query: list of (field, field_weight, term, term_weight) -> list of scores"""
        sc = [0.0] * self.N
        k1, b, delta = self.k1, self.b, self.delta
        for f, fw, term, tw in query:
            post, lens, avg = self.fields[f]
            pl = post.get(term)
            if not pl:
                continue
            w = fw * tw * self.idf(f, term)
            for di, tf in pl:
                norm = k1 * (1 - b + b * lens[di] / avg)
                sc[di] += w * (tf * (k1 + 1) / (tf + norm) + delta)
        return sc


def rank(scores):
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))


# ----------------------------------------------------------------------------------------------
# queries

def base_query(qtext, ident_w=0.3, nb_w=None, dedupe=False, idx=None, max_df=None, idf_pow=1.0):
    st, wd = stems(qtext), words(qtext)
    if dedupe:
        st, wd = list(dict.fromkeys(st)), list(dict.fromkeys(wd))
    if max_df is not None and idx is not None:
        # drop query words occurring in more than max_df share of the conversation's documents
        # (kept if that would drop every word)
        keep = [s for s in st if idx.df("main", s) <= max_df * idx.N]
        if keep:
            drop = set(st) - set(keep)
            st = keep
            wd = [w for w in wd if stem(w) not in drop]
    q = [("main", 1.0, s, 1.0) for s in st]
    if ident_w:
        q += [("ident", ident_w, w, 1.0) for w in wd]
    if nb_w:
        q += [("nb", nb_w, s, 1.0) for s in st]
    if idf_pow != 1.0 and idx is not None:
        q = [(f, fw, t, tw * idx.idf(f, t) ** (idf_pow - 1.0)) for f, fw, t, tw in q]
    return q


def rm3(idx, q, scores, fb_docs, fb_terms, lam, mode="interp"):
    """RM3 over the 'main' field. Doc weights = first-pass scores normalised over the top fb_docs;
       P(t|d) = tf/|d|; stop words are already gone. Top fb_terms terms (query terms included,
       as in Anserini) normalised to sum 1.
       mode 'interp': main-field original term weights scaled to (1-lam)/|q| each... kept as
       Anserini-like interpolation but rescaled so the original query keeps weight 1 per term:
       original terms weight 1, expansion term t weight lam * |q_main| * p(t) / (1-lam).
       mode 'flat': every expansion term not already in the query gets weight lam."""
    top = rank(scores)[:fb_docs]
    tot = sum(scores[d] for d in top) or 1.0
    rel = Counter()
    for d in top:
        c = idx.docs[d]["main"]
        L = sum(c.values()) or 1
        dw = scores[d] / tot
        for t, tf in c.items():
            rel[t] += dw * tf / L
    terms = rel.most_common(fb_terms)
    z = sum(w for _, w in terms) or 1.0
    qmain = [t for f, _, t, _ in q if f == "main"]
    nq = len(qmain) or 1
    out = list(q)
    if mode == "interp":
        # (1-lam) * q/|q| + lam * p_fb  ==  (scaled by |q|/(1-lam)) q + lam*|q|/(1-lam) * p_fb
        scale = lam * nq / (1 - lam)
        for t, w in terms:
            out.append(("main", 1.0, t, scale * w / z))
    else:
        qs = set(qmain)
        for t, w in terms:
            if t not in qs:
                out.append(("main", 1.0, t, lam))
    return out


# ----------------------------------------------------------------------------------------------
# evaluation

KS = (1, 5, 10)
DEV, CONFIRM = (0, 1, 2), (3, 4)


def evaluate(data, window=None, k1=1.2, b=0.75, delta=0.0, qargs=None, prf=None):
    window = window or {"main_before": 1}
    qargs = qargs or {}
    per_conv = []
    for conv in data:
        docs = build_docs(conv["turns"], window)
        idx = Index(docs, k1, b, delta)
        ids = [t["id"] for t in conv["turns"]]
        rec = []
        for qa in conv["qs"]:
            q = base_query(qa["q"], idx=idx, **{k: v for k, v in qargs.items() if k != "shift_w"})
            sc = idx.score(q)
            if qargs.get("shift_w"):
                # query time: add shift_w x (BM25 of the NEXT turn's own stemmed text, same session)
                own = idx.score([("own", 1.0, t, w) for f, _, t, w in q if f == "main"])
                tr = conv["turns"]
                sc = [sc[i] + (qargs["shift_w"] * own[i + 1]
                               if i + 1 < len(tr) and tr[i + 1]["sess"] == tr[i]["sess"] else 0.0)
                      for i in range(len(sc))]
            if prf:
                q = rm3(idx, q, sc, **prf)
                sc = idx.score(q)
            order = rank(sc)
            r = []
            for k in KS:
                got = {ids[i] for i in order[:k]}
                r.append(len(got & qa["ev"]) / len(qa["ev"]))
            rec.append(r)
        per_conv.append(rec)

    def agg(cs):
        rows = [r for c in cs for r in per_conv[c]]
        return [sum(r[j] for r in rows) / len(rows) for j in range(len(KS))], rows
    return agg(DEV), agg(CONFIRM)


RESULTS = []
BASE_ROWS = {}


def paired(rows, base, j):
    """mean per-question difference at KS[j] and its standard error"""
    diffs = [r[j] - b[j] for r, b in zip(rows, base)]
    n = len(diffs)
    m = sum(diffs) / n
    sd = math.sqrt(sum((x - m) ** 2 for x in diffs) / (n - 1))
    return m, sd / math.sqrt(n)


def run(data, name, sig=False, **kw):
    (d, drows), (c, crows) = evaluate(data, **kw)
    RESULTS.append((name, d, c))
    line = f"| {name} | {d[0]:.3f} | {d[1]:.3f} | {d[2]:.3f} | {c[0]:.3f} | {c[1]:.3f} | {c[2]:.3f} |"
    if not BASE_ROWS:
        BASE_ROWS["dev"], BASE_ROWS["conf"] = drows, crows
        line += " (reference) |"
    elif sig:
        parts = []
        for lab, rows, base in (("dev", drows, BASE_ROWS["dev"]), ("conf", crows, BASE_ROWS["conf"])):
            for j in (0, 1, 2):
                m, se = paired(rows, base, j)
                parts.append(f"{lab}@{KS[j]} {m * 100:+.1f}±{se * 100:.1f}")
        line += " " + "; ".join(parts) + " |"
    else:
        line += "  |"
    print(line, flush=True)
    return d, c


def header(title, data=None):
    print(f"\n### {title}\n\n| variant | dev @1 | dev @5 | dev @10 | confirm @1 | confirm @5 | confirm @10 "
          "| paired difference vs baseline, points ± SE |\n|---|---:|---:|---:|---:|---:|---:|---|", flush=True)


def main():
    data = load()
    secs = sys.argv[1:] or ["base", "window", "prf", "bm25", "extra", "combo", "combo2", "shift"]
    nd = sum(len(data[c]["qs"]) for c in DEV)
    nc = sum(len(data[c]["qs"]) for c in CONFIRM)
    print(f"questions: dev {nd}, confirm {nc}, total {nd + nc}; turns "
          f"{sum(len(c['turns']) for c in data)}")
    B = {"main_before": 1}
    if "base" not in secs:
        header("Baseline")
        run(data, "**baseline**: prev+turn stemmed + own words unstemmed x0.3", window=B)
    if "base" in secs:
        header("Baseline and sanity checks")
        run(data, "**baseline**: prev+turn stemmed + own words unstemmed x0.3", window=B)
        run(data, "own turn only, no ident field", window={"main_before": 0}, qargs={"ident_w": 0})
        run(data, "prev+turn, no ident field", qargs={"ident_w": 0})
        run(data, "baseline, query terms de-duplicated", window=B, qargs={"dedupe": True})
    if "window" in secs:
        header("1. Window")
        run(data, "prev + turn + next (one text)", window={"main_before": 1, "main_after": 1})
        run(data, "2 prev + turn + next (one text)", window={"main_before": 2, "main_after": 1})
        run(data, "2 prev + turn (one text)", window={"main_before": 2})
        for w in (0.3, 0.5, 0.7):
            run(data, f"prev + turn; next as own field x{w}",
                window={"main_before": 1, "nb_after": 1}, qargs={"nb_w": w})
        for w in (0.5,):
            run(data, f"turn only; prev+next as own field x{w}",
                window={"main_before": 0, "nb_before": 1, "nb_after": 1}, qargs={"nb_w": w})
            run(data, f"prev + turn + next; 2nd prev as own field x{w}",
                window={"main_before": 1, "main_after": 1, "nb_before": 2}, qargs={"nb_w": w})
    if "prf" in secs:
        header("2. Pseudo-relevance feedback (RM3) on the baseline")
        for mode in ("interp", "flat"):
            for fd in (3, 5, 10):
                for ft in (5, 10, 20):
                    for lam in (0.2, 0.3, 0.5):
                        run(data, f"RM3 {mode}: docs {fd}, terms {ft}, weight {lam}", window=B,
                            prf={"fb_docs": fd, "fb_terms": ft, "lam": lam, "mode": mode})
    if "bm25" in secs:
        header("3. BM25 k1 / b (baseline documents)")
        for k1 in (0.9, 1.2, 1.5, 2.0):
            for b in (0.4, 0.6, 0.75, 0.9):
                run(data, f"k1 {k1}, b {b}", window=B, k1=k1, b=b)
    if "extra" in secs:
        header("4. Other ideas (baseline documents)")
        for n in (0.05, 0.10, 0.20):
            run(data, f"drop query words in > {int(n * 100)}% of turns", window=B,
                qargs={"max_df": n})
        for dl in (0.25, 0.5, 1.0):
            run(data, f"BM25+ delta {dl}", window=B, delta=dl)
        for p in (1.5, 2.0):
            run(data, f"query terms weighted idf^{p} (instead of idf)", window=B,
                qargs={"idf_pow": p})
    if "combo" in secs:
        header("5. Follow-ups on dev (wider windows, own-word weight, combinations); "
               "last column: paired difference vs baseline, points ± standard error")
        W2 = {"main_before": 2}
        W21 = {"main_before": 2, "main_after": 1}
        W3 = {"main_before": 3}
        W31 = {"main_before": 3, "main_after": 1}
        for name, w in (("2 prev + turn", W2), ("2 prev + turn + next", W21),
                        ("3 prev + turn", W3), ("3 prev + turn + next", W31)):
            for iw in (0.3, 0.5, 0.8):
                run(data, f"{name}; own words x{iw}", window=w, qargs={"ident_w": iw}, sig=True)
        for nw in (0.3, 0.5):
            run(data, f"2 prev + turn; next as own field x{nw}",
                window={"main_before": 2, "nb_after": 1}, qargs={"nb_w": nw}, sig=True)
        run(data, "2 prev + turn + next; k1 0.9 b 0.6", window=W21, k1=0.9, b=0.6, sig=True)
        run(data, "2 prev + turn + next; BM25+ delta 0.5", window=W21, delta=0.5, sig=True)
        run(data, "2 prev + turn; k1 0.9 b 0.6", window=W2, k1=0.9, b=0.6, sig=True)
        run(data, "2 prev + turn; BM25+ delta 0.5", window=W2, delta=0.5, sig=True)
        run(data, "baseline docs; k1 0.9 b 0.6", window=B, k1=0.9, b=0.6, sig=True)
        run(data, "baseline docs; BM25+ delta 0.5", window=B, delta=0.5, sig=True)
        run(data, "prev + turn; next as own field x0.5", window={"main_before": 1, "nb_after": 1},
            qargs={"nb_w": 0.5}, sig=True)
        run(data, "RM3 interp: docs 3, terms 20, weight 0.2", window=B,
            prf={"fb_docs": 3, "fb_terms": 20, "lam": 0.2, "mode": "interp"}, sig=True)
    if "combo2" in secs:
        header("6. Second follow-up on dev around the best window (2 prev in the text, next as a field)")
        N21 = {"main_before": 2, "nb_after": 1}
        for nw in (0.2, 0.3, 0.4):
            for iw in (0.3, 0.5):
                run(data, f"2 prev + turn; next field x{nw}; own words x{iw}", window=N21,
                    qargs={"nb_w": nw, "ident_w": iw}, sig=True)
        run(data, "2 prev + turn; next field x0.3; k1 0.9 b 0.6", window=N21, k1=0.9, b=0.6,
            qargs={"nb_w": 0.3}, sig=True)
        run(data, "2 prev + turn; next field x0.3; BM25+ delta 0.5", window=N21, delta=0.5,
            qargs={"nb_w": 0.3}, sig=True)
        run(data, "prev + turn; 2nd prev + next as one field x0.3",
            window={"main_before": 1, "nb_before": 2, "nb_after": 1}, qargs={"nb_w": 0.3}, sig=True)
        run(data, "prev + turn; 2nd prev + next as one field x0.5",
            window={"main_before": 1, "nb_before": 2, "nb_after": 1}, qargs={"nb_w": 0.5}, sig=True)
        run(data, "3 prev + turn; next field x0.3", window={"main_before": 3, "nb_after": 1},
            qargs={"nb_w": 0.3}, sig=True)
        run(data, "2 prev + turn; next 2 as field x0.3", window={"main_before": 2, "nb_after": 2},
            qargs={"nb_w": 0.3}, sig=True)
    if "shift" in secs:
        header("7. The winner without re-indexing: next turn's score added at query time")
        run(data, "2 prev + turn; next field x0.3 (index-time, as in 6)",
            window={"main_before": 2, "nb_after": 1}, qargs={"nb_w": 0.3}, sig=True)
        run(data, "2 prev + turn; + 0.3 x next turn's own-text BM25 (query-time)",
            window={"main_before": 2, "own_stemmed": True}, qargs={"shift_w": 0.3}, sig=True)


if __name__ == "__main__":
    main()
