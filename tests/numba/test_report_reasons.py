"""A check report's reasons name each fact of a proof once (a newcomer's tiled matmul read `with
the loop range at line 41, the loop range at line 41`)."""
import pytest

pytestmark = pytest.mark.cudasim

TILED = '''
import safekern
from numba import cuda, float32
TPB = 16

@safekern.jit
def mm(A, B, C):
    sA = cuda.shared.array((TPB, TPB), float32)
    sB = cuda.shared.array((TPB, TPB), float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tmp = 0.0
    for i in range((A.shape[1] + TPB - 1) // TPB):
        if y < A.shape[0] and (tx + i * TPB) < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and (ty + i * TPB) < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp
'''


def test_each_fact_of_a_proof_is_named_once(kernel_module):
    report = kernel_module(TILED, "tiled_reasons").mm.check_report()
    inner = [e for e in report if e.text == "sA[ty, j]"]
    assert inner and inner[0].reason.startswith("if blockDim.y <= 16, with the loop range at "
                                                "line 20; else")
    for e in report:
        for clause in e.reason.split(";"):
            facts = [f.strip() for f in clause.split(",")]
            assert len(facts) == len(set(facts)), e.reason
