# nbody6c — GNU Make build.
#   make            bin/nbody6c (CUDA backend when nvcc is found; CUDA=0 to leave it out)
#   make test       unit and end-to-end tests (no GPU needed), ends with "N passed, M failed"
#   make run        integrates the default deck (input/default-imf-4096-t10.deck, ~10 s on 2 cores)
#   make bench      CPU benchmark over the 1k-32k decks (a few minutes), written to docs/BENCHMARKS.md
#   V=1             the full compiler lines (default: one short line per file)

# Quiet by default, as the kernel's and many C projects' builds: "  CC  file";
# V=1 shows every command in full.
V ?= 0
ifeq ($(V),1)
say :=
else
say = @printf '  %-6s %s\n' $(1) $(2);
endif

CC        ?= gcc
NVCC      ?= nvcc
BUILD     ?= build
BIN       ?= bin
OPT       ?= -O3
CFLAGS    ?= $(OPT) -g
CFLAGS    += -std=c11 -Wall -Wextra -fopenmp -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L -ffp-contract=off
# every include is written with its folder: "core/sim.h", "gpunb/gpunb.h";
# which folder may include which is scripts/check-layers' table
CPPFLAGS  += -Isrc -I.
LDLIBS    += -lm
LDFLAGS   += -fopenmp

# HDF5 (required): pkg-config first, then Debian/Ubuntu's serial folder.
HDF5_CFLAGS ?= $(shell pkg-config --cflags hdf5 2>/dev/null || (test -d /usr/include/hdf5/serial && echo -I/usr/include/hdf5/serial))
HDF5_LIBS   ?= $(shell pkg-config --libs hdf5 2>/dev/null || (test -d /usr/lib/x86_64-linux-gnu/hdf5/serial && echo -L/usr/lib/x86_64-linux-gnu/hdf5/serial -lhdf5))
CPPFLAGS    += $(HDF5_CFLAGS)
LDLIBS      += $(HDF5_LIBS)

# CUDA (optional): on when nvcc is found, unless CUDA=0.
CUDA ?= $(if $(shell command -v $(NVCC) 2>/dev/null),1,0)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(shell command -v $(NVCC) 2>/dev/null))
CUDA_ARCH ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_86,code=sm_86 \
             -gencode arch=compute_89,code=sm_89 -gencode arch=compute_90,code=sm_90 \
             -gencode arch=compute_90,code=compute_90
NVFLAGS   ?= -O3 -std=c++17 $(CUDA_ARCH) -Xcompiler -Wall,-Wextra,-fopenmp --expt-relaxed-constexpr

LAYERS    := common sse core reg evol integ io ic app
LIB_SRC   := $(filter-out src/app/main.c,$(wildcard $(LAYERS:%=src/%/*.c))) $(wildcard gpunb/*.c) $(wildcard gpuirr/*.c)
CU_SRC    := $(if $(filter 1,$(CUDA)),$(wildcard gpunb/*.cu),)
LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o) $(CU_SRC:%.cu=$(BUILD)/%.o)
TEST_SRC  := $(wildcard tests/test_*.c)
TEST_BIN  := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
BENCH_SRC := $(wildcard bench/*.c)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
HEADERS   := $(wildcard $(LAYERS:%=src/%/*.h) gpunb/*.h gpuirr/*.h tests/*.h)

ifeq ($(CUDA),1)
CPPFLAGS  += -DHAVE_CUDA
LDLIBS    += -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lcudart -lstdc++
endif

# Per-file instruction sets: the SIMD kernels are chosen at run time.
$(BUILD)/%_sse.o:    ARCHFLAGS = -msse4.1
$(BUILD)/%_avx2.o:   ARCHFLAGS = -mavx2 -mfma
$(BUILD)/%_avx512.o: ARCHFLAGS = -mavx512f -mavx512dq -mavx512vl -mavx2 -mfma
# sqrt without errno, so that the lanes of a vector share one vsqrtpd
# (same results: IEEE square roots either way)
$(BUILD)/gpunb/gpunb_cpu_lanes_avx512.o: ARCHFLAGS = -mavx512f -mavx512dq -mavx512vl -mavx2 -mfma -fno-math-errno

.PHONY: all test tests run bench benchtools clean check-hdf5
all: check-hdf5 $(BIN)/nbody6c

check-hdf5:
	@if [ -z "$(strip $(HDF5_LIBS))" ]; then \
	  echo "HDF5 not found: install it (Debian/Ubuntu: apt-get install libhdf5-dev) or set HDF5_CFLAGS/HDF5_LIBS" >&2; exit 1; fi

$(BUILD)/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(CPPFLAGS) $(CFLAGS) $(ARCHFLAGS) -c $< -o $@

$(BUILD)/%.o: %.cu $(HEADERS)
	@mkdir -p $(dir $@)
	$(call say,NVCC,$@)$(NVCC) $(CPPFLAGS) $(NVFLAGS) -c $< -o $@

$(BUILD)/libnbody6c.a: $(LIB_OBJ)
	@rm -f $@
	$(call say,AR,$@)ar rcs $@ $^

$(BIN)/nbody6c: $(BUILD)/src/app/main.o $(BUILD)/libnbody6c.a
	@mkdir -p $(dir $@)
	$(call say,LD,$@)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/tests/%: tests/%.c $(BUILD)/libnbody6c.a $(HEADERS)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(CPPFLAGS) -DNBODY6C_BIN='"$(BIN)/nbody6c"' $(CFLAGS) $< $(BUILD)/libnbody6c.a $(LDFLAGS) $(LDLIBS) -o $@

$(BUILD)/bench/%: bench/%.c $(BUILD)/libnbody6c.a $(HEADERS)
	@mkdir -p $(dir $@)
	$(call say,CC,$@)$(CC) $(CPPFLAGS) $(CFLAGS) $< $(BUILD)/libnbody6c.a $(LDFLAGS) $(LDLIBS) -o $@

tests: all $(TEST_BIN)
benchtools: all $(BENCH_BIN)

# With CUDA the tests run twice: the CUDA build and a CPU-only one (the
# backends' own results are compared); without it both builds would be the
# same program, so once.
test:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory tests
ifeq ($(CUDA),1)
	@$(MAKE) --no-print-directory tests CUDA=0 BUILD=build-cpu BIN=build-cpu/bin
	@tests/run.sh $(BUILD) build-cpu
else
	@tests/run.sh $(BUILD)
endif

run:
	@scripts/deps.sh
	@$(MAKE) --no-print-directory all
	$(BIN)/nbody6c --out nbody6c-run --force input/default-imf-4096-t10.deck
	@echo "results: nbody6c-run/ (log.txt, summary.json, profile.txt, snap.*.h5, checkpoint.bin)"

bench: all
	scripts/bench-cpu.sh

clean:
	rm -rf build build-cpu bin
