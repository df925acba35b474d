"""The orders of tied scores, written once (perfeval.summaries.orders) for both of their users: the
dialects (``broken``: ``input``, ``reverse``, ``id_desc``, ``numba``, ``numba2``, ``worst``) and
judgments and runs (``trec``'s ``ties=``: ``file``, ``trec_eval``, ``ranx``, and the tie bounds'
``best`` and ``worst``).  The orders below are those the two earlier implementations gave
(``dialects/orders.broken`` and ``trec._tie_break``), frozen from them on this input (issue 31).
"""

from __future__ import annotations

import types

import numpy as np
import pytest

from perfeval import trec
from perfeval.summaries import orders

# two groups: group 0 of 22 rows, 20 of them tied (past 15 rows numba's quicksort moves them), group 1
# of 8 (a tie of 2 and one of 5)
CODES = [1, 1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0]
SCORES = [0.3, 0.75, 0.9, 0.1, 0.75, 0.5, 0.5, 0.5, 0.5, 0.25, 0.5, 0.25, 0.5, 0.25, 0.5]
SCORES += [0.5, 0.5, 0.5, 0.5, 0.5, 0.25, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25, 0.5, 0.5, 0.5]
IDS = ["d14", "d29", "d27", "d15", "d00", "d05", "d08", "d04", "d18", "d20", "d23", "d06", "d22", "d26"]
IDS += ["d16", "d21", "d17", "d13", "d19", "d11", "d07", "d24", "d01", "d25", "d02", "d09", "d10", "d28"]
IDS += ["d03", "d12"]
Y = [2, 1, 2, 2, 2, 2, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 0, 2, 0, 0, 2, 2, 0, 2, 2, 0, 2, 1]

#: the rows in each order (by group, descending score, each tie by the rule), as both earlier
#: implementations gave them, under the names each used
FROZEN = {
    "input": [2, 5, 6, 7, 8, 10, 12, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 27, 28, 29, 3]
    + [1, 4, 0, 9, 11, 13, 20, 26],
    "reverse": [2, 29, 28, 27, 25, 24, 23, 22, 21, 19, 18, 17, 16, 15, 14, 12, 10, 8, 7, 6, 5, 3]
    + [4, 1, 0, 26, 20, 13, 11, 9],
    "id_desc": [2, 27, 23, 21, 10, 12, 15, 18, 8, 16, 14, 17, 29, 19, 25, 6, 5, 7, 28, 24, 22, 3]
    + [1, 4, 0, 13, 9, 26, 20, 11],
    "id_asc": [2, 22, 24, 28, 7, 5, 6, 25, 19, 29, 17, 14, 16, 8, 18, 15, 12, 10, 21, 23, 27, 3]
    + [4, 1, 0, 11, 20, 26, 9, 13],
    "numba": [2, 28, 27, 25, 24, 23, 22, 21, 19, 18, 17, 16, 15, 14, 12, 10, 8, 7, 6, 5, 29, 3]
    + [1, 4, 0, 9, 11, 13, 20, 26],
    "numba2": [2, 29, 5, 6, 7, 8, 10, 12, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 27, 28, 3]
    + [1, 4, 0, 9, 11, 13, 20, 26],
}
#: the tie bounds' orders: which relevance each position holds (the rows of equal relevance inside
#: a tie are in no particular order, and no measure can tell them apart)
FROZEN_Y = {
    "worst": [2, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 1, 2, 2, 0, 0, 1, 1, 2],
    "best": [2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 2, 2, 1, 2, 2, 1, 1, 0, 0],
}
#: trec's names (``ties=`` and the rules it used inside) for the same orders
TREC_NAMES = {"file": "input", "trec_eval": "id_desc", "ranx": "numba", "ranx2": "numba2"}


@pytest.fixture
def data():
    return np.array(CODES, dtype=np.int64), np.array(SCORES), np.array(IDS), np.array(Y)


def _rows(scores: np.ndarray, codes: np.ndarray) -> list[int]:
    """The rows in the order of distinct scores (by group, then the score descending)."""
    return np.lexsort((-scores, codes)).tolist()


@pytest.mark.parametrize("rule", ["input", "reverse", "id_desc", "numba", "numba2"])
def test_the_dialects_orders_are_as_before(data, rule):
    codes, s, ids, y = data
    got = orders.broken(codes, s, rule, ids, y)
    assert _rows(got, codes) == FROZEN[rule]
    assert len(np.unique(got)) == len(got)  # distinct scores: no tie is left
    assert orders.tie_order(codes, s, rule, ids=ids).tolist() == FROZEN[rule]


@pytest.mark.parametrize("rule", ["worst", "best"])
def test_the_bounds_put_the_relevant_rows_last_or_first(data, rule):
    codes, s, _ids, y = data
    assert y[orders.tie_order(codes, s, rule, y=y)].tolist() == FROZEN_Y[rule]
    # several keys, the first deciding first (trec's relevance, judged, pooled): the same relevance
    keys = (y.astype(float), (y > 0).astype(float), np.ones(len(y)))
    assert y[orders.tie_order(codes, s, rule, y=keys)].tolist() == FROZEN_Y[rule]
    # a key that is not whole numbers: the same order of its values
    assert y[np.lexsort((-orders.broken(codes, s, "worst", y=y / 2), codes))].tolist() == FROZEN_Y["worst"]


def _run(ids: np.ndarray, s: np.ndarray) -> types.SimpleNamespace:
    """What trec's tie rules read of a run: scores, line of each row, document code (its position in
    the sorted ids: string order)."""
    dcode = np.searchsorted(np.sort(ids), ids).astype(np.int64)
    return types.SimpleNamespace(score=s, order=np.arange(len(s), dtype=np.int64), dcode=dcode)


@pytest.mark.parametrize("name", [*TREC_NAMES, "id_asc", "id_desc", "input", "numba", "numba2"])
def test_trec_orders_ties_with_the_same_module_under_its_names(data, name):
    codes, s, ids, _y = data
    keep = np.ones(len(s), dtype=bool)
    scores, order = trec._tie_break(_run(ids, s), keep, codes, name)
    assert order.tolist() == FROZEN[orders.order_name(name)]
    assert _rows(scores, codes) == order.tolist()


def test_trec_float32_reading_and_its_bounds(data):
    codes, s, ids, y = data
    keep = np.ones(len(s), dtype=bool)
    run = _run(ids, s)
    assert trec._tie_break(run, keep, codes, "id_desc:float32")[1].tolist() == FROZEN["id_desc"]
    # 0.1 and 0.1 + 1e-12 differ as doubles, not as floats: tied (by id) only when read as float32
    close = s.copy()
    close[3] = 0.9 + 1e-12
    double = trec._tie_break(_run(ids, close), keep, codes, "trec_eval")[1]
    single = trec._tie_break(_run(ids, close), keep, codes, "id_desc:float32")[1]
    assert double[:2].tolist() == [3, 2] and single[:2].tolist() == [2, 3]  # d27 > d15 as text
    keys = (y.astype(float), (y > 0).astype(float), np.ones(len(y)))
    for rule in ("worst", "best"):
        assert y[trec._tie_break(run, keep, codes, rule, keys)[1]].tolist() == FROZEN_Y[rule]


def test_one_set_of_names():
    """Every name a user types or a dialect's policy says is an order of the module (or perfeval's
    expectation over the orders, or torchmetrics' unspecified one)."""
    from perfeval.dialects.table import DIALECTS, ORDER_TEXT

    assert set(orders.ALIASES.values()) <= set(orders.ORDERS)
    assert {orders.order_name(t) for t in trec.TIES} - {"perfeval"} <= set(orders.ORDERS)
    policies = {p.ties for d in DIALECTS.values() for p in d.policies.values()}
    assert policies - {"perfeval", "unspecified"} <= set(orders.ORDERS)
    assert set(ORDER_TEXT) - {"perfeval", "unspecified"} <= set(orders.ORDERS)


def test_the_dialect_and_trec_give_one_order_for_document_ids(data):
    """trec_eval's order by document id: the dialects compare the ids as text, trec their codes in
    the sorted vocabulary; one order (string ids and integer ids compared as their text)."""
    codes, s, ids, _y = data
    keep = np.ones(len(s), dtype=bool)
    by_text = orders.tie_order(codes, s, "id_desc", ids=ids)
    assert trec._tie_break(_run(ids, s), keep, codes, "trec_eval")[1].tolist() == by_text.tolist()
    numbers = np.array([int(i[1:]) * 7 for i in IDS])  # compared as text: "98" > "126"
    as_text = np.array([str(v) for v in numbers])
    assert orders.tie_order(codes, s, "id_desc", ids=numbers).tolist() == (
        orders.tie_order(codes, s, "id_desc", ids=as_text).tolist()
    )
