#!/usr/bin/env python3
"""Fits the weights of mend's calibrated heal confidence (src/adapt/confidence.rs).

Input: the JSON of `bench/heal_harness.py --json` runs on a *training* split
of cases (e.g. `bench/mutate.py --seed 2`), never on the cases the results are
reported on.  Every mend case whose run applied a heal carries the evidence
the choice saw (`evidence`: similarity, margin, likeness, votes_for,
votes_against, voted, by_locators, record) and whether the answer was right.
A logistic model P(right | evidence) is fitted by gradient descent with a
small L2 penalty; the script prints the weights in the order of
`Evidence::features` as Rust constants, and the least confidence at which the
training answers keep their risk (share wrong) at or under `--risk`.

`--report FILE...` evaluates fitted weights on other runs (the reported
split): risk and coverage at that bar, and a reliability table.

Usage:
    python3 bench/calibrate.py --train T.json [T2.json...] [--report R.json...] [--risk 0.02]
"""

import argparse
import json
import math
import sys

import numpy as np

FEATURES = ["similarity", "margin", "likeness", "votes_for", "votes_against", "voted", "by_locators", "record"]


def rows(paths):
    out = []
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        for c in data["cases"]:
            m = c.get("mend") or {}
            ev = m.get("evidence")
            if m.get("status") != "applied" or not ev or m.get("answer_ok") is None:
                continue
            x = [float(ev[k]) if not isinstance(ev[k], bool) else float(ev[k]) for k in FEATURES]
            out.append((x, 1.0 if m["answer_ok"] else 0.0, c.get("track"), c.get("id")))
    return out


# The sign each weight must have: more of a feature may never lower the
# confidence where the feature is evidence for the answer (or raise it where
# it is evidence against). A weight fitted with the wrong sign says more about
# the training cases than about pages, so it is fixed at 0 and the rest refitted.
SIGNS = {"similarity": +1, "margin": +1, "likeness": +1, "votes_for": +1, "votes_against": -1}


def fit(data):
    free = list(range(len(FEATURES)))
    while True:
        w, b = fit_free(data, free)
        wrong = [i for i in free if SIGNS.get(FEATURES[i], 0) * w[i] < 0]
        if not wrong:
            return w, b
        print(f"# {', '.join(FEATURES[i] for i in wrong)}: fitted with the wrong sign, fixed at 0", file=sys.stderr)
        free = [i for i in free if i not in wrong]


def fit_free(data, free):
    """`fit_logistic` on the features in `free`; the others get weight 0."""
    sub = [([r[0][i] for i in free], r[1]) for r in data]
    w_free, b = fit_logistic(sub)
    w = np.zeros(len(FEATURES))
    for k, i in enumerate(free):
        w[i] = w_free[k]
    return w, b


def fit_logistic(data, l2=0.1, steps=50):
    """Logistic regression by Newton's method (iteratively reweighted least
    squares) with a small ridge penalty on the weights, not the bias."""
    X = np.array([r[0] for r in data])
    y = np.array([r[1] for r in data])
    A = np.hstack([X, np.ones((len(y), 1))])
    theta = np.zeros(A.shape[1])
    ridge = l2 * np.eye(A.shape[1])
    ridge[-1, -1] = 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(A @ theta)))
        grad = A.T @ (p - y) + ridge @ theta
        hess = A.T @ (A * (p * (1 - p))[:, None]) + ridge + 1e-9 * np.eye(A.shape[1])
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.abs(step).max() < 1e-8:
            break
    return theta[:-1], float(theta[-1])


def predict(w, b, x):
    return 1 / (1 + math.exp(-(float(np.dot(w, x)) + b)))


def bar_without_loss(w, b, data):
    """The highest bar, in steps of 0.05, under which no right training answer lies: it turns away
    only answers that were all wrong."""
    best = 0.0
    for k in range(1, 20):
        bar = k / 20
        if all(y == 0 for x, y, *_ in data if predict(w, b, x) < bar):
            best = bar
        else:
            break
    return best


def bar_by_cost(w, b, data, cost):
    """The confidence bar that maximises right answers kept minus `cost` times wrong answers kept
    on `data`, over bars 0.05, 0.10, ..., 0.95: a wrong answer costs `cost` abstentions."""
    best = (None, -1e18)
    for k in range(1, 20):
        bar = k / 20
        kept = [(y) for x, y, *_ in data if predict(w, b, x) >= bar]
        utility = sum(kept) - cost * (len(kept) - sum(kept))
        if utility > best[1] + 1e-9:
            best = (bar, utility)
    return best[0]


def bar_for(w, b, data, risk):
    """The least confidence at which answers at or above it are wrong at most `risk` of the time."""
    scored = sorted(((predict(w, b, r[0]), r[1]) for r in data), reverse=True)
    best = 1.0
    wrong = 0
    for i, (p, y) in enumerate(scored, 1):
        wrong += y == 0
        if wrong / i <= risk:
            best = p
    return best


def report(w, b, data, bar, title):
    ans = [(predict(w, b, r[0]), r) for r in data]
    kept = [(p, r) for p, r in ans if p >= bar]
    wrong = sum(1 for _, r in kept if r[1] == 0)
    print(f"\n## {title}: {len(data)} applied heals, {sum(r[1] for r in data):.0f} right")
    print(f"at confidence >= {bar:.3f}: {len(kept)} answered ({100 * len(kept) / max(1, len(data)):.1f}%), "
          f"{wrong} wrong ({100 * wrong / max(1, len(kept)):.1f}% risk); "
          f"{sum(1 for p, r in ans if p < bar and r[1] == 1)} right answers given up")
    print("| confidence | n | share right |")
    print("| --- | --- | --- |")
    for lo in [0.0, 0.2, 0.4, 0.6, 0.8, 0.9, 0.95]:
        hi = {0.0: 0.2, 0.2: 0.4, 0.4: 0.6, 0.6: 0.8, 0.8: 0.9, 0.9: 0.95, 0.95: 1.01}[lo]
        inb = [r for p, r in ans if lo <= p < hi]
        if inb:
            print(f"| {lo:.2f}–{min(hi, 1.0):.2f} | {len(inb)} | {100 * sum(r[1] for r in inb) / len(inb):.0f}% |")
    tracks = sorted({r[2] for r in data})
    for t in tracks:
        sub = [(p, r) for p, r in ans if r[2] == t]
        k = [(p, r) for p, r in sub if p >= bar]
        print(f"  {t}: {len(sub)} heals; kept {len(k)}, wrong {sum(1 for _, r in k if r[1] == 0)}; "
              f"dropped right {sum(1 for p, r in sub if p < bar and r[1] == 1)}, dropped wrong {sum(1 for p, r in sub if p < bar and r[1] == 0)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", nargs="+", required=True)
    ap.add_argument("--report", nargs="*", default=[])
    ap.add_argument("--risk", type=float, default=0.02)
    ap.add_argument("--cost", type=float, default=2.0,
                    help="how many abstentions a wrong answer costs, for choosing the bar (default 2)")
    args = ap.parse_args()
    train = rows(args.train)
    if len(train) < 20:
        sys.exit(f"only {len(train)} applied heals with evidence in the training runs: too few to fit")
    w, b = fit(train)
    risk_bar = bar_for(w, b, train, args.risk)
    cost_bar = bar_by_cost(w, b, train, args.cost)
    bar = bar_without_loss(w, b, train)
    print("const WEIGHTS: [f64; 8] = [" + ", ".join(f"{v:.4f}" for v in w) + "];")
    print(f"const BIAS: f64 = {b:.4f};")
    print(f"pub const MIN_CONFIDENCE: f64 = {bar:.2f}; // the highest bar with no right training answer under it")
    print(f"// best bar on the training split when a wrong answer costs {args.cost:g} abstentions: {cost_bar:.2f}")
    print(f"// least confidence for risk <= {args.risk:.0%} on the training split: {risk_bar:.4f}")
    for name, v in zip(FEATURES, w):
        print(f"  {name:>14}: {v:+.3f}")
    report(w, b, train, bar, "training split")
    for path in args.report:
        report(w, b, rows([path]), bar, f"reported: {path}")


if __name__ == "__main__":
    main()
