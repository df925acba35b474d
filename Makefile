# perfeval: `make demo` (set up .venv and run perf on the KDD Cup sample files) and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# the official KDD Cup 2004 sample files, shipped in the package (src/perfeval/data)
SAMPLES ?= src/perfeval/data

.PHONY: demo test docs bench fuzz cwarn sanitize clean

NATIVE := $(sort $(wildcard src/perfeval/_native/*.c src/perfeval/_native/*.h))

$(BIN)/perf: pyproject.toml setup.py $(NATIVE)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $@

demo: $(BIN)/perf
	@test -d $(SAMPLES) || { echo "the KDD Cup sample files are not in $(SAMPLES) (set SAMPLES=...)"; exit 1; }
	@for f in testperfdata phy_perf_sample_test.dat; do \
	  echo; echo "== perf < $$f   (official KDD Cup 2004 sample)"; $(BIN)/perf < $(SAMPLES)/$$f; done
	@echo; echo "== perf -blocks -apr -rkl -rms -top1 < bio_perf_sample_test.dat"
	@$(BIN)/perf -blocks -apr -rkl -rms -top1 < $(SAMPLES)/bio_perf_sample_test.dat
	@echo; echo "== perf -roc -apr -rms -plot roc < badtestperfdata | tail -4   (predictions outside [0,1])"
	@$(BIN)/perf -roc -apr -rms -plot roc < $(SAMPLES)/badtestperfdata | tail -4

test: $(BIN)/perf
	$(BIN)/python -m pytest -q

docs: $(BIN)/perf
	$(BIN)/perfeval list-measures --format markdown > docs/measures.md

bench: $(BIN)/perf
	$(BIN)/python benchmarks/bench_classic.py --perf $(BIN)/perf $(if $(ORIGINAL),--original $(ORIGINAL))

fuzz: $(BIN)/perf
	PERF_ORACLE=$(PERF_ORACLE) $(BIN)/python tests/oracle_fuzz.py --perf $(BIN)/perf --runs 2000

# the C kernels under -Wall -Wextra -Werror (setup.py builds with -Wall only, so a new compiler's warning
# cannot break a user's install)
CWARN_FLAGS := -fsyntax-only -Wall -Wextra -Werror -std=gnu99 -ffp-contract=off
cwarn:
	@pyinc=$$($(if $(wildcard $(BIN)/python),$(BIN)/python,$(PYTHON)) -c \
	  "import sysconfig; print(sysconfig.get_paths()['include'])") && \
	for f in $(filter %.c,$(NATIVE)); do \
	  echo "gcc $(CWARN_FLAGS) $$f"; gcc $(CWARN_FLAGS) -I"$$pyinc" $$f || exit 1; \
	done

# the kernel tests and the golden suite on an AddressSanitizer + UBSan build of the kernels (in place,
# PERFEVAL_SANITIZE=1), then the normal build again, also when they fail.  The preload reaches every
# child process, so the `perf` runs of the golden suite are checked too; the PostgreSQL leaderboard
# test is left out (its server does not start with the sanitizer runtimes preloaded).
SANITIZE_TESTS := tests/test_kernels.py tests/test_bootstrap.py tests/test_replicate_plans.py tests/test_contest.py tests/test_delong.py \
                  tests/test_summaries.py tests/test_measures_reference.py tests/test_stream_spill.py \
                  tests/test_golden.py
sanitize: $(BIN)/perf
	PERFEVAL_SANITIZE=1 $(BIN)/python -m pip install --quiet --no-deps -e .
	nm -D --undefined-only src/perfeval/_x87.*.so | grep -q __asan_ || { echo "not a sanitizer build"; exit 1; }
	LD_PRELOAD="$$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libubsan.so)" \
	ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  $(BIN)/python -m pytest -q -p no:cacheprovider -k "not postgresql" $(SANITIZE_TESTS); \
	status=$$?; $(BIN)/python -m pip install --quiet --no-deps -e . && exit $$status

clean:
	rm -rf $(VENV) build src/*.egg-info src/perfeval/*.so .pytest_cache .hypothesis
