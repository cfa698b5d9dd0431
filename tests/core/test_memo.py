"""safekern/memo.py: the one bounded memo, and no hand-rolled one beside it."""
import ast
import os

import safekern
from safekern.memo import BoundedMemo


def test_a_full_memo_forgets_everything_and_keeps_the_new_entry():
    memo = BoundedMemo(3)
    for k in range(3):
        assert memo.put(k, k * 10) == k * 10
    memo.put(1, 11)                  # a key it holds: nothing forgotten
    assert dict(memo) == {0: 0, 1: 11, 2: 20}
    memo.put(3, 30)
    assert dict(memo) == {3: 30} and memo.get(3) == 30 and memo.get(0) is None


def test_an_lru_memo_forgets_the_least_recently_used():
    memo = BoundedMemo(3, lru=True)
    for k in range(3):
        memo.put(k, str(k))
    assert memo.recent(0) == "0"      # used: now the most recent
    memo.put(3, "3")
    assert sorted(memo) == [0, 2, 3]
    assert memo.recent(1, "gone") == "gone"
    memo.put(2, "two")                # put counts as a use too
    memo.put(4, "4")
    assert sorted(memo) == [2, 3, 4]


def _hand_rolled(tree) -> list:
    """`if len(m) >= N: m.clear()` / `while len(m) > N: m.popitem(...)`: a memo bounded by hand."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.If, ast.While)) or not isinstance(node.test, ast.Compare):
            continue
        left = node.test.left
        if not (isinstance(left, ast.Call) and getattr(left.func, "id", None) == "len"):
            continue
        target = ast.unparse(left.args[0])
        for stmt in node.body:
            call = getattr(stmt, "value", None)
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
                    call.func.attr in ("clear", "popitem") and \
                    ast.unparse(call.func.value) == target:
                found.append((node.lineno, target))
    return found


def test_no_memo_is_bounded_by_hand():
    package = os.path.dirname(safekern.__file__)
    found = {}
    for folder, _, files in os.walk(package):
        for name in files:
            if name.endswith(".py") and name != "memo.py":
                path = os.path.join(folder, name)
                hits = _hand_rolled(ast.parse(open(path).read()))
                if hits:
                    found[os.path.relpath(path, package)] = hits
    assert not found, found
