"""Build the compiled kernels of the classic dialect (see src/perfeval/_x87.c for why they are C)."""
from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "perfeval._x87",
            sources=["src/perfeval/_x87.c"],
            # IEEE arithmetic exactly as written: no contraction into FMA, no fast-math reassociation;
            # `long double` is the x87 80-bit format the original computed in.
            extra_compile_args=["-O2", "-ffp-contract=off", "-fno-fast-math", "-std=gnu99", "-pthread", "-Wall"],
            libraries=["m"],
            extra_link_args=["-pthread"],
        )
    ]
)
