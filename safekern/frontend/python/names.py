"""Names of the generated code. Every one starts with PREFIX, which user code may not use."""

PREFIX = "_sk_"
FB = "_sk_fb"            # the device's failure buffer (int64[16]); device functions' parameter
FB_ADDRESS = "_sk_fbp"   # kernels' hidden parameter: the buffer's address (a scalar launches
                         # faster than an array argument); the prelude makes it an array
BUFFER = "_sk_buffer"    # _sk_buffer(address) -> int64[16] array
FLAG = "_sk_flag"        # per-thread failure flag (a 1-element local int32 array)
CHAIN = "_sk_cs"         # device functions that check: the call chain, an int64 (call_chain.py)
FLAG_ARRAY = "_sk_flag_array"   # _sk_flag_array() -> that array (not named as the user's
                                # cuda.local arrays are in numba's LLVM)
FLAG_BLOCK = 2           # flag value set at a barrier: the whole block knows of a failure (1:
                         # this thread's own check failed); every thread of the block agrees
LOAD = "_sk_load"        # _sk_load(array, index, code, fb, flag) -> array[index]
LOADV = "_sk_loadv"      # the same, for loads in loops: no branch before the load
STORE = "_sk_store"      # _sk_store(array, index, value, code, fb, flag)
PUT = "_sk_put"          # _sk_put(array, index, value, flag): a proven store, if flag is clear
ATOMIC = "_sk_atomic_"   # _sk_atomic_<op>(array, index, *values, code, fb, flag)
EXIT = "_exit"           # appended to a load, store or atomic helper's name: its failure ends
                         # the thread (exit_mode.py: checks in loops that store)
SKIP = "_sk_skip"        # _sk_skip(fb): count a skipped launch (one thread per launch)
CUDA = "_sk_cuda"        # numba.cuda (or the simulator's), bound by the backend
INT32 = "_sk_int32"
INT64 = "_sk_int64"      # a kernel's call chain argument, `_sk_int64(id)`: an int64, not a
                         # literal, whose every value numba would type (and compile) apart
WITHIN = "_sk_within"    # _sk_within(x, index): x[index] is in bounds (body_versioning.py)
EXTENT = "_sk_extent"    # _sk_extent(x, axis): x.shape[axis] for an array, else -1
SLICE = "_sk_slice"      # builtins.slice
DEVICE = "_sk_dev"       # _sk_dev<n>: a checked device function called from this function
GRID_PARITY = "_sk_gp"   # 0/1, flipped at each grid sync: which buffer slot the sync uses
TEMP = "_sk_t"           # temporaries that keep evaluation order and evaluate once
COLD = "_sk_cold"        # _sk_cold(): first statement of a versioned loop's checked copy as
                         # compiled (cold_loops.py): numba-cuda keeps that loop rolled
COLD_LOOP = "_sk_cold_loop"   # the attribute versioning.py sets on that copy's For node
COLD_BODY = "_sk_cold_body"   # the one body_versioning.py sets on a versioned body's If

FAIL = "_sk_fail"        # _sk_fail(code, v0, v1, v2, fb, flag): an assert or raise failed
DIVIDE = "_sk_div_"      # _sk_div_<floordiv|mod|truediv>[_any](a, b, code, fb, flag)

CHECK_HELPERS = (LOAD, STORE, ATOMIC, DEVICE, FAIL, DIVIDE)
