# perfeval: `make demo` (set up .venv with what the demo needs, then show the commands on the sample
# files shipped in the package) and `make test` (the test extra, then the whole suite).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# the official KDD Cup 2004 sample files and a recommender-style log, shipped in the package
SAMPLES ?= src/perfeval/data
DEMO   ?= demo-output

.PHONY: demo test docs report-sample report-slices bench fuzz cwarn sanitize clean

NATIVE := $(sort $(wildcard csrc/*.c csrc/*.h))
SOURCES := pyproject.toml setup.py $(NATIVE)

# the package with plots, Parquet and progress bars: what `make demo` needs (a stamp each, so each installs once);
# the venv's setuptools raised to pyproject's build requirement, so that `python setup.py build_ext --inplace`
# works in it as pip's isolated build does (Python 3.11's bundled 65.x refuses `license = "MIT"`)
$(VENV)/.demo: $(SOURCES)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip 'setuptools>=77'
	$(BIN)/python -m pip install --quiet -e '.[plot,parquet,progress]'
	@touch $@

# the test extra (scikit-learn, pytrec_eval, ranx, hypothesis, ruff, mypy, ... and the demo's plots and
# Parquet: so it stands for the demo's install too)
$(VENV)/.test: $(SOURCES)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip 'setuptools>=77'
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $@ $(VENV)/.demo

$(BIN)/perf: $(VENV)/.test

demo: $(VENV)/.demo
	@test -d $(SAMPLES) || { echo "the sample files are not in $(SAMPLES) (set SAMPLES=...)"; exit 1; }
	@mkdir -p $(DEMO)
	@echo "== perf -roc -apr -rms -acc < testperfdata    (the classic command: PERF 5.12, byte for byte)"
	@$(BIN)/perf -roc -apr -rms -acc < $(SAMPLES)/testperfdata
	@echo; echo "== perf < phy_perf_sample_test.dat | head -8    (its full report on the KDD Cup 2004 sample)"
	@$(BIN)/perf < $(SAMPLES)/phy_perf_sample_test.dat | head -8
	@echo; echo "== perfeval eval clicks.csv --target click --score model_a,model_b --group user -m gauc,roc,logloss"
	@$(BIN)/perfeval eval $(SAMPLES)/clicks.csv --target click --score model_a,model_b --group user \
	  -m gauc,roc,logloss
	@echo; echo "== perfeval eval clicks.csv --target grade --score model_a,model_b --group user -m ndcg@10,map,mrr"
	@$(BIN)/perfeval eval $(SAMPLES)/clicks.csv --target grade --score model_a,model_b --group user \
	  -m ndcg@10,map,mrr
	@echo; echo "== perfeval eval clicks.csv --target click --score model_b -m roc,apr --ci 0.95    (a bootstrap interval)"
	@$(BIN)/perfeval eval $(SAMPLES)/clicks.csv --target click --score model_b -m roc,apr --ci 0.95
	@echo; echo "== perfeval compare clicks.csv --target click --score model_a,model_b -m roc,logloss"
	@$(BIN)/perfeval compare $(SAMPLES)/clicks.csv --target click --score model_a,model_b -m roc,logloss
	@echo; echo "== perfeval report clicks.csv --target click --score model_a,model_b --group user -m roc,apr,logloss,gauc -o $(DEMO)/report.html"
	@$(BIN)/perfeval report $(SAMPLES)/clicks.csv --target click --score model_a,model_b --group user \
	  -m roc,apr,logloss,gauc -o $(DEMO)/report.html
	@echo; echo "Open $(DEMO)/report.html in a browser.  The commands are in $(BIN): source $(BIN)/activate"

test: $(VENV)/.test
	$(BIN)/python -m pytest -q

docs: $(BIN)/perf
	$(BIN)/perfeval list-measures --format markdown > docs/measures.md

# the docs' sample report and its screenshot (docs/plots.md): the clicks table of tests/test_report_html.py
# written by pandas, the report, then the browser test on that page, which saves the screenshot
report-sample: $(BIN)/perf
	$(BIN)/python -c "import sys; sys.path.insert(0, 'tests'); from test_report_html import clicks_frame; \
	  clicks_frame().to_csv('docs/sample-models.csv', index=False)"
	$(BIN)/perfeval report docs/sample-models.csv --target clicked --score model_a,model_b,model_c \
	  --group user_id -m roc,apr,ap,acc,prf,logloss,brier,gauc,ndcg@10 -o docs/sample-report.html
	PERFEVAL_REPORT_PAGE=docs/sample-report.html PERFEVAL_REPORT_SCREENSHOT=docs/report-screenshot.png \
	  $(BIN)/python -m pytest -q -p no:cacheprovider tests/test_report_browser.py
	# the README's picture: the measures table and the first row of plots, cut from the screenshot (the
	# rows are where the sample page puts them: look at docs/readme-report.png after a layout change)
	$(BIN)/python -c "from PIL import Image; im = Image.open('docs/report-screenshot.png'); \
	  a, b = im.crop((0, 530, 1280, 1028)), im.crop((0, 2709, 1280, 3313)); \
	  out = Image.new('RGB', (1280, a.size[1] + b.size[1] + 16), 'white'); out.paste(a, (0, 0)); \
	  out.paste(b, (0, a.size[1] + 16)); out.save('docs/readme-report.png', optimize=True)"
	# both pictures as 256-colour palettes (the page is a few flat colours: 1 MB -> 0.4 MB, no visible change)
	$(BIN)/python -c "from PIL import Image; [Image.open(p).convert('RGB').quantize(256, \
	  method=Image.Quantize.MEDIANCUT).save(p, optimize=True) for p in ('docs/report-screenshot.png', \
	  'docs/readme-report.png')]"

# the report's slices section of docs/slices.md's sample, as headless Chromium draws it
report-slices: $(BIN)/perf
	cd docs/examples/slices && $(CURDIR)/$(BIN)/perfeval report applicants.csv --target repaid --score score \
	  --by region --min-size 50 -m roc,ap,acc,selrate --ci 0.95 -o /tmp/perfeval-report-slices.html
	$(BIN)/python docs/examples/slices/screenshot.py /tmp/perfeval-report-slices.html docs/images/report-slices.png

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
SANITIZE_TESTS := tests/test_kernels.py tests/test_csv_fast_path.py tests/test_ranking_kernels.py tests/test_summary_sums.py tests/test_bootstrap.py tests/test_replicate_plans.py tests/test_contest.py tests/test_delong.py \
                  tests/test_summaries.py tests/test_measures_reference.py tests/test_stream_spill.py \
                  tests/test_class_kernels.py tests/test_multiclass_groups.py tests/test_calibration_kernels.py tests/test_golden.py
sanitize: $(BIN)/perf
	PERFEVAL_SANITIZE=1 $(BIN)/python -m pip install --quiet --no-deps -e .
	nm -D --undefined-only src/perfeval/_native.*.so | grep -q __asan_ || { echo "not a sanitizer build"; exit 1; }
	LD_PRELOAD="$$(gcc -print-file-name=libasan.so) $$(gcc -print-file-name=libubsan.so)" \
	ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  $(BIN)/python -m pytest -q -p no:cacheprovider -k "not postgresql" $(SANITIZE_TESTS); \
	status=$$?; $(BIN)/python -m pip install --quiet --no-deps -e . && exit $$status

clean:
	rm -rf $(VENV) $(DEMO) build src/*.egg-info src/perfeval/*.so .pytest_cache .hypothesis
