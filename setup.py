"""Build perfeval's compiled kernels, the extension module ``perfeval._native``, from csrc/*.c.

One module holds every kernel: the classic ``perf`` command's (PERF 5.12's x87 80-bit arithmetic, its
reader and its quicksort) and the modern engine's (float64 summaries, orders, resampling, the
CSV/TSV, TREC and competition readers).  csrc/native.h says why they are C.
"""

import os
from glob import glob

from setuptools import Extension, setup

NATIVE = "csrc"
# IEEE arithmetic exactly as written: no contraction into FMA, no fast-math reassociation;
# `long double` is the x87 80-bit format the original computed in.
FLAGS = ["-O2", "-ffp-contract=off", "-fno-fast-math", "-std=gnu99", "-pthread", "-Wall"]
# PERFEVAL_SANITIZE=1 (`make sanitize`): an AddressSanitizer + UBSan build, for the tests only
SANITIZE = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-g"]
if not os.environ.get("PERFEVAL_SANITIZE"):
    SANITIZE = []

setup(
    ext_modules=[
        Extension(
            "perfeval._native",
            sources=sorted(glob(f"{NATIVE}/*.c")),
            depends=sorted(glob(f"{NATIVE}/*.h")),
            extra_compile_args=FLAGS + SANITIZE,
            libraries=["m"],
            extra_link_args=["-pthread"] + SANITIZE,
        )
    ]
)
