# tests/fuzz/fuzz.mk -- libFuzzer harnesses for the parsers (`make fuzz`).
#
#   make -f tests/fuzz/fuzz.mk [FUZZ_SECONDS=60] [run|build|fuzz-numbers|...]
#
# Builds each harness with clang -fsanitize=fuzzer,address,undefined into
# build/fuzz/ and runs it for FUZZ_SECONDS with a corpus in
# build/fuzz/corpus/NAME, seeded from tests/fuzz/seeds/NAME and (for the
# experiment parser) experiments/*.ini.  A crash leaves
# build/fuzz/crash-NAME-* and fails the target (an input slower than
# -timeout leaves crash-NAME-slow-unit-* and does not); turn a crash into a
# Criterion test in tests/test_reliability.c and its input into a seed.
# libFuzzer's runtime is Debian's libclang-rt-14-dev, installed here when
# missing (the default build does not need it, so scripts/deps.sh does not).

# the run recipe reads PIPESTATUS
SHELL        := /bin/bash

CLANG        ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR     := build/fuzz
PKGS         := libxxhash libmurmurhash inih glib-2.0
FUZZ_CFLAGS   = -std=c11 -g -O1 -fopenmp -fsanitize=fuzzer,address,undefined \
                -fno-sanitize-recover=undefined -Isrc -Iinclude -Itests/fuzz \
                -DBLOOMLAB_GIT='"fuzz"' $(shell pkg-config --cflags $(PKGS))
FUZZ_LIBS     = $(shell pkg-config --libs $(PKGS)) -lz -lm -ldl

# What each harness links: the module under test and what it calls.
PARSE_SRC    := src/base/numbers.c
# The library part of bloomlab (every module but main), with the vector
# loops' files compiled apart for their instruction sets (as the Makefile
# does), uninstrumented: the parsers under test never reach a filter loop.
ISA_SRC      := src/filter/avx512.c src/filter/avx2.c
EXP_SRC      := $(filter-out src/commands/main.c $(ISA_SRC),$(wildcard src/*/*.c)) $(ISA_SRC:src/%.c=$(FUZZ_DIR)/%.o)
SWEEP_SRC    := $(EXP_SRC)
SHARD_SRC    := src/harness/shard.c src/harness/schema.c src/base/text.c

HARNESSES    := numbers experiment sweep_args shard

.PHONY: run build runtime $(HARNESSES:%=fuzz-%)

run: $(HARNESSES:%=fuzz-%)

build: $(HARNESSES:%=$(FUZZ_DIR)/fuzz_%)

# The runtime library: present with clang on most machines; else apt.
runtime:
	@command -v $(CLANG) >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq clang-14 && ln -sf clang-14 /usr/bin/clang; }
	@test -f "$$($(CLANG) -print-file-name=libclang_rt.fuzzer-x86_64.a)" || test -f "$$($(CLANG) -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a" || \
	  { apt-get update -qq && apt-get install -y -qq libclang-rt-14-dev; }

$(FUZZ_DIR)/fuzz_numbers: tests/fuzz/fuzz_numbers.c tests/fuzz/fuzz_common.h $(PARSE_SRC) | runtime
	@mkdir -p $(FUZZ_DIR)
	$(CLANG) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_numbers.c $(PARSE_SRC) $(FUZZ_LIBS)

$(FUZZ_DIR)/fuzz_experiment: tests/fuzz/fuzz_experiment.c tests/fuzz/fuzz_common.h $(EXP_SRC) | runtime
	@mkdir -p $(FUZZ_DIR)
	$(CLANG) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_experiment.c $(EXP_SRC) $(FUZZ_LIBS)

$(FUZZ_DIR)/fuzz_sweep_args: tests/fuzz/fuzz_sweep_args.c tests/fuzz/fuzz_common.h $(SWEEP_SRC) | runtime
	@mkdir -p $(FUZZ_DIR)
	$(CLANG) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_sweep_args.c $(SWEEP_SRC) $(FUZZ_LIBS)

$(FUZZ_DIR)/filter/avx512.o: FUZZ_ISA := -mavx512f -mavx512dq -mavx512vl -mavx2 -mbmi2
$(FUZZ_DIR)/filter/avx2.o: FUZZ_ISA := -mavx2 -mbmi2 -mfma
$(FUZZ_DIR)/%.o: src/%.c src/%.h
	@mkdir -p $(dir $@)
	$(CLANG) -std=c11 -g -O1 -fopenmp -Isrc $(FUZZ_ISA) $(shell pkg-config --cflags $(PKGS)) -c -o $@ $<

$(FUZZ_DIR)/fuzz_shard: tests/fuzz/fuzz_shard.c tests/fuzz/fuzz_common.h $(SHARD_SRC) | runtime
	@mkdir -p $(FUZZ_DIR)
	$(CLANG) $(FUZZ_CFLAGS) -o $@ tests/fuzz/fuzz_shard.c $(SHARD_SRC) $(FUZZ_LIBS)

# The corpus grows across runs; the seeds are copied in every time (cheap).
# -close_fd_mask=3: the parsers' one-line errors would flood the log.
$(HARNESSES:%=fuzz-%): fuzz-%: $(FUZZ_DIR)/fuzz_%
	@mkdir -p $(FUZZ_DIR)/corpus/$*
	@cp tests/fuzz/seeds/$*/* $(FUZZ_DIR)/corpus/$*/ 2>/dev/null || true
	@if [ "$*" = experiment ]; then for f in experiments/*.ini; do [ -f "$$f" ] && cp "$$f" "$(FUZZ_DIR)/corpus/$*/exp-$$(basename $$f)"; done; true; fi
	./$< -max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=4096 -close_fd_mask=3 \
	  -artifact_prefix=$(FUZZ_DIR)/crash-$*- -print_final_stats=1 $(FUZZ_DIR)/corpus/$* \
	  2>&1 | tee $(FUZZ_DIR)/$*.log | grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|==[0-9]+==ERROR|SUMMARY|invariant)' ; \
	  test $${PIPESTATUS[0]:-0} -eq 0
