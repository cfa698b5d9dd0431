from k1_numba import *
print(matmul.check_report())
print(block_sum.check_report())
e = prefix_naive.check_report()[0]; print(e["col"], e.col, e)
