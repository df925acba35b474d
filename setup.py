"""Build the compiled kernels of the classic dialect (see src/perfeval/_native/native.h for why they are C)."""
import os
from glob import glob

from setuptools import Extension, setup

NATIVE = "src/perfeval/_native"
# PERFEVAL_SANITIZE=1 (`make sanitize`): an AddressSanitizer + UndefinedBehaviorSanitizer build, for tests only
SANITIZE = ["-fsanitize=address,undefined", "-fno-omit-frame-pointer", "-g"] if os.environ.get("PERFEVAL_SANITIZE") else []

setup(
    ext_modules=[
        Extension(
            "perfeval._x87",
            sources=sorted(glob(f"{NATIVE}/*.c")),
            depends=sorted(glob(f"{NATIVE}/*.h")),
            # IEEE arithmetic exactly as written: no contraction into FMA, no fast-math reassociation;
            # `long double` is the x87 80-bit format the original computed in.
            extra_compile_args=["-O2", "-ffp-contract=off", "-fno-fast-math", "-std=gnu99", "-pthread", "-Wall"]
            + SANITIZE,
            libraries=["m"],
            extra_link_args=["-pthread"] + SANITIZE,
        )
    ]
)
