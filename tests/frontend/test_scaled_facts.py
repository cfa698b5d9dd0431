"""Facts used several times (linear.scale_for): `16 * by` in an index needs the fact
`by <= gridDim.x - 1` sixteen times, statically and at launch; `blockIdx.k * blockDim.k +
threadIdx.k` is cuda.grid's position; a pure index of an augmented assignment is proven like the
plain assignment's. Launches that hold and break these predicates:
tests/numba/test_scaled_launch_facts.py."""
from safekern.frontend.python.linear import Fact, Form, combination_rest, scale_for
from tests.support.rewrites import rewrite


def sites(tmp_path, body):
    rw = rewrite(tmp_path, body, launch_predicates=True)
    return {(s.text, str(s.status), s.predicate) for s in rw.sites if s.array}, rw


def test_a_block_offset_is_proven_at_launch(tmp_path):
    found, _ = sites(tmp_path, """
        def k(a, out):
            by = cuda.blockIdx.x
            ty = cuda.threadIdx.y
            row = TILE * by + ty + 1
            out[0] = a[row]
    """)
    assert ("a[row]", "proven at launch",
            "a.shape[0] + 15 >= blockDim.y + 16 * gridDim.x") in found


def test_a_scaled_block_index_alone(tmp_path):
    found, _ = sites(tmp_path, """
        def k(a, out):
            out[0] = a[2 * cuda.blockIdx.x]
    """)
    assert ("a[2 * cuda.blockIdx.x]", "proven at launch",
            "a.shape[0] + 1 >= 2 * gridDim.x") in found


def test_a_scaled_index_statically():
    """`2 * i` under `0 <= i < n` with an array of 2 * n elements: from the source alone."""
    from safekern.frontend.python.linear import Atoms, Prover

    atoms = Atoms()
    i, n, ext = ("name", "i"), ("name", "n"), ("shape", "a", 0)
    for atom in (i, n, ext):
        atoms.add(atom, integer=True)
    facts = [Fact(Form.of({i: 1}), frozenset()),                     # i >= 0
             Fact(Form.of({n: 1, i: -1}, -1), frozenset()),          # n - i - 1 >= 0
             Fact(Form.of({ext: 1, n: -2}), frozenset())]            # a.shape[0] - 2 n >= 0
    prover = Prover(atoms)
    assert prover.in_bounds(Form.of({i: 2}), Form.of({ext: 1}), facts) is not None
    assert prover.in_bounds(Form.of({i: 2}, 1), Form.of({ext: 1}), facts) is not None
    assert prover.in_bounds(Form.of({i: 2}, 2), Form.of({ext: 1}), facts) is None


def test_a_scale_that_does_not_divide_proves_nothing(tmp_path):
    """`3 * i` under `2 * i < a.shape[0]` (i a loaded value): no integer multiple of the fact
    cancels i, and no launch fact bounds i: checked."""
    found, _ = sites(tmp_path, """
        def k(a, idx):
            i = idx[0]
            if i >= 0 and 2 * i < a.shape[0]:
                a[3 * i] = 1.0
    """)
    assert ("a[3 * i]", "checked", None) in found or \
        any(text == "a[3 * i]" and status == "checked" for text, status, _ in found), found


def test_an_augmented_assignment_with_a_pure_index_is_proven(tmp_path):
    found, rw = sites(tmp_path, """
        def k(w, out):
            by = cuda.blockIdx.x
            row = TILE * by + cuda.threadIdx.y + 1
            col = cuda.threadIdx.x + 1
            w[row, col] += 1.0
            w[0, col] += 2.0
    """)
    statuses = {status for _, status, _ in found}
    assert statuses == {"proven at launch"}, found
    assert "_sk_t0 =" not in rw.source


def test_scale_for_cancels_only_by_a_positive_integer():
    by, g = ("cuda", "blockIdx", "x"), ("cuda", "gridDim", "x")
    fact = Fact(Form.of({g: 1, by: -1}, -1), frozenset())        # gridDim.x - by - 1 >= 0
    goal = Form.of({("shape", "a", 0): 1, by: -16}, -1)          # a.shape[0] - 16 by - 1
    assert scale_for(goal, fact) == 16
    rest = combination_rest(goal, [fact])
    assert rest.coeff(by) == 0 and rest.coeff(g) == -16
    assert scale_for(Form.of({by: 16}), fact) == 1               # would need k = -16: not
    assert scale_for(Form.of({by: -3}), Fact(Form.of({by: -2}), frozenset())) == 1


def test_the_explicit_grid_position_is_cuda_grid(tmp_path):
    """`blockIdx.k * blockDim.k + threadIdx.k`, in any order and through names, is bounded by
    the grid's size as `cuda.grid` is; mixed axes are not."""
    found, _ = sites(tmp_path, """
        def k(a, b, c, d):
            bx = cuda.blockIdx.x
            i = bx * cuda.blockDim.x + cuda.threadIdx.x
            a[i] = 1.0
            b[cuda.threadIdx.y + cuda.blockDim.y * cuda.blockIdx.y] = 1.0
            c[cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.y] = 1.0
            if i < d.shape[0]:
                d[i] = 1.0
    """)
    assert ("a[i]", "proven at launch", "a.shape[0] >= cuda.gridsize(1)") in found
    assert ("b[cuda.threadIdx.y + cuda.blockDim.y * cuda.blockIdx.y]", "proven at launch",
            "b.shape[0] >= cuda.gridsize(2)[1]") in found
    assert any(t.startswith("c[") and s == "checked" for t, s, _ in found), found
    assert ("d[i]", "eliminated", None) in found or \
        any(t == "d[i]" and s == "eliminated" for t, s, _ in found), found
