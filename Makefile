# vartree: plain Makefile. `make` builds into build/, `make check` runs every test
# (unit tests under ASan+UBSan), `make bench` the benchmarks, `make fuzz` the fuzzers.

PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man
# OpenSM loads the plugin with dlopen("libvartree.so"), so it must sit where the dynamic
# linker looks. PREFIX=/usr: Debian's multiarch dir /usr/lib/<triplet>, a built-in search
# path of ld.so (found without ldconfig, beside OpenSM's own libraries). Other prefixes:
# $(PREFIX)/lib, which ld.so.conf must list (/usr/local/lib is listed on Debian); found
# after ldconfig, which `make install` runs as root without DESTDIR. See vartree-plugin(8).
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
PLUGINDIR ?= $(if $(and $(filter /usr,$(PREFIX)),$(MULTIARCH)),$(PREFIX)/lib/$(MULTIARCH),$(PREFIX)/lib)
DESTDIR   ?=

CC        ?= cc
WARN      := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
             -Wno-unused-parameter
CSTD      := -std=c11 -D_DEFAULT_SOURCE -D_POSIX_C_SOURCE=200809L
OPT       ?= -O2 -g
CFLAGS_ALL = $(CSTD) $(WARN) $(OPT) -fPIC -Ilib $(CFLAGS)
SANFLAGS  := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
EXTLIBS   := -libnetdisc -libmad -libumad $(shell pkg-config --libs cairo 2>/dev/null) -ljansson -lm -lpthread
EXTINC    := $(shell pkg-config --cflags cairo 2>/dev/null)
# OTF2 trace replay (lib/work/vt_otf2.c) reads traces with Debian's libotf2, found by its
# pkg-config file; without it the build stops at vt_otf2.o and says what to install.
OTF2_CFLAGS := $(shell pkg-config --cflags otf2 2>/dev/null)
OTF2_LIBS := $(shell pkg-config --libs otf2 2>/dev/null)
EXTLIBS   += $(OTF2_LIBS)
EXTINC    += $(OTF2_CFLAGS)
CHECKLIBS := $(shell pkg-config --libs check 2>/dev/null || echo -lcheck -lsubunit -lm -lrt -pthread)

# lib/ holds one folder per subsystem; lib/LAYERS says which may include which.
LIB_DIRS  := base model io gen tree analysis route repair sim work out cli
LIB_SRC   := $(sort $(foreach d,$(LIB_DIRS),$(wildcard lib/$(d)/*.c)))
# The plugin's core: only the subsystems OpenSM's process needs (lib/LAYERS, plugin row);
# linking it alone (-z defs) makes any call into another subsystem a link error.
CORE_DIRS := base model tree analysis route repair
CORE_SRC  := $(sort $(foreach d,$(CORE_DIRS),$(wildcard lib/$(d)/*.c)))
FRONTDIRS := analyzer sim topofiles
MAIN_SRC  := $(sort $(foreach d,$(FRONTDIRS),$(wildcard $(d)/vartree-*.c)))
BINS      := $(patsubst %.c,%,$(notdir $(MAIN_SRC)))
UNIT_SRC  := $(sort $(wildcard tests/unit/test_*.c))
UNIT_HELP := $(filter-out $(UNIT_SRC),$(wildcard tests/unit/*.c))
PLUG_SRC  := $(sort $(wildcard plugin/*.c))
SCRIPTS   := $(filter-out %.c %.h %.o,$(wildcard sim/vartree-*))

# Objects of a front-end directory that are not mains are linked into each of its mains.
side_objs = $(patsubst %.c,$(1)/obj/%.o,$(filter-out $(2)/vartree-%.c,$(wildcard $(2)/*.c)))

B := build
A := build/asan

.PHONY: all check layers unit bench fuzz install uninstall clean topofiles format tidy golden
all: $(B)/lib/libvtcore.a $(addprefix $(B)/bin/,$(BINS)) $(if $(PLUG_SRC),$(B)/lib/libvartree.so) man-build

# ---- objects
$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(EXTINC) -MMD -MP -c $< -o $@
$(A)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CSTD) $(WARN) -O1 -g $(SANFLAGS) -fPIC -Ilib -Itests/unit $(EXTINC) $(CFLAGS) -MMD -MP -c $< -o $@

$(B)/lib/libvtcore.a: $(patsubst %.c,$(B)/obj/%.o,$(LIB_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(B)/lib/libvtplugcore.a: $(patsubst %.c,$(B)/obj/%.o,$(CORE_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^
$(A)/lib/libvtcore.a: $(patsubst %.c,$(A)/obj/%.o,$(LIB_SRC))
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(foreach d,$(B) $(A) $(B)/fuzz,$(d)/obj/lib/work/vt_otf2.o $(d)/obj/lib/work/vt_otf2_anchor.o): | otf2-check
otf2-check:
	@pkg-config --exists otf2 || { echo "libotf2 not found (pkg-config otf2): \
	scripts/install-deps installs libopen-trace-format2-dev" >&2; exit 1; }
.PHONY: otf2-check

# ---- commands
define bin_rules
$(B)/bin/$(notdir $(1)): $(B)/obj/$(1).o $(call side_objs,$(B),$(patsubst %/,%,$(dir $(1)))) $(B)/lib/libvtcore.a
	@mkdir -p $$(dir $$@)
	$$(CC) $$(CFLAGS_ALL) -o $$@ $$(filter %.o,$$^) $(B)/lib/libvtcore.a $$(EXTLIBS) $$(LDFLAGS)
$(A)/bin/$(notdir $(1)): $(A)/obj/$(1).o $(call side_objs,$(A),$(patsubst %/,%,$(dir $(1)))) $(A)/lib/libvtcore.a
	@mkdir -p $$(dir $$@)
	$$(CC) $$(SANFLAGS) -g -o $$@ $$(filter %.o,$$^) $(A)/lib/libvtcore.a $$(EXTLIBS) $$(LDFLAGS)
endef
$(foreach m,$(MAIN_SRC),$(eval $(call bin_rules,$(patsubst %.c,%,$(m)))))

# vartree-sweep is an MPI program (Open MPI from Debian, scripts/install-deps); it runs
# without mpirun too. Its flags come from Open MPI's pkg-config file.
MPI_CFLAGS := $(shell pkg-config --cflags ompi-c 2>/dev/null)
MPI_LIBS   := $(shell pkg-config --libs ompi-c 2>/dev/null)
$(B)/obj/sim/vartree-sweep.o $(A)/obj/sim/vartree-sweep.o: EXTINC += $(MPI_CFLAGS)
$(B)/bin/vartree-sweep $(A)/bin/vartree-sweep: EXTLIBS += $(MPI_LIBS)

# ---- the OpenSM plugin: PIC objects of the core linked in, so it needs nothing but OpenSM
# OpenSM's headers include each other as <opensm/...>, <complib/...>, <iba/...>
$(B)/obj/plugin/%.o: EXTINC += -isystem /usr/include/infiniband
# exports osm_event_plugin alone (plugin/vartree.map), as OpenSM's example plugin does
$(B)/lib/libvartree.so: $(patsubst %.c,$(B)/obj/%.o,$(PLUG_SRC)) $(B)/lib/libvtplugcore.a plugin/vartree.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-z,defs -Wl,--as-needed -Wl,--version-script=plugin/vartree.map \
		-o $@ $(filter %.o,$^) $(B)/lib/libvtplugcore.a -lopensm -losmcomp -lm -lpthread $(LDFLAGS)

# ---- unit tests (Check), always under ASan+UBSan
UNIT_BINS := $(patsubst tests/unit/%.c,$(A)/tests/%,$(UNIT_SRC))
$(A)/tests/%: $(A)/obj/tests/unit/%.o $(patsubst %.c,$(A)/obj/%.o,$(UNIT_HELP)) $(A)/lib/libvtcore.a
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -g -o $@ $(filter %.o,$^) $(A)/lib/libvtcore.a $(EXTLIBS) $(CHECKLIBS)

# test_plugin: the plugin's parts that need no OpenSM (plugin/vtp_opts.h)
$(A)/obj/tests/unit/test_plugin.o: EXTINC += -Iplugin
$(A)/tests/test_plugin: $(A)/obj/plugin/vtp_opts.o $(A)/obj/plugin/vtp_err.o

# helper programs of the ibsim integration tests (tests/integration/*.c), normal build
ITEST_BINS := $(patsubst tests/integration/%.c,$(B)/tests/%,$(wildcard tests/integration/*.c))
$(B)/tests/%: $(B)/obj/tests/integration/%.o $(B)/lib/libvtcore.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(B)/lib/libvtcore.a $(EXTLIBS) $(LDFLAGS)

# tests/tools/otf2-write: OTF2 traces for the command-line tests, with the unit tests' writer
$(A)/tests/otf2-write: $(A)/obj/tests/tools/otf2-write.o $(A)/obj/tests/unit/vt_otf2w.o
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) -g -o $@ $^ $(OTF2_LIBS)

unit: $(UNIT_BINS) $(addprefix $(A)/bin/,$(BINS)) $(ITEST_BINS) $(A)/tests/otf2-write

# deps first, then a parallel build: a fresh machine has nothing to build with before deps
check: deps layers
	$(MAKE) -j2 all unit
	tests/run-tests

# Every #include against the allowed directions of lib/LAYERS.
layers:
	scripts/check-layers

deps:
	@scripts/install-deps

bench: deps
	$(MAKE) -j2 all
	tests/run-bench

# One libFuzzer target per loader (tests/fuzz/fuzz_NAME.c, seeds in tests/fuzz/corpus/NAME/,
# or made at build time in build/fuzz/NAME-seeds/), each run for FUZZ_SECONDS; the corpus it
# grows stays in build/fuzz/NAME-corpus, a crash in build/fuzz/NAME-crash-*. One line per
# target: executions and findings.
FUZZ_SRC := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS := $(CSTD) -g -O1 -Ilib -Itests/fuzz -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRC))
$(B)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link $(EXTINC) -c $< -o $@
$(B)/fuzz/fuzz_%: $(B)/fuzz/obj/tests/fuzz/fuzz_%.o $(patsubst %.c,$(B)/fuzz/obj/%.o,$(LIB_SRC))
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(EXTLIBS)
# fuzz_otf2's seeds: otf2-write's traces framed as one file each, by the libotf2 installed
FUZZ_SEEDS := $(B)/fuzz/otf2-seeds/seed-mix
$(B)/fuzz/otf2-seeds/seed-mix: tests/fuzz/otf2-seeds $(A)/tests/otf2-write
	rm -rf $(@D) && tests/fuzz/otf2-seeds $(A)/tests/otf2-write $(@D)
# libibnetdisc leaks per cached port (suppressed, see vt_load_cache.c): leak checks per
# input would only slow the cache target down, so it runs without them
fuzz: deps
	$(MAKE) -j2 $(FUZZ_BINS) $(FUZZ_SEEDS)
	@bad=0; for n in $(notdir $(FUZZ_BINS)); do t=$${n#fuzz_}; \
		leaks=1; [ $$t = load_cache ] && leaks=0; \
		seeds=tests/fuzz/corpus/$$t; [ -d $$seeds ] || seeds=$(B)/fuzz/$$t-seeds; \
		mkdir -p $(B)/fuzz/$$t-corpus; \
		ASAN_OPTIONS=print_suppressions=0 $(B)/fuzz/$$n -max_total_time=$(FUZZ_SECONDS) \
			-max_len=16384 -timeout=30 -rss_limit_mb=2048 -detect_leaks=$$leaks \
			-artifact_prefix=$(B)/fuzz/$$t- $(B)/fuzz/$$t-corpus $$seeds \
			>$(B)/fuzz/$$t.log 2>&1; \
		rc=$$?; runs=$$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' $(B)/fuzz/$$t.log); \
		if [ $$rc = 0 ]; then echo "fuzz $$t: $${runs:-?} executions in $(FUZZ_SECONDS) s, no findings"; \
		else bad=1; echo "fuzz $$t: FINDING (exit $$rc): $$(grep -m1 -E 'ERROR|runtime error|deadly' $(B)/fuzz/$$t.log) (see $(B)/fuzz/$$t.log)"; fi; \
	done; exit $$bad

# rewrites tests/data/route-golden.txt; a commit that changes it says why the tables changed
golden: all
	VT_GOLDEN_UPDATE=1 tests/cli/route_golden.sh

topofiles: $(B)/bin/vartree-gen
	topofiles/regenerate $(B)/bin/vartree-gen

# ---- man pages: troff sources in man/, checked by rendering at build time
MAN_SRC := $(wildcard man/*.[1-8])
man-build: $(patsubst man/%,$(B)/man/%,$(MAN_SRC))
$(B)/man/%: man/%
	@mkdir -p $(dir $@)
	@LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l $< 2>&1 >/dev/null | (! grep .) || (echo "$<: man page warnings" >&2; exit 1)
	cp $< $@

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PLUGINDIR)
	install -m 755 $(addprefix $(B)/bin/,$(BINS)) $(SCRIPTS) $(DESTDIR)$(BINDIR)
	install -m 644 $(B)/lib/libvartree.so $(DESTDIR)$(PLUGINDIR)/libvartree.so
	for m in $(MAN_SRC); do s=$${m##*.}; install -d $(DESTDIR)$(MANDIR)/man$$s; \
		install -m 644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done
	if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig; fi

# removes exactly what install put there (same PREFIX/DESTDIR), builds nothing
uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(BINS) $(notdir $(SCRIPTS)))
	rm -f $(DESTDIR)$(PLUGINDIR)/libvartree.so
	for m in $(MAN_SRC); do s=$${m##*.}; rm -f $(DESTDIR)$(MANDIR)/man$$s/$${m##*/}; done
	if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig; fi

format:
	clang-format -i lib/*/*.[ch] $(foreach d,$(FRONTDIRS) plugin tests/unit tests/fuzz,$(wildcard $(d)/*.[ch]))

clean:
	rm -rf build

.PHONY: deps man-build
.SECONDARY:
-include $(sort $(shell find $(B) $(A) -name '*.d' 2>/dev/null))

# The README's first command: the main job on the embedded default fabric.
demo: deps
	$(MAKE) -j2 all
	sim/vartree-demo
.PHONY: demo
