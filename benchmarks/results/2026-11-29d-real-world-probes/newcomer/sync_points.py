import sys, numpy as np
from numba import cuda
import safekern
from k1_numba import prefix_naive, block_sum, madd

a = np.arange(64, dtype=np.float32)
da = cuda.to_device(a)
out = cuda.device_array(64, np.float32)

def attempt(label, fn):
    try:
        r = fn()
        print(f"[{label}] no error, returned {type(r).__name__}")
    except safekern.BoundsError as e:
        print(f"[{label}] BoundsError at {e.filename}:{e.lineno} skipped={e.skipped_launches}")
    except Exception as e:
        print(f"[{label}] OTHER {type(e).__name__}: {e}")

prefix_naive[2, 32](out, da); attempt("cuda.synchronize", cuda.synchronize)
s = cuda.stream(); prefix_naive[2, 32, s](out, da); attempt("stream.synchronize", s.synchronize)
ev = cuda.event(); prefix_naive[2, 32](out, da); ev.record(); attempt("event.synchronize", ev.synchronize)
hout = np.zeros(64, np.float32)
attempt("host numpy launch", lambda: prefix_naive[2, 32](hout, a))
prefix_naive[2, 32](out, da); prefix_naive[2, 32](out, da); prefix_naive[2, 32](out, da)
attempt("sync after 3 launches", safekern.sync)
attempt("sync when clean", safekern.sync)
# copy_to_host with a stream
prefix_naive[2, 32](out, da); attempt("copy_to_host(stream)", lambda: out.copy_to_host(stream=s))
# device_array.copy_to_host into existing array
prefix_naive[2, 32](out, da); attempt("copy_to_host(ary)", lambda: out.copy_to_host(np.empty(64, np.float32)))
# indexing a device array (implicit D->H)
prefix_naive[2, 32](out, da); attempt("out[3] getitem", lambda: out[3])
prefix_naive[2, 32](out, da); attempt("np.asarray(out)", lambda: np.asarray(out))
safekern.sync() if False else None
try: safekern.sync()
except Exception as e: print("drained", type(e).__name__)

# block size larger than the shared tile
part = cuda.device_array(4, np.float32)
block_sum[4, 256](part, cuda.to_device(np.ones(1000, np.float32)))
attempt("block_sum 256 threads, tile 128", safekern.sync)

# 2-D error: wrong-shaped b
c = cuda.device_array((40, 50), np.float32)
madd[(3, 4), (16, 16)](c, cuda.to_device(np.ones((40, 50), np.float32)), cuda.to_device(np.ones((40, 49), np.float32)))
try: safekern.sync()
except safekern.BoundsError as e: print(e)
# pending at exit
prefix_naive[2, 32](out, da)
print("exiting with pending failure")
