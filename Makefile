# bloomlab -- `make` builds, runs the default experiments, draws the plots and
# writes results/REPORT.md; `make test` builds and passes every test, also
# under AddressSanitizer and UndefinedBehaviorSanitizer.  Both install what
# is missing first (scripts/deps.sh).
#
# Pattern rules give caching: a result reruns only when its experiment file
# or the binary is newer; `make -j` runs independent experiments at once.

CC      := gcc
PKGS    := libxxhash libmurmurhash inih glib-2.0
WARN    := -std=c11 -Wall -Wextra -Wpedantic -Werror
# `=`, not `:=`: pkg-config runs after deps.sh has installed the packages.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS))
PKG_LIBS   = $(shell pkg-config --libs $(PKGS))
GIT_REV := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
CFLAGS  = $(WARN) -O2 -g -fopenmp -MMD -MP $(PKG_CFLAGS) -DBLOOMLAB_GIT='"$(GIT_REV)"'
LDLIBS  = $(PKG_LIBS) -lz -lm -ldl
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
PYTHON  := /usr/bin/python3
SCALE   ?= quick
THREADS ?= $(shell nproc)

SRC       := $(wildcard src/*.c)
LIB_SRC   := $(filter-out src/main.c,$(SRC))
TEST_SRC  := $(wildcard tests/test_*.c)
OBJ       := $(SRC:src/%.c=build/obj/%.o)
LIB_OBJ   := $(LIB_SRC:src/%.c=build/obj/%.o)
TEST_OBJ  := $(TEST_SRC:tests/%.c=build/obj/tests/%.o)
ASAN_OBJ  := $(SRC:src/%.c=build/asan/%.o)
ASAN_LIB  := $(LIB_SRC:src/%.c=build/asan/%.o)
ASAN_TEST := $(TEST_SRC:tests/%.c=build/asan/tests/%.o)

EXPERIMENTS := $(basename $(notdir $(wildcard experiments/*.ini)))
# bench is `make bench`, not part of the default run
DEFAULT_EXP := $(filter-out bench,$(EXPERIMENTS))
RESULTS     := $(DEFAULT_EXP:%=results/%.csv) results/seed64.csv
PLOTS       := $(patsubst plots/%.gp,plots/%.png,$(filter-out plots/bench.gp,$(wildcard plots/*.gp)))

.PHONY: all deps build test unit asan-test results plots report full bench clean fuzz
.DELETE_ON_ERROR:

all: build results plots report

deps:
	@sh scripts/deps.sh

build: bin/bloomlab

bin/bloomlab: $(OBJ) | deps
	@mkdir -p bin
	$(CC) $(CFLAGS) -o $@ $(OBJ) $(LDLIBS)

build/obj/%.o: src/%.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

build/obj/tests/%.o: tests/%.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -D_GNU_SOURCE -Isrc -c -o $@ $<

build/asan/%.o: src/%.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -O1 $(SANFLAGS) -c -o $@ $<

build/asan/tests/%.o: tests/%.c | deps
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -O1 $(SANFLAGS) -D_GNU_SOURCE -Isrc -c -o $@ $<

bin/tests: $(TEST_OBJ) $(LIB_OBJ) | deps
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -lcriterion

build/asan/bloomlab: $(ASAN_OBJ)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(LDLIBS)

build/asan/bloomlab-tests: $(ASAN_TEST) $(ASAN_LIB)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(LDLIBS) -lcriterion

build/theory_ref.csv: scripts/theory_ref.py | deps
	@mkdir -p build
	$(PYTHON) scripts/theory_ref.py > $@.tmp && mv $@.tmp $@

build/plugin_example.so: examples/plugin_hash.c
	@mkdir -p build
	$(CC) $(WARN) -O2 -shared -fPIC -o $@ $<

TEST_INPUTS := bin/bloomlab bin/tests build/theory_ref.csv build/plugin_example.so

# The suite runs twice: optimised, then the sanitizer build (whose CLI tests
# run the sanitizer binary too).  Criterion's -j2 uses both cores.
test: deps $(TEST_INPUTS) build/asan/bloomlab build/asan/bloomlab-tests
	./bin/tests -j2
	ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
	  BLOOMLAB=build/asan/bloomlab ./build/asan/bloomlab-tests -j2

unit: deps $(TEST_INPUTS)
	./bin/tests -j2

results/seed64.csv: bin/bloomlab
	./bin/bloomlab demo --table > $@.tmp && mv $@.tmp $@

# The lecture's memory figure: RSS of a GHashTable of URLs against the filter.
results/memory.csv: bin/bloomlab
	./bin/bloomlab memory -o $@

# The course page's run is drawn against its distribution over word sets.
plots/seed64.png: results/seed64_words.csv

results/%.csv: experiments/%.ini bin/bloomlab
	./bin/bloomlab run $< -o $@ --scale $(SCALE) --threads $(THREADS)

results: $(RESULTS)

plots/%.png: plots/%.gp results/%.csv
	cd plots && gnuplot $*.gp

plots: $(PLOTS)

results/REPORT.md: $(RESULTS) $(PLOTS) scripts/report.py scripts/report_hashes.py
	$(PYTHON) scripts/report.py results > $@.tmp && mv $@.tmp $@

report: $(if $(wildcard scripts/report.py),results/REPORT.md)

# The full scale: larger trial counts and the billion-URL crawler, into
# results/full/; the report then includes those rows too.
FULL_RESULTS := $(DEFAULT_EXP:%=results/full/%.csv)

results/full/%.csv: experiments/%.ini bin/bloomlab
	@mkdir -p results/full
	./bin/bloomlab run $< -o $@ --scale full --threads $(THREADS)

full: $(FULL_RESULTS)
	$(MAKE) all
	$(PYTHON) scripts/report.py results > results/REPORT.md.tmp && mv results/REPORT.md.tmp results/REPORT.md

# Speed lives here, never in the tests.
bench: bin/bloomlab
	sh scripts/bench.sh

# libFuzzer harnesses (clang); bounded time per harness: FUZZ_SECONDS.
fuzz: deps
	$(MAKE) -f tests/fuzz/fuzz.mk

clean:
	rm -rf bin build

-include $(OBJ:.o=.d) $(TEST_OBJ:.o=.d) $(ASAN_OBJ:.o=.d) $(ASAN_TEST:.o=.d)
