"""Rewrite and compile every source of the C corpora ($SAFEKERN_C_CORPUS, default .corpus/), no GPU.

    python tools/c_corpus_check.py [cupyx] [pyopencl] [-v]

cupyx: CUDA C sources CuPy's cupyx builds (tools/extract_cupyx_corpus.py), compiled with NVRTC
for sm_90, original and rewrite. pyopencl: the programs PyOpenCL's library builds
(tools/capture_pyopencl_corpus.py), built on the first OpenCL device (PoCL here). Prints the
outcomes (ok / refused / broken / internal / original-fails), every refusal and breakage with
its first error, and the share of access sites checked. Exit status 1 when a rewrite broke a
source that compiles.
"""
from __future__ import annotations

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests.support import c_corpus  # noqa: E402


def main(argv) -> int:
    which = [a for a in argv if not a.startswith("-")] or ["cupyx", "pyopencl"]
    bad = 0
    for corpus in which:
        if not c_corpus.present(getattr(c_corpus, corpus.upper())):
            print(f"== {corpus}: no corpus in {c_corpus.CORPUS} (make it with the tool that "
                  "tests/frontend/c_corpus_manifest.json names)")
            bad += 1
            continue
        t0 = time.time()
        results = getattr(c_corpus, f"check_{corpus}")()
        print(f"== {corpus}: {len(results)} sources, {time.time() - t0:.0f} s")
        print(c_corpus.summary(results))
        if "-v" in argv:
            for r in results:
                print(f"  {r.outcome:14} {r.name} {dict(r.statuses)} {r.message}")
        bad += sum(r.outcome in ("broken", "internal") for r in results)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
