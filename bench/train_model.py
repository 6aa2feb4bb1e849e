#!/usr/bin/env python3
"""Fits mend's heal model (models/heal.json) on training sites and chooses its threshold on validation sites.

Every path of mend's search proposes a candidate with its evidence, and one learned model says how likely the
candidate is the pattern's target (src/adapt/model.rs names the features and evaluates the
model). This script fits that model.

Data.  Harness runs (bench/heal_harness.py --json) of cases from the sites of one split each
(bench/wide_cases.py, bench/split.json), run with `--min-confidence 1 --drift-confidence 1`: every field is
sent to a heal, and the model refuses every candidate, so that each path of the search proposes all it has.
Every adaptation lists the candidates the model judged (`proposals`: the proposing path, the candidate's
nodes, and its `features` in mend's own encoding). Two kinds of example come out of a case:

* each proposal: right when it is exactly the expected node, or, on another page of the site, one node
  holding the expected element's value (`same_value`, marked by the harness, which judges every tool's
  answer so). Every proposal for a deleted target is a negative example: "the target is gone" is learned
  from the same evidence as "the target is here";
* the XPath's own selection, as the drift check sees it: the adaptation's `selection_features`, right when the
  unhealed XPath (the harness's no-healing column) selects exactly the expected node.

Model.  scikit-learn's HistGradientBoostingClassifier (logistic loss, shallow trees, no early stopping, fixed
random_state), fitted on the training runs only, with monotone constraints on the evidence of the candidate
itself (MONOTONE): more likeness, more of the stored text and words, and more locators for it never lower its
probability, and more locators against it never raise it. Unconstrained, the trees carve the sparse corners of
the feature space (a candidate that kept the stored text but no class, on a small page no locator spans) into
rules such as "a likeness of 1 is worse than one of 0.8", which no site bears out; constrained, the score on
validation sites is the same (BENCHMARKS.md, The model). Written as arrays of trees with the learning rate in
the leaves and the baseline log-odds as `base`, compared as float64 as mend compares them; the script checks
that the written model gives scikit-learn's probabilities to 1e-9 on every example before it writes it. The
trees are read from the fitted estimator's `_predictors`, which scikit-learn does not publish: the pinned
version (bench/requirements.txt) and that check hold it.

Thresholds.  Two, chosen together on the validation runs only, never on test sites: the drift check flags a
field whose selection a signal speaks against (outvoted, witnessed elsewhere, the neighbour's text, another
stored element, the labels missing, emptied) and the model gives less than t_drift, and a heal is applied when its candidate gets at least
t_heal. Each pair is played out case by case from the collection run: a field not flagged keeps its XPath's
verdict; a flagged one takes the heal's verdict when the heal clears t_heal, and is otherwise left flagged with
its value withheld (mend's record gives null: an abstention, right where the target is gone). The search is replayed: the first proposal, in the order
the paths made them, that clears t_heal is the heal. The pair chosen maximises correct - --wrong-cost x wrong -
false alarms (fields flagged whose XPath was right), over a grid of 0.05 (the drift threshold under 1).

Usage (one deterministic command from the harness runs; the same runs give the same file byte for byte):

    python3 bench/train_model.py --train T.json [T.json ...] --validation V.json [V.json ...] \\
        [--wrong-cost 4] [--out models/heal.json] [--report target/model-report.md]

Report.  Train and validation side by side: examples, AUC, Brier score, and correct / wrong / abstain per track
at the chosen thresholds, with the false alarms and the deleted targets answered with a node (a goal of its own,
which the wrong answers hide among the rest).  --evaluate H.json ... plays the written model's thresholds out on
other collection runs (test sites, read in aggregate only) without fitting anything.
"""

import argparse
import hashlib
import json
import math
import os
import re
import sys

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.metrics import brier_score_loss, roc_auc_score

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
MODEL_RS = os.path.join(REPO, "src", "adapt", "model.rs")
PARAMS = dict(max_iter=300, max_depth=3, learning_rate=0.1, min_samples_leaf=10, early_stopping=False,
              random_state=0)
# The candidate's own evidence, by the direction in which more of it speaks for the candidate.
MONOTONE = {"likeness": 1, "text_like": 1, "words": 1, "votes_for": 1, "votes_against": -1}


def feature_names():
    """The feature names in mend's order, read from src/adapt/model.rs's FEATURES."""
    src = open(MODEL_RS, encoding="utf-8").read()
    block = src[src.index("pub const FEATURES"):]
    return re.findall(r'"([a-z0-9_]+)"', block[:block.index("];")])


def load_cases(paths):
    cases = []
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            cases += json.load(handle)["cases"]
    return cases


def vector(feats, names, case):
    missing = [n for n in names if n not in feats]
    if missing:
        sys.exit(f"case {case['id']}: features {missing} missing (a run of another mend build?)")
    return [float(feats[n]) for n in names]


def stale_one(case):
    """Whether the unhealed XPath selects exactly one node (right or wrong) on the new page."""
    return (case.get("stale") or {}).get("n_selected") == 1


def right(case, prop):
    """Whether a proposal is exactly the expected node, or on another page of the site one node
    holding the expected element's value (the harness marks it `same_value` and judges every tool so)."""
    if case.get("expected") is None or prop["count"] != 1:
        return False
    return prop["nodes"] == [case["expected"]] or bool(prop.get("same_value"))


def examples(cases, names):
    """(X, y, rows, kinds): the heal's candidate of every applied heal, right when judged correct, and the
    XPath's own selection wherever it selects one node, right when that node is the expected one."""
    X, y, rows, kinds = [], [], [], []
    for case in cases:
        m = case.get("mend") or {}
        for prop in m.get("proposals") or []:
            X.append(vector(prop["features"], names, case))
            y.append(1 if right(case, prop) else 0)
            rows.append(case)
            kinds.append("heal")
        if m.get("selection_features") and stale_one(case):
            X.append(vector(m["selection_features"], names, case))
            y.append(1 if case["stale"]["verdict"] == "correct" else 0)
            rows.append(case)
            kinds.append("current")
    return np.array(X, dtype=float), np.array(y, dtype=int), rows, kinds


def export(clf, names):
    """The fitted model as mend reads it: the baseline log-odds and trees whose leaves hold the learning rate
    already. Features and thresholds are compared as float64, by scikit-learn and by src/adapt/model.rs."""
    trees = []
    for (predictor,) in clf._predictors:
        nodes = predictor.nodes
        leaf = [bool(n["is_leaf"]) for n in nodes]
        trees.append({
            "feature": [(-1 if leaf[i] else int(n["feature_idx"])) for i, n in enumerate(nodes)],
            "threshold": [(0.0 if leaf[i] else float(n["num_threshold"])) for i, n in enumerate(nodes)],
            "left": [(0 if leaf[i] else int(n["left"])) for i, n in enumerate(nodes)],
            "right": [(0 if leaf[i] else int(n["right"])) for i, n in enumerate(nodes)],
            "value": [(float(n["value"]) if leaf[i] else 0.0) for i, n in enumerate(nodes)],
        })
    return {"features": names, "base": float(np.ravel(clf._baseline_prediction)[0]), "trees": trees}


def fit_members(cases, names, bag):
    """One model fitted on the training cases, or with --bag K, K models each fitted on a bootstrap sample
    of the training cases (drawn by case, as a case's candidates go together; a fixed seed)."""
    if bag <= 1:
        X, y, _, _ = examples(cases, names)
        return [classifier(names).fit(X, y)]
    rng = np.random.RandomState(0)
    members = []
    for _ in range(bag):
        sample = [cases[i] for i in rng.randint(0, len(cases), len(cases))]
        X, y, _, _ = examples(sample, names)
        members.append(classifier(names).fit(X, y))
    return members


def classifier(names):
    """An unfitted model with the evidence constraints of MONOTONE."""
    return HistGradientBoostingClassifier(monotonic_cst=[MONOTONE.get(n, 0) for n in names], **PARAMS)


def importances(members, names):
    """Each feature's share of the loss reduction of all the members' splits."""
    gain = np.zeros(len(names))
    for clf in members:
        for (predictor,) in clf._predictors:
            for node in predictor.nodes:
                if not node["is_leaf"]:
                    gain[node["feature_idx"]] += max(float(node["gain"]), 0.0)
    return gain / max(gain.sum(), 1e-12)


def combine(models):
    """Members' exported trees as one model whose log-odds are their mean: the bases averaged, every
    leaf divided by the number of members."""
    if len(models) == 1:
        return models[0]
    k = len(models)
    trees = [dict(t, value=[v / k for v in t["value"]]) for m in models for t in m["trees"]]
    return {"features": models[0]["features"], "base": sum(m["base"] for m in models) / k, "trees": trees}


def ensemble_probability(members, X):
    """scikit-learn's probability of the members' mean log-odds, for checking the export."""
    z = np.mean([clf.decision_function(X) for clf in members], axis=0)
    return 1.0 / (1.0 + np.exp(-z))


def probability(model, x):
    """mend's evaluator (src/adapt/model.rs), for checking the export."""
    z = model["base"]
    for t in model["trees"]:
        i = 0
        while t["feature"][i] >= 0:
            i = t["left"][i] if x[t["feature"][i]] <= t["threshold"][i] else t["right"][i]
        z += t["value"][i]
    return 1.0 / (1.0 + math.exp(-z))


def probabilities(model, cases, names):
    """Per case id: the model's probability for the XPath's own selection and for the heal's candidate."""
    cur, heal = {}, {}
    for case in cases:
        m = case.get("mend") or {}
        if m.get("selection_features") and stale_one(case):
            cur[case["id"]] = probability(model, vector(m["selection_features"], names, case))
        heal[case["id"]] = [(probability(model, vector(p["features"], names, case)), right(case, p))
                            for p in m.get("proposals") or []]
    return cur, heal


SIGNALS = ("outvoted", "witnessed_elsewhere", "neighbour", "other_stored", "labels_contradict", "emptied")


def signalled(case):
    """Whether a signal speaks against the XPath's selection: the drift check asks the model only then."""
    feats = (case.get("mend") or {}).get("selection_features") or {}
    return any(feats.get(k, 0) > 0 for k in SIGNALS)


def outcome(case, p_cur, proposals, t_drift, t_heal):
    """(verdict, false alarm) of a case had the drift check flagged selections under t_drift and the
    first proposal at or above t_heal been the heal, played out from the collection run (module doc)."""
    stale = (case.get("stale") or {}).get("verdict") or "wrong"
    gone = case.get("expected") is None
    model_flags = stale_one(case) and p_cur is not None and p_cur < t_drift and signalled(case)
    if stale_one(case) and not model_flags:
        return stale, False
    alarm = model_flags and stale == "correct"
    for p, ok in proposals or []:
        if p >= t_heal:
            return ("correct" if ok else "wrong"), alarm
    if model_flags:
        # A drift no heal replaces is withheld: the record gives null, whatever the XPath selects.
        return ("correct" if gone else "abstain"), alarm
    return ("correct" if gone else stale), alarm


def table(cases, probs, t_drift, t_heal):
    """Per track: n, correct, wrong, abstain, and false alarms."""
    cur, heal = probs
    out = {}
    for case in cases:
        row = out.setdefault(case["track"], {"n": 0, "correct": 0, "wrong": 0, "abstain": 0, "alarms": 0,
                                             "deleted": 0, "deleted_answered": 0})
        v, alarm = outcome(case, cur.get(case["id"]), heal.get(case["id"]), t_drift, t_heal)
        row["n"] += 1
        row[v] += 1
        row["alarms"] += alarm
        if case.get("expected") is None:
            # A deleted target has no right node: any answer is wrong, whoever gives it.
            row["deleted"] += 1
            row["deleted_answered"] += v == "wrong"
    return out


def totals(rows):
    return {k: sum(r[k] for r in rows.values())
            for k in ("n", "correct", "wrong", "abstain", "alarms", "deleted", "deleted_answered")}


def choose_thresholds(cases, probs, wrong_cost):
    """The (t_drift, t_heal) of the grid that maximises correct - wrong_cost x wrong - alarms."""
    grid = [round(0.05 * i, 2) for i in range(0, 21)]
    best, curve = None, []
    # A drift bar of 1 or more makes mend ask the model of every selection, signalled or not, and flag
    # them all (the collection runs' setting, `--drift-confidence 1`), which is not what the replay
    # plays out: the drift threshold is chosen under 1.
    for t_drift in grid[:-1]:
        for t_heal in grid:
            tot = totals(table(cases, probs, t_drift, t_heal))
            utility = tot["correct"] - wrong_cost * tot["wrong"] - tot["alarms"]
            curve.append((t_drift, t_heal, tot))
            if best is None or utility > best[0]:
                best = (utility, t_drift, t_heal)
    return best[1], best[2], curve


def pct(k, n):
    return f"{100.0 * k / n:.1f}" if n else "-"


def report(lines, name, cases, probs, t_drift, t_heal):
    lines.append(f"### {name}")
    lines.append("")
    lines.append("| track | n | no healing: correct / wrong / abstain % | every candidate applied | "
                 "at the thresholds | false alarms | deleted targets answered |")
    lines.append("| --- | --- | --- | --- | --- | --- | --- |")
    stale = table(cases, probs, 0.0, 2.0)
    open_ = table(cases, probs, 1.01, -1.0)
    after = table(cases, probs, t_drift, t_heal)
    for track in sorted(after):
        cells = []
        for rows in (stale, open_, after):
            r = rows[track]
            cells.append(f"{pct(r['correct'], r['n'])} / {pct(r['wrong'], r['n'])} / {pct(r['abstain'], r['n'])}")
        a = after[track]
        lines.append(f"| {track} | {a['n']} | " + " | ".join(cells) +
                     f" | {a['alarms']} | {a['deleted_answered']} of {a['deleted']} |")
    lines.append("")


def plot(cases, probs, model, prefix):
    """Two PNGs of the model on these runs: risk against coverage of the heals as t_heal moves (t_drift
    fixed), and the reliability of its probabilities over every proposal judged."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    n = len(cases)
    points = []
    for i in range(0, 101):
        t = i / 100
        answered = wrong = 0
        for case in cases:
            cur, heal = probs
            v, _ = outcome(case, cur.get(case["id"]), heal.get(case["id"]), model["drift_threshold"], t)
            took = any(p >= t for p, _ in heal.get(case["id"]) or [])
            answered += took
            wrong += took and v == "wrong"
        if answered:
            points.append((t, answered / n, wrong / answered))
    fig, ax = plt.subplots(figsize=(5, 4))
    ax.plot([c for _, c, _ in points], [100 * r for _, _, r in points], marker=".")
    mark = min(points, key=lambda p: abs(p[0] - model["threshold"]))
    ax.scatter([mark[1]], [100 * mark[2]], color="red", zorder=3, label=f"t_heal = {model['threshold']:.2f}")
    ax.set_xlabel("coverage: cases answered by a heal")
    ax.set_ylabel("risk: heals that are wrong (%)")
    ax.set_title("Heal model: risk and coverage")
    ax.legend()
    fig.tight_layout()
    fig.savefig(prefix + "-risk-coverage.png", dpi=90)
    bins = [[0, 0] for _ in range(10)]
    for case in cases:
        for p, ok in probs[1].get(case["id"]) or []:
            b = min(9, int(p * 10))
            bins[b][0] += 1
            bins[b][1] += ok
    fig, ax = plt.subplots(figsize=(5, 4))
    xs = [(i + 0.5) / 10 for i in range(10) if bins[i][0]]
    ys = [bins[i][1] / bins[i][0] for i in range(10) if bins[i][0]]
    ax.plot([0, 1], [0, 1], color="grey", linestyle="--")
    ax.plot(xs, ys, marker="o")
    for x, i in zip(xs, [i for i in range(10) if bins[i][0]]):
        ax.annotate(str(bins[i][0]), (x, bins[i][1] / bins[i][0]), fontsize=7)
    ax.set_xlabel("model probability (bin)")
    ax.set_ylabel("share of proposals right")
    ax.set_title("Heal model: reliability over proposals")
    fig.tight_layout()
    fig.savefig(prefix + "-reliability.png", dpi=90)


def evaluate(paths, model_path, plot_prefix=None):
    """Plays the written model's thresholds out on other collection runs, in aggregate only."""
    with open(model_path, encoding="utf-8") as handle:
        model = json.load(handle)
    names = feature_names()
    if model["features"] != names:
        sys.exit(f"{model_path} names other features than src/adapt/model.rs")
    cases = load_cases(paths)
    lines = [f"## {model['version']} on {len(cases)} cases (t_drift {model['drift_threshold']:.2f}, "
             f"t_heal {model['threshold']:.2f})", ""]
    probs = probabilities(model, cases, names)
    report(lines, "evaluated", cases, probs, model["drift_threshold"], model["threshold"])
    print("\n".join(lines))
    if plot_prefix:
        plot(cases, probs, model, plot_prefix)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", nargs="+", help="harness JSON of training-site cases")
    ap.add_argument("--validation", nargs="+", help="harness JSON of validation-site cases")
    ap.add_argument("--evaluate", nargs="+", help="only play the model at --out out on these runs")
    ap.add_argument("--wrong-cost", type=float, default=4.0,
                    help="how many right answers one wrong answer costs in the thresholds' choice "
                         "(default %(default)s)")
    ap.add_argument("--bag", type=int, default=1,
                    help="fit this many models on bootstrap samples of the training cases and average "
                         "their log-odds (default %(default)s: one model on all of them)")
    ap.add_argument("--out", default=os.path.join(REPO, "models", "heal.json"))
    ap.add_argument("--report", default=None, help="also write the Markdown report here")
    ap.add_argument("--plot", default=None, help="with --evaluate: write PREFIX-risk-coverage.png and "
                                                 "PREFIX-reliability.png")
    args = ap.parse_args()
    if args.evaluate:
        return evaluate(args.evaluate, args.out, args.plot)
    if not args.train or not args.validation:
        ap.error("--train and --validation are needed to fit")

    names = feature_names()
    train_cases, val_cases = load_cases(args.train), load_cases(args.validation)
    Xt, yt, _rows_t, kinds_t = examples(train_cases, names)
    Xv, yv, _rows_v, kinds_v = examples(val_cases, names)
    if len(yt) < 50 or len(set(yt)) < 2:
        sys.exit(f"only {len(yt)} examples in the training runs: too few to fit")
    members = fit_members(train_cases, names, args.bag)
    model = combine([export(clf, names) for clf in members])
    for X in (Xt, Xv):
        ours = np.array([probability(model, x) for x in X])
        if len(X) and np.max(np.abs(ours - ensemble_probability(members, X))) > 1e-9:
            sys.exit("the exported trees do not give scikit-learn's probabilities")
    probs_t = probabilities(model, train_cases, names)
    probs_v = probabilities(model, val_cases, names)
    t_drift, t_heal, curve = choose_thresholds(val_cases, probs_v, args.wrong_cost)

    # The version names the decision, not only the trees: the same trees with other thresholds decide
    # otherwise, and every adaptation records the version it was decided by.
    body = json.dumps({"threshold": t_heal, "drift_threshold": t_drift, **model}, sort_keys=True)
    out = {"version": "heal-gbdt-" + hashlib.sha256(body.encode()).hexdigest()[:12],
           "threshold": t_heal, "drift_threshold": t_drift, **model}
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(out, handle, indent=None, separators=(",", ":"))
        handle.write("\n")

    lines = [f"# Heal model {out['version']}", "",
             f"Fitted on {len(yt)} examples of {len(train_cases)} training cases; thresholds t_drift "
             f"{t_drift:.2f} and t_heal {t_heal:.2f} chosen on {len(val_cases)} validation cases "
             f"(a wrong answer costs {args.wrong_cost:g} right ones).", "",
             "| split | kind | examples | right | AUC | Brier |", "| --- | --- | --- | --- | --- | --- |"]
    for name, X, y, kinds in (("train", Xt, yt, kinds_t), ("validation", Xv, yv, kinds_v)):
        p_all = ensemble_probability(members, X)
        for kind in ("heal", "current"):
            sel = np.array([k == kind for k in kinds])
            if sel.sum() and len(set(y[sel])) == 2:
                lines.append(f"| {name} | {kind} | {int(sel.sum())} | {int(y[sel].sum())} | "
                             f"{roc_auc_score(y[sel], p_all[sel]):.3f} | {brier_score_loss(y[sel], p_all[sel]):.3f} |")
    lines.append("")
    report(lines, "train", train_cases, probs_t, t_drift, t_heal)
    report(lines, "validation", val_cases, probs_v, t_drift, t_heal)
    lines += ["### Validation: the thresholds around the choice", "",
              "| t_drift | t_heal | correct | wrong | abstain | false alarms | n |",
              "| --- | --- | --- | --- | --- | --- | --- |"]
    for td, th, tot in curve:
        if abs(td - t_drift) < 0.11 and abs(th - t_heal) < 0.11:
            lines.append(f"| {td:.2f} | {th:.2f} | {tot['correct']} | {tot['wrong']} | {tot['abstain']} | "
                         f"{tot['alarms']} | {tot['n']} |")
    lines += ["", "Feature importances (share of the splits' loss reduction):", ""]
    for name, imp in sorted(zip(names, importances(members, names)), key=lambda x: -x[1]):
        if imp > 0.005:
            lines.append(f"- {name}: {imp:.3f}")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.report:
        os.makedirs(os.path.dirname(os.path.abspath(args.report)), exist_ok=True)
        with open(args.report, "w", encoding="utf-8") as handle:
            handle.write(text)
    print(f"wrote {args.out} ({out['version']}, t_drift {t_drift:.2f}, t_heal {t_heal:.2f})")


if __name__ == "__main__":
    main()
