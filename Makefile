# bloomlab -- `make` builds, runs the default experiments, draws the plots and
# writes results/REPORT.md; `make test` builds and passes every test, also
# under AddressSanitizer and UndefinedBehaviorSanitizer.  Both install what
# is missing first (scripts/deps.sh).
#
# Conventions: CC, CFLAGS, CPPFLAGS, LDFLAGS and LDLIBS from the environment
# or the command line are honoured; what the build needs (C11, OpenMP, the
# libraries, the warnings) is added to them, never replaced by them.
# -Werror belongs to the project's own tests (`make test`, `make unit`, CI),
# not to a user's `make`.  Objects remember the flags they were built with
# (build/flags): a change of compiler or flags rebuilds them.
#
# Committed results are remade only when something that decides their bytes
# changed: each results/*.csv records the fingerprint of its inputs
# (experiment file, key files, seed, scale, the code's results version in
# src/base/version.h) and `bloomlab run` leaves a result whose fingerprint
# matches untouched; figures and the report record the digest of the bytes
# they were drawn from (plots/NAME.inputs, results/REPORT.inputs, through
# scripts/fresh.sh).  A fresh clone's `make` so leaves `git status` clean.

ifeq ($(origin CC),default)
CC := gcc
endif
CFLAGS   ?= -O2 -g
PYTHON   := /usr/bin/python3
SCALE    ?= quick
THREADS  ?= $(shell nproc)

PKGS     := libxxhash libmurmurhash inih glib-2.0
WARN     := -Wall -Wextra -Wpedantic
ifneq ($(filter test unit,$(MAKECMDGOALS)),)
WERROR   ?= -Werror
endif
# `=`, not `:=`: pkg-config runs after deps.sh has installed the packages.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   = $(shell pkg-config --libs $(PKGS))
BL_CFLAGS  = -std=c11 $(WARN) $(WERROR) -fopenmp -Isrc -Iinclude $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS)
BL_LDLIBS  = $(PKG_LIBS) -lz -lm -ldl $(LDLIBS)
GIT_REV   := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
SANFLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

# The vector loops' files, each compiled for its instruction set alone
# (src/base/cpu.h chooses at run time whether they run); off x86 they compile
# empty and nothing calls them.
ifneq ($(filter x86_64% i386% i486% i586% i686%,$(shell $(CC) -dumpmachine 2>/dev/null)),)
ISA_FLAGS_avx512 := -mavx512f -mavx512dq -mavx512vl -mavx2 -mbmi2
ISA_FLAGS_avx2 := -mavx2 -mbmi2 -mfma
endif

SRC       := $(wildcard src/*/*.c)
LIB_SRC   := $(filter-out src/commands/main.c,$(SRC))
TEST_SRC  := $(wildcard tests/test_*.c)
OBJ       := $(SRC:src/%.c=build/obj/%.o)
LIB_OBJ   := $(LIB_SRC:src/%.c=build/obj/%.o)
TEST_OBJ  := $(TEST_SRC:tests/%.c=build/obj/tests/%.o)
ASAN_OBJ  := $(SRC:src/%.c=build/asan/%.o)
ASAN_LIB  := $(LIB_SRC:src/%.c=build/asan/%.o)
ASAN_TEST := $(TEST_SRC:tests/%.c=build/asan/tests/%.o)

# libbloomlab (include/bloomlab/bloomlab.h): the filter layer and the model
# that sizes it, the loops bloomlab measures, and nothing of the tool (no
# OpenMP, CLI, inih, GLib or plugin loader).  Its objects are compiled
# apart (build/pic/: position-independent, symbols hidden unless the API
# marks them), so that the shared library exports the API alone.
# Its modules: the api, model, filter and base layers (scripts/layers.sh:
# none of them reaches the harness), less the plugin loaders (dlopen, the
# crash guard) and the git revision, which are the tool's.
LIBBL_LEFT_OUT := filter/filter_plugin base/hash_plugin base/plugin_load base/guard base/version
LIBBL_MODULES := $(filter-out $(LIBBL_LEFT_OUT),$(patsubst src/%.c,%,$(wildcard $(foreach l,api model filter base,src/$(l)/*.c))))
LIBBL_PIC     := $(LIBBL_MODULES:%=build/pic/%.o)
LIBBL_CFLAGS   = $(filter-out -fopenmp,$(BL_CFLAGS)) -fPIC -fvisibility=hidden
# What a program linking libbloomlab.a needs besides (also the .pc's Libs.private).
LIBBL_LDLIBS   = $(strip $(shell pkg-config --libs libxxhash libmurmurhash)) -lz -lm
LIBBL_SONAME  := libbloomlab.so.0
LIBBL_FILES   := lib/libbloomlab.a lib/$(LIBBL_SONAME) lib/libbloomlab.so
OBJCOPY       ?= objcopy

EXPERIMENTS := $(basename $(notdir $(wildcard experiments/*.ini)))
# bench is `make bench`, not part of the default run; generic.gp draws the
# pages' figures (bloomlab report) and check.gp bloomlab check's, not figures of their own
# Real libraries as filter plugins (adapters/), each built when its Debian
# package's header is here: libbloom-dev (bloom.h), libleveldb-dev
# (leveldb/filter_policy.h).  peer_libraries measures them and is left out of
# the default run unless both are built.
ADAPTER_INCLUDE ?= /usr/include
ADAPTER_LIBBLOOM := $(if $(wildcard $(ADAPTER_INCLUDE)/bloom.h),build/adapters/libbloom.so)
ADAPTER_LEVELDB  := $(if $(wildcard $(ADAPTER_INCLUDE)/leveldb/filter_policy.h),build/adapters/leveldb.so)
ADAPTERS := $(strip $(ADAPTER_LIBBLOOM) $(ADAPTER_LEVELDB))
DEFAULT_EXP := $(filter-out bench $(if $(ADAPTER_LIBBLOOM),,peer_libraries) $(if $(ADAPTER_LEVELDB),,peer_libraries),$(EXPERIMENTS))
RESULTS     := $(DEFAULT_EXP:%=results/%.csv) results/seed64.csv results/memory.csv
PLOTS       := $(patsubst plots/%.gp,plots/%.png,$(filter-out plots/bench.gp plots/peers.gp plots/generic.gp plots/check.gp,$(wildcard plots/*.gp)))

.PHONY: all deps build lib test unit asan-test results plots report pages report-check check-fresh full bench \
        bench-peers loopcount onekey clean fuzz FORCE install uninstall help test-slurm adapters
.DELETE_ON_ERROR:

all: build results plots report pages

DEPS_SH ?= scripts/deps.sh
RUN_DEPS = CC='$(CC)' sh $(DEPS_SH)
deps:
	@$(RUN_DEPS)

# The packages decide what this Makefile builds (the adapters' headers
# above), and it reads them as it is parsed, before any recipe runs: on a
# fresh machine the first `make` built no adapter, and `make test` skipped
# their tests, though deps.sh had just installed their packages.  So
# deps.sh runs first, as the rule of a file the Makefile includes: GNU make
# remakes such a file before anything else and then restarts, reading the
# Makefile again with the packages in place.  Not for goals that build
# nothing, nor under -n (which would still run it, to remake the file).
# (DEPS_SH and DEPS_STAMP: tests/test_fresh.c's stand-ins.)
DEPS_STAMP ?= build/deps.mk
NO_DEPS_GOALS := clean help uninstall
ifneq ($(if $(MAKECMDGOALS),$(filter-out $(NO_DEPS_GOALS),$(MAKECMDGOALS)),all),)
ifeq ($(findstring n,$(firstword -$(MAKEFLAGS))),)
-include $(DEPS_STAMP)
endif
endif
$(DEPS_STAMP): $(DEPS_SH)
	@$(RUN_DEPS)
	@mkdir -p $(@D) && echo '# $(DEPS_SH) ran before the Makefile was read again (Makefile: deps)' > $@

build: bin/bloomlab lib adapters

lib: $(LIBBL_FILES)

# The compile and link flags, rewritten only when they change.
# Like the stamps below, a question rather than an action: `+` runs it
# under `make -n` too, so that -n does not show every object rebuilt.
build/flags: FORCE | deps
	+@mkdir -p build
	+@printf '%s\n' "$(CC) $(BL_CFLAGS) | $(LDFLAGS) $(BL_LDLIBS) | $(ISA_FLAGS_avx512) | $(ISA_FLAGS_avx2)" > $@.new
	+@if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

# The git revision, rewritten only when it changes (version.c alone uses it).
build/git_rev: FORCE
	+@mkdir -p build
	+@printf '%s\n' '$(GIT_REV)' > $@.new
	+@if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

build/obj/base/version.o build/asan/base/version.o: build/git_rev
build/obj/base/version.o build/asan/base/version.o: FILE_FLAGS = -DBLOOMLAB_GIT='"$(GIT_REV)"'

# Where `make install` puts the report's scripts, rewritten only when it
# changes (report.c alone uses it: it looks there when the binary is not in
# the source tree).
build/datadir: FORCE
	+@mkdir -p build
	+@printf '%s\n' '$(datadir)/bloomlab' > $@.new
	+@if cmp -s $@.new $@; then rm $@.new; else mv $@.new $@; fi

build/obj/commands/report.o build/asan/commands/report.o: build/datadir
build/obj/commands/report.o build/asan/commands/report.o: FILE_FLAGS = -DBLOOMLAB_DATADIR='"$(datadir)/bloomlab"'

# bench's ceiling (the machine's random-line rate, the floor of every
# speed target) is timed by loops of a few instructions a line, whose rate
# moved with where they fell against the core's 64-byte fetch blocks: a
# 16-byte shift from other files' changes slowed the independent reads
# (docs/PERFORMANCE.md, session 20).  Every loop of bench.c starts on a
# 64-byte boundary, whatever the rest of the binary.
build/obj/commands/bench.o build/asan/commands/bench.o: FILE_FLAGS = -falign-loops=64

bin/bloomlab: $(OBJ) | deps
	@mkdir -p bin
	$(CC) $(BL_CFLAGS) $(LDFLAGS) -o $@ $(OBJ) $(BL_LDLIBS)

build/obj/%.o: src/%.c build/flags | deps
	@mkdir -p $(dir $@)
	$(CC) $(BL_CFLAGS) $(ISA_FLAGS_$(notdir $*)) $(FILE_FLAGS) -MMD -MP -c -o $@ $<

build/obj/tests/%.o: tests/%.c build/flags | deps
	@mkdir -p $(dir $@)
	$(CC) $(BL_CFLAGS) -D_GNU_SOURCE -MMD -MP -c -o $@ $<

build/asan/%.o: src/%.c build/flags | deps
	@mkdir -p $(dir $@)
	$(CC) $(BL_CFLAGS) -O1 $(SANFLAGS) $(ISA_FLAGS_$(notdir $*)) $(FILE_FLAGS) -MMD -MP -c -o $@ $<

build/asan/tests/%.o: tests/%.c build/flags | deps
	@mkdir -p $(dir $@)
	$(CC) $(BL_CFLAGS) -O1 $(SANFLAGS) -D_GNU_SOURCE -MMD -MP -c -o $@ $<

build/pic/%.o: src/%.c build/flags | deps
	@mkdir -p $(dir $@)
	$(CC) $(LIBBL_CFLAGS) $(ISA_FLAGS_$(notdir $*)) -MMD -MP -c -o $@ $<

# The static library is one relocatable object whose hidden symbols are
# then made local: a program linking it sees the API alone, as with the
# shared one, and its own names (filter_init, ...) cannot clash with ours.
build/pic/libbloomlab.o: $(LIBBL_PIC)
	$(CC) -r -nostdlib -o $@.tmp $^
	$(OBJCOPY) --localize-hidden $@.tmp $@
	rm -f $@.tmp

lib/libbloomlab.a: build/pic/libbloomlab.o
	@mkdir -p lib
	rm -f $@
	$(AR) rcs $@ $<

lib/$(LIBBL_SONAME): $(LIBBL_PIC)
	@mkdir -p lib
	$(CC) $(LIBBL_CFLAGS) $(LDFLAGS) -shared -Wl,-soname,$(LIBBL_SONAME) -Wl,--no-undefined -o $@ $^ $(LIBBL_LDLIBS) $(LDLIBS)

lib/libbloomlab.so: lib/$(LIBBL_SONAME)
	ln -sf $(LIBBL_SONAME) $@

bin/tests: $(TEST_OBJ) $(LIB_OBJ) | deps
	@mkdir -p bin
	$(CC) $(BL_CFLAGS) $(LDFLAGS) -o $@ $^ $(BL_LDLIBS) -lcriterion

build/asan/bloomlab: $(ASAN_OBJ)
	$(CC) $(BL_CFLAGS) $(SANFLAGS) $(LDFLAGS) -o $@ $^ $(BL_LDLIBS)

build/asan/bloomlab-tests: $(ASAN_TEST) $(ASAN_LIB)
	$(CC) $(BL_CFLAGS) $(SANFLAGS) $(LDFLAGS) -o $@ $^ $(BL_LDLIBS) -lcriterion

build/theory_ref.csv: scripts/theory_ref.py | deps
	@mkdir -p build
	$(PYTHON) scripts/theory_ref.py > $@.tmp && mv $@.tmp $@

build/plugin_example.so: examples/plugin_hash.c include/bloomlab/plugin.h build/flags
	@mkdir -p build
	$(CC) -std=c11 $(WARN) $(WERROR) -Iinclude $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -shared -fPIC -o $@ $<

# The example filter plugin (examples/plugin_filter.c), against its header alone.
build/plugin_filter.so: examples/plugin_filter.c include/bloomlab/filter.h build/flags
	@mkdir -p build
	$(CC) -std=c11 $(WARN) $(WERROR) -Iinclude $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -shared -fPIC -o $@ $< -lm

# The adapters (a missing package: a one-line note, no failure).
adapters: $(ADAPTERS)
	@$(if $(ADAPTER_LIBBLOOM),:,echo "adapters: no $(ADAPTER_INCLUDE)/bloom.h (libbloom-dev): build/adapters/libbloom.so skipped")
	@$(if $(ADAPTER_LEVELDB),:,echo "adapters: no $(ADAPTER_INCLUDE)/leveldb/filter_policy.h (libleveldb-dev): build/adapters/leveldb.so skipped")

# An adapter's bytes are part of the inputs fingerprint of the experiments
# that load it (results/peer_libraries.csv): built without debug
# information and with the source directory mapped to ".", a fresh clone
# anywhere makes the same bytes with the same compiler, and its `make`
# finds that result current.  So the compiler and its flags are the
# adapters' own, whatever CC and CFLAGS say (gcc and g++, which deps.sh
# installs, at -O2): built by `make CC=clang`, the libbloom adapter's other
# bytes had made the committed result stale, and `make CC=clang test`
# failed on it.
ADAPTER_REPRODUCIBLE := -O2 -g0 -ffile-prefix-map=$(CURDIR)=.
ADAPTER_CC ?= gcc
ADAPTER_CXX ?= g++

build/adapters/libbloom.so: adapters/libbloom.c include/bloomlab/filter.h build/flags
	@mkdir -p build/adapters
	$(ADAPTER_CC) -std=c11 $(WARN) $(WERROR) $(ADAPTER_REPRODUCIBLE) -Iinclude $(CPPFLAGS) $(LDFLAGS) -shared -fPIC -o $@ $< -lbloom -lm

build/adapters/leveldb.so: adapters/leveldb.cc include/bloomlab/filter.h build/flags
	@mkdir -p build/adapters
	$(ADAPTER_CXX) -std=c++17 -Wall -Wextra -Werror $(ADAPTER_REPRODUCIBLE) -Iinclude $(CPPFLAGS) $(LDFLAGS) -shared -fPIC -o $@ $< -lleveldb

# The measurement tools that docs/PERFORMANCE.md's figures come from (make
# loopcount, make onekey) are built with the tests, under their -Werror, so
# that they keep compiling; onekey, an AVX2 program, on x86 alone.
PERF_TOOLS  := build/loopcount $(if $(ISA_FLAGS_avx2),build/onekey)
TEST_INPUTS := bin/bloomlab bin/tests build/theory_ref.csv build/plugin_example.so build/plugin_filter.so $(LIBBL_FILES) adapters \
               $(PERF_TOOLS)

# The batch, layout, CLI-run, shard, library and portable split block suites
# again with the vector loops off, so that the portable loops are tested on
# every machine; which loops ran in each pass is printed first (information,
# never a failure).
PORTABLE_SUITES := @(batch|layouts|cli_run|shards|library|splitblock_portable|standard_portable)/*

# The suite runs three times: optimised, the portable pass, then the
# sanitizer build (whose CLI tests run the sanitizer binary too).
# Criterion's -j2 uses both cores.
test: deps $(TEST_INPUTS) build/asan/bloomlab build/asan/bloomlab-tests
	@$(MAKE) -s --no-print-directory check-fresh
	@echo "make test: pass 1: $$(./bin/bloomlab --version | tail -n 2 | tr '\n' ' ')"
	./bin/tests -j2
	@echo "make test: pass 2: $$(BLOOMLAB_ISA=portable ./bin/bloomlab --version | tail -n 2 | tr '\n' ' ')"
	BLOOMLAB_ISA=portable ./bin/tests -j2 --filter '$(PORTABLE_SUITES)'
	@echo "make test: pass 3 (sanitizers): $$(./bin/bloomlab --version | tail -n 2 | tr '\n' ' ')"
	ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  BLOOMLAB=build/asan/bloomlab ./build/asan/bloomlab-tests -j2

unit: deps $(TEST_INPUTS)
	./bin/tests -j2

# scripts/sweep-slurm.sh carried out by a real one-node Slurm started in a
# temporary directory (Debian's slurm-wlm and munge, installed when missing
# by scripts/deps.sh slurm); needs root.  Not part of `make test`.
test-slurm: bin/bloomlab
	sh scripts/test-slurm.sh

# A result reruns only when what decides its bytes changed, never because
# bin/bloomlab is newer: its prerequisite is a stamp, build/stale/RESULT,
# that scripts/stale.sh dates like the result when the result records the
# '# inputs:' line this code computes (bloomlab run|memory --inputs), and
# dates now when it does not.  The stamp's recipe is a question, not an
# action, so it runs under `make -n` too (`+`): `touch bin/bloomlab && make
# -n plots` lists no experiment whose fingerprint is unchanged.  bin/bloomlab
# is built first (the stamp asks it) but is order-only for the result.
# (`bloomlab run` itself also leaves a current output untouched; the touch
# after it tells make the result is current either way.)
STALE := build/stale
EXP_RESULTS := $(DEFAULT_EXP:%=results/%.csv)

$(STALE)/results/seed64.csv: bin/bloomlab FORCE
	+@sh scripts/stale.sh $@ results/seed64.csv ./bin/bloomlab demo --table
results/seed64.csv: $(STALE)/results/seed64.csv | bin/bloomlab
	./bin/bloomlab demo --table > $@.tmp && if cmp -s $@.tmp $@; then rm $@.tmp; touch $@; else mv $@.tmp $@; fi

# The lecture's memory figure: RSS of a GHashTable of URLs against the filter.
$(STALE)/results/memory.csv: bin/bloomlab FORCE
	+@sh scripts/stale.sh $@ results/memory.csv ./bin/bloomlab memory --inputs
results/memory.csv: $(STALE)/results/memory.csv | bin/bloomlab
	./bin/bloomlab memory -o $@ && touch $@

# The course page's run is drawn against its distribution over word sets.
PLOT_EXTRA_seed64 := results/seed64_words.csv
plots/seed64.png: $(PLOT_EXTRA_seed64)
PLOT_EXTRA_parquet_sizing := $(wildcard results/full/parquet_sizing.csv)
plots/parquet_sizing.png: $(PLOT_EXTRA_parquet_sizing)
# The figures that load plots/columns.gpi (their awk reads the CSV's columns
# by name): it is one of what they are drawn from.
PLOTS_BY_NAME := $(shell grep -l '^load "columns.gpi"' plots/*.gp)
# What figure NAME is drawn from.
plot_inputs = plots/$(1).gp $(if $(filter plots/$(1).gp,$(PLOTS_BY_NAME)),plots/columns.gpi) results/$(1).csv $(PLOT_EXTRA_$(1))

$(STALE)/results/%.csv: experiments/%.ini bin/bloomlab FORCE
	+@sh scripts/stale.sh $@ results/$*.csv ./bin/bloomlab run $< --scale $(SCALE) --inputs
# its inputs fingerprint reads the adapters' bytes: built first
$(STALE)/results/peer_libraries.csv: $(ADAPTERS)
$(EXP_RESULTS): results/%.csv: $(STALE)/results/%.csv | bin/bloomlab
	./bin/bloomlab run experiments/$*.ini -o $@ --scale $(SCALE) --threads $(THREADS) && touch $@

results: $(RESULTS)

# A figure is redrawn only when the bytes it is drawn from changed: the check
# runs every time (FORCE), since timestamps say nothing on a fresh clone.
plots/%.png: plots/%.gp results/%.csv FORCE
	@if sh scripts/fresh.sh check plots/$*.inputs $(call plot_inputs,$*); then touch $@; else \
	  echo "cd plots && gnuplot $*.gp"; (cd plots && gnuplot $*.gp) && \
	  sh scripts/fresh.sh record plots/$*.inputs $(call plot_inputs,$*); fi

plots: $(PLOTS)

# The report also reads every other CSV that results/ holds (its provenance
# table lists them): make bench's and make bench-peers' timings and the
# full-scale results (make full).  They count in its digest, so a new one
# remakes the report, but are never remade for it.
REPORT_SOURCES := $(RESULTS) scripts/report.py scripts/report_hashes.py
REPORT_INPUTS   = $(sort $(REPORT_SOURCES) $(wildcard results/*.csv results/full/*.csv))

results/REPORT.md: $(REPORT_SOURCES) $(PLOTS) FORCE
	@if sh scripts/fresh.sh check results/REPORT.inputs $(REPORT_INPUTS); then touch $@; else \
	  echo "$(PYTHON) scripts/report.py results > $@"; \
	  $(PYTHON) scripts/report.py results > $@.tmp && mv $@.tmp $@ && \
	  sh scripts/fresh.sh record results/REPORT.inputs $(REPORT_INPUTS); fi

report: $(if $(wildcard scripts/report.py),results/REPORT.md)

# One page per experiment (`bloomlab report`: results/NAME.md and a
# self-contained results/NAME.html) and results/index.html linking them.
# Made from the CSVs as they are -- a page never reruns an experiment, so
# the CSVs are not its prerequisites but part of its digest (fresh.sh,
# build/pages/NAME.inputs) -- and not committed (.gitignore): they are
# remade byte for byte from the committed CSVs.
PAGE_SOURCES = $(REPORT_DATA)
PAGES := $(patsubst %.csv,%.html,$(filter $(EXP_RESULTS),$(wildcard results/*.csv)))

results/%.html: FORCE | bin/bloomlab
	@mkdir -p build/pages
	@if [ -f $@ ] && [ -f results/$*.md ] && \
	    sh scripts/fresh.sh check build/pages/$*.inputs results/$*.csv $(PAGE_SOURCES); then :; else \
	  echo "bloomlab report results/$*.csv"; ./bin/bloomlab report results/$*.csv > /dev/null && \
	  sh scripts/fresh.sh record build/pages/$*.inputs results/$*.csv $(PAGE_SOURCES); fi

results/index.html: $(PAGES) scripts/experiment_page.py | bin/bloomlab
	./bin/bloomlab report --index results > /dev/null

pages: results/index.html

# The pages in a real browser: headless chromium (installed by
# scripts/deps.sh browser when missing) loads each one; every figure must
# render with a non-zero size and no console message may appear.
# Screenshots: build/report-check/NAME.png.  Not part of make test (a
# browser is a large install; about a minute to run).
report-check: pages
	@sh scripts/deps.sh browser
	$(PYTHON) scripts/report_check.py results build/report-check

# The committed figures and report were drawn from the committed results
# (tests/test_fresh.c checks the results themselves); part of make test.
check-fresh:
	@status=0; \
	$(foreach p,$(PLOTS:plots/%.png=%),sh scripts/fresh.sh check plots/$(p).inputs $(call plot_inputs,$(p)) || \
	  { echo "check-fresh: plots/$(p).png was not drawn from the committed data: make plots"; status=1; };) \
	sh scripts/fresh.sh check results/REPORT.inputs $(REPORT_INPUTS) || \
	  { echo "check-fresh: results/REPORT.md was not written from the committed data: make report"; status=1; }; \
	exit $$status

# The full scale: larger trial counts and the billion-URL crawler, into
# results/full/; the report then includes those rows too.
FULL_RESULTS := $(DEFAULT_EXP:%=results/full/%.csv)

$(STALE)/results/full/%.csv: experiments/%.ini bin/bloomlab FORCE
	+@sh scripts/stale.sh $@ results/full/$*.csv ./bin/bloomlab run $< --scale full --inputs
$(FULL_RESULTS): results/full/%.csv: $(STALE)/results/full/%.csv | bin/bloomlab
	@mkdir -p results/full
	./bin/bloomlab run experiments/$*.ini -o $@ --scale full --threads $(THREADS) && touch $@

full: $(FULL_RESULTS)
	$(MAKE) all

# Speed lives here, never in the tests.
bench: bin/bloomlab
	sh scripts/bench.sh

# bloomlab against the peers kit (../shared/peers, when present) in one
# interleaved, pinned run at every vector level: results/peers.csv,
# plots/peers.png.
bench-peers: bin/bloomlab
	sh scripts/bench-peers.sh

# Instructions an insert and a query, every layout at every vector level
# (callgrind: deterministic; OLD=path/to/other/build/loopcount sets them
# beside another build's).  Not part of the tests.
loopcount: build/loopcount bin/bloomlab
	sh scripts/loopcount.sh build/loopcount $(OLD)

# One filter's loops alone, for instruction counts (scripts/loopcount.c).
build/loopcount: scripts/loopcount.c $(LIB_OBJ) | deps
	$(CC) $(BL_CFLAGS) $(LDFLAGS) -o $@ $^ $(BL_LDLIBS)

# A library user's one-key split block call taken apart, against Boost's
# per-key calls where bench-peers built its driver (scripts/onekey.c,
# onekey.sh; x86 with AVX2).  Not part of the tests.
onekey: build/onekey
	sh scripts/onekey.sh $(N) $(ROUNDS)

build/onekey: scripts/onekey.c $(LIB_OBJ) | deps
	$(CC) $(BL_CFLAGS) $(ISA_FLAGS_avx2) $(LDFLAGS) -o $@ $^ $(BL_LDLIBS)

# libFuzzer harnesses (clang); bounded time per harness: FUZZ_SECONDS.
fuzz: deps
	$(MAKE) -f tests/fuzz/fuzz.mk

# ---- install (GNU style: PREFIX, DESTDIR) -----------------------------------
PREFIX      ?= /usr/local
prefix      ?= $(PREFIX)
exec_prefix ?= $(prefix)
bindir      ?= $(exec_prefix)/bin
datadir     ?= $(prefix)/share
mandir      ?= $(datadir)/man
includedir  ?= $(prefix)/include
libdir      ?= $(exec_prefix)/lib
INSTALL     ?= install

# What `bloomlab report` runs (src/commands/report.c finds it in $(datadir)/bloomlab).
REPORT_DATA := scripts/experiment_page.py scripts/report.py scripts/report_hashes.py plots/generic.gp plots/check.gp

# Every file `make install` writes, and so every file `make uninstall` removes.
INSTALLED := $(bindir)/bloomlab $(mandir)/man1/bloomlab.1 \
             $(datadir)/bash-completion/completions/bloomlab \
             $(includedir)/bloomlab/plugin.h $(includedir)/bloomlab/filter.h $(includedir)/bloomlab/bloomlab.h \
             $(libdir)/libbloomlab.a $(libdir)/$(LIBBL_SONAME) $(libdir)/libbloomlab.so \
             $(libdir)/pkgconfig/bloomlab.pc \
             $(addprefix $(datadir)/bloomlab/,$(notdir $(REPORT_DATA)))

# The manual is made from the binary's own --help texts (scripts/manpage.sh).
build/bloomlab.1: bin/bloomlab scripts/manpage.sh
	sh scripts/manpage.sh bin/bloomlab > $@.tmp && mv $@.tmp $@

# A directory under the prefix is written ${prefix}/..., so that
# `pkg-config --define-prefix` can move the whole tree.
pc_dir = $(patsubst $(prefix)/%,$${prefix}/%,$(1))

build/bloomlab.pc: Makefile src/base/version.h FORCE
	@mkdir -p build
	@printf '%s\n' 'prefix=$(prefix)' 'includedir=$(call pc_dir,$(includedir))' 'libdir=$(call pc_dir,$(libdir))' '' \
	  'Name: bloomlab' \
	  'Description: bloomlab: libbloomlab, the Bloom filters bloomlab measures (bloomlab/bloomlab.h), the hash-plugin ABI (bloomlab/plugin.h) and the filter-plugin ABI (bloomlab/filter.h)' \
	  "Version: $$(sed -n 's/^#define BLOOMLAB_VERSION "\(.*\)"/\1/p' src/base/version.h)" \
	  'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -lbloomlab' 'Libs.private: $(LIBBL_LDLIBS)' > $@

install: bin/bloomlab build/bloomlab.1 build/bloomlab.pc $(LIBBL_FILES)
	$(INSTALL) -d $(DESTDIR)$(bindir) $(DESTDIR)$(mandir)/man1 $(DESTDIR)$(datadir)/bash-completion/completions \
	  $(DESTDIR)$(includedir)/bloomlab $(DESTDIR)$(libdir)/pkgconfig
	$(INSTALL) -m 755 bin/bloomlab $(DESTDIR)$(bindir)/bloomlab
	$(INSTALL) -m 644 build/bloomlab.1 $(DESTDIR)$(mandir)/man1/bloomlab.1
	$(INSTALL) -m 644 scripts/bloomlab-completion.bash $(DESTDIR)$(datadir)/bash-completion/completions/bloomlab
	$(INSTALL) -m 644 include/bloomlab/plugin.h $(DESTDIR)$(includedir)/bloomlab/plugin.h
	$(INSTALL) -m 644 include/bloomlab/filter.h $(DESTDIR)$(includedir)/bloomlab/filter.h
	$(INSTALL) -m 644 include/bloomlab/bloomlab.h $(DESTDIR)$(includedir)/bloomlab/bloomlab.h
	$(INSTALL) -m 644 lib/libbloomlab.a $(DESTDIR)$(libdir)/libbloomlab.a
	$(INSTALL) -m 644 lib/$(LIBBL_SONAME) $(DESTDIR)$(libdir)/$(LIBBL_SONAME)
	ln -sf $(LIBBL_SONAME) $(DESTDIR)$(libdir)/libbloomlab.so
	$(INSTALL) -m 644 build/bloomlab.pc $(DESTDIR)$(libdir)/pkgconfig/bloomlab.pc
	$(INSTALL) -d $(DESTDIR)$(datadir)/bloomlab
	$(INSTALL) -m 644 $(REPORT_DATA) $(DESTDIR)$(datadir)/bloomlab/

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(includedir)/bloomlab $(DESTDIR)$(datadir)/bloomlab 2>/dev/null

help:
	@echo "make            install what is missing, build, run the default experiments, draw the plots, write results/REPORT.md"
	@echo "make test       build and pass every test (optimised, portable loops, sanitizers); -Werror"
	@echo "make unit       the optimised test pass alone"
	@echo "make test-slurm a real one-node Slurm (slurm-wlm, munge; root): the sharded job array merged = the unsharded run"
	@echo "make build      bin/bloomlab and the library (make lib)"
	@echo "make lib        lib/libbloomlab.a and lib/libbloomlab.so.0: the filters, to embed (bloomlab/bloomlab.h)"
	@echo "make results | plots | report    one stage of the default run"
	@echo "make full       larger trial counts and the billion-URL crawler, into results/full/"
	@echo "make bench      speed against filter size (never part of the tests)"
	@echo "make bench-peers   bloomlab against the peers kit (../shared/peers, when present), interleaved, pinned"
	@echo "make loopcount     instructions an insert and a query per layout and vector level (callgrind; OLD=...)"
	@echo "make onekey        a library user's one-key split block call taken apart, beside Boost's per-key calls (N, ROUNDS)"
	@echo "make fuzz       libFuzzer harnesses for the parsers (clang; FUZZ_SECONDS)"
	@echo "make check-fresh   the committed figures and report drawn from the committed data?"
	@echo "make pages      results/NAME.md and .html per experiment (bloomlab report), results/index.html"
	@echo "make report-check  the pages in headless chromium (installed when missing): figures render, no console error"
	@echo "make install    bin, man page, bash completion, libbloomlab and its header, plugin headers (hash, filter), pkg-config file, the report's scripts (PREFIX=$(PREFIX), DESTDIR)"
	@echo "make uninstall  remove exactly what install wrote"
	@echo "make clean      remove bin/ and build/"
	@echo "Variables: CC, CFLAGS, CPPFLAGS, LDFLAGS, LDLIBS, SCALE=quick|full, THREADS, PREFIX, DESTDIR"

clean:
	rm -rf bin build lib

-include $(OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(ASAN_OBJ:.o=.d) $(ASAN_TEST:.o=.d) $(LIBBL_PIC:.o=.d)
