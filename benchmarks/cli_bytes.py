"""A differential run of the commands (run by hand around a refactoring): every command of a fixed
list, on sample and generated files, with its exit status, standard output and standard error written
to DIR, one file each, so that two checkouts can be compared with `diff -r`.

    PYTHONPATH=src python benchmarks/cli_bytes.py DIR

The data are made from fixed seeds; the output of the Python API (`repr` of results) is written too.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import perfeval


def _data(d: Path) -> None:
    rng = np.random.default_rng(7)
    n = 3000
    y = (rng.random(n) < 0.3).astype(int)
    g = rng.integers(0, 2**63 - 1, size=60)[rng.integers(0, 60, size=n)]
    a = np.round(np.clip(rng.normal(0.4 + 0.2 * y, 0.2), 0, 1), 3)
    b = np.round(np.clip(rng.normal(0.45 + 0.15 * y, 0.25), 0, 1), 2)
    grade = np.where(y == 1, rng.integers(1, 4, size=n), 0)
    w = rng.choice([0.0, 0.5, 1.0, 2.0], size=n)
    label = np.where(y == 1, "click", "no")
    df = pd.DataFrame({"user": g, "y": y, "grade": grade, "label": label, "a": a, "b": b, "w": w})
    df.to_csv(d / "t.csv", index=False)
    df.to_parquet(d / "t.parquet")
    df.to_json(d / "t.jsonl", orient="records", lines=True)
    (d / "plain.txt").write_text("".join(f"{t} {p}\n" for t, p in zip(y[:500], a[:500], strict=True)))
    (d / "bad.csv").write_text("y,a\n1,0.5\n0,abc\n1,0.2\n")
    (d / "ff.txt").write_text("1 0.9\f0 0.1\f1 0.3\n")
    (d / "one.csv").write_text("y,a\n1,0.5\n1,0.2\n")
    (d / "reg.csv").write_text("y,a\n1.5,0.5\n2.25,0.2\n3.75,0.9\n")
    (d / "three.csv").write_text("y,a\n0,0.5\n1,0.2\n2,0.9\n")
    (d / "key.txt").write_text("".join(f"ev{i} {t}\n" for i, t in enumerate(y[:800])))
    (d / "sub.txt").write_text("".join(f"ev{i} {a[i]}\n" for i in range(800)))
    (d / "subbad.txt").write_text("".join(f"ev{i} {a[i]}\n" for i in range(700)))


SAMPLES = Path(perfeval.__file__).parent / "data"

# one command a line (perfeval's arguments; SAMPLES/ is the package's sample folder)
COMMANDS = """
list-measures
list-measures --format markdown
sample
eval t.csv --target y --score a,b -m roc,apr,logloss,rms,acc,brier
eval t.csv --target y --score a,b --group user -m gauc,roc --format json
eval t.csv --target grade --score a --group user -m ndcg@10,map,mrr,p@5
eval t.csv --target grade --score a --group user -m ndcg@10,map --format json
eval t.csv --target y --score a --weight w -m roc,apr,acc,logloss
eval t.csv --target label --pos-label click --score a -m roc,gauc --group user
eval t.csv --target label --score a -m roc
eval t.csv --target y --score a -m roc,apr --ci 0.95 --n-boot 200 --seed 3
eval t.csv --target y --score a -m roc,ndcg --group user --format csv
eval t.csv --target y --score a --group user -m roc,gauc --stream
eval t.parquet --target y --score a --group user -m roc,gauc,ndcg
eval t.parquet --target y --score a --group user -m roc,gauc --stream
eval t.jsonl --target y --score a -m roc,apr
eval t.csv --target y --score a --group user -m roc,gauc --dask local:1 --format json
eval t.csv --target y --score a -m roc --dialect sklearn
eval t.csv --target grade --score a --group user -m ndcg@10 --dialect ranx
eval t.csv --target y --score a -m roc,acc,rms --dialect perf
eval plain.txt -m roc,apr,rms
eval bad.csv --target y --score a -m roc
eval ff.txt -m roc
eval one.csv --target y --score a -m roc,acc
eval reg.csv --target y --score a -m rms
eval three.csv --target y --score a -m roc
eval t.csv --target nope --score a -m roc
eval t.csv --target y --score a -m nosuch
eval t.csv --target y --score a -m ndcg@0
compare t.csv --target y --score a,b -m roc,logloss --n-boot 200 --seed 1
compare t.csv --target y --score a,b -m roc,apr --n-boot 200 --seed 1 --format json
compare t.csv --target grade --score a,b --group user -m ndcg@10 --n-boot 200 --seed 1
trec SAMPLES/qrels.txt SAMPLES/bm25.run -m map,ndcg@10,P@10,recip_rank
trec SAMPLES/qrels.txt SAMPLES/bm25.run --dialect trec_eval --format trec
trec SAMPLES/qrels.txt SAMPLES/bm25.run -m map,ndcg@10 --format json
trec SAMPLES/qrels.txt SAMPLES/bm25.run SAMPLES/rm3.run -m map,ndcg@10
trec SAMPLES/qrels.txt SAMPLES/bm25.run --dialect ir_measures -m nDCG@10,Judged@10
explain t.csv --target y --score a -m roc,apr
explain SAMPLES/qrels.txt SAMPLES/bm25.run -m ndcg@10
score sub.txt --key key.txt --task kddcup2004-physics --no-store
score sub.txt --key key.txt --task kddcup2004-physics --no-store --format json
score subbad.txt --key key.txt --task kddcup2004-physics --no-store
report t.csv --target y --score a,b --group user -m roc,apr,logloss,gauc -o r.html
plot roc t.csv --target y --score a,b -o roc.svg
plot calibration t.csv --target y --score a -o cal.png
"""

PERF: list[tuple[list[str], str]] = [
    (["-roc", "-apr", "-rms", "-acc"], "testperfdata"),
    ([], "phy_perf_sample_test.dat"),
    (["-blocks", "-apr", "-rms"], "bio_perf_sample_test.dat"),
    (["-all"], "badtestperfdata"),
]

API = """
import numpy as np, perfeval
from perfeval import evaluate, ci, compare, Metric
rng = np.random.default_rng(3)
y = (rng.random(400) < .3).astype(int); s = rng.random(400).round(2); t = rng.random(400).round(2)
g = rng.integers(0, 9, 400)
print(evaluate(y, s, measures=["roc", "apr", "logloss", "gauc"], groups=g))
print(ci(y, s, measures="roc", n_boot=100, seed=1))
print(compare(y, s, t, measures=["roc", "apr"], n_boot=100, seed=1))
m = Metric(["roc", "gauc"])
m.update(y[:200], s[:200], groups=g[:200])
m.update(y[200:], s[200:], groups=g[200:])
print(m.compute())
import perfeval.functional as F
print(F.roc_auc_score(y, s), F.average_precision_score(y, s), F.log_loss(y, np.clip(s, .01, .99)))
print(F.precision_score(y, s > .5), F.recall_score(y, s > .5), F.f1_score(y, s > .5))
"""


def _run(module: str, argv: list[str], stdin: bytes | None = None) -> str:
    """One command in a fresh interpreter (as a user runs it): its exit status and bytes."""
    code = f"import sys; from {module} import main; sys.exit(main())"
    p = subprocess.run(
        [sys.executable, "-c", code, *argv], input=stdin or b"", capture_output=True, timeout=600, check=False
    )
    return (
        f"exit {p.returncode}\n--- stdout\n{p.stdout.decode(errors='replace')}"
        f"--- stderr\n{p.stderr.decode(errors='replace')}"
    )


def main(dest: Path) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        _data(Path(tmp))
        for k, line in enumerate(COMMANDS.strip().splitlines()):
            argv = [a.replace("SAMPLES/", f"{SAMPLES}/") for a in shlex.split(line)]
            text = _run("perfeval.cli.main", argv).replace(str(SAMPLES), "SAMPLES").replace(tmp, "TMP")
            for made in ("r.html", "roc.svg", "cal.png"):
                if made in argv:
                    text += f"--- {made} written: {Path(made).exists()}\n"
                    if made.endswith(".html") and Path(made).exists():  # less its time of writing
                        text += re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", "TIME", Path(made).read_text())
                    Path(made).unlink(missing_ok=True)
            (dest / f"perfeval-{k:02d}.txt").write_text(" ".join(argv) + "\n" + text)
        for k, (argv, name) in enumerate(PERF):
            text = _run("perfeval.classic.main", argv, (SAMPLES / name).read_bytes())
            (dest / f"perf-{k:02d}.txt").write_text(" ".join(argv) + f" < {name}\n" + text)
        p = subprocess.run([sys.executable, "-c", API], capture_output=True, timeout=600, check=False)
        (dest / "api.txt").write_text(p.stdout.decode() + p.stderr.decode())


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
