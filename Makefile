# iowatcher: build, test, install.
# CC, CFLAGS, CPPFLAGS and LDFLAGS from the command line are honoured; the
# flags the code needs are kept in variables of their own.

CC ?= cc
CFLAGS ?= -O2 -g
PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
LIBEXECDIR = $(PREFIX)/lib/iowatcher
MANDIR = $(PREFIX)/share/man/man1
VERSION = 0.1

PKG_CONFIG ?= pkg-config
# zlib, liblzma and libzstd: the reader's gzip, xz and zstd inputs
PKGS = cairo libpng zlib liblzma libzstd
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)

IOW_CPPFLAGS = -I. -D_GNU_SOURCE -DIOWATCHER_VERSION='"$(VERSION)"' \
	-DIOWATCHER_LIBEXECDIR='"$(LIBEXECDIR)"'
IOW_CFLAGS = -std=c11 -Wall -Wextra $(PKG_CFLAGS)
IOW_LIBS = $(PKG_LIBS) -lm -lpthread

# The BPF recorder (record/rec_bpf.c): its kernel side,
# record/bpf/blkrec.bpf.c, is
# compiled by clang for the BPF target and wrapped by bpftool into a
# skeleton header; libbpf loads it, relocated against the running
# kernel's BTF (no vmlinux.h needed here). Without libbpf-dev, clang or
# bpftool the program builds without it (--tracer bpf then says so).
BPF_CLANG ?= clang
BPFTOOL ?= $(firstword $(wildcard /usr/sbin/bpftool) bpftool)
HAVE_BPF ?= $(shell $(PKG_CONFIG) --exists libbpf 2>/dev/null && \
	command -v $(BPF_CLANG) >/dev/null 2>&1 && \
	command -v $(BPFTOOL) >/dev/null 2>&1 && echo 1)
BPF_MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
BPF_CFLAGS = -g -O2 -target bpf -mcpu=v3 -Wall \
	$(if $(BPF_MULTIARCH),-I/usr/include/$(BPF_MULTIARCH)) -Irecord/bpf
# libelf (libbpf's own dependency) names the frames of user stacks.
ifeq ($(HAVE_BPF),1)
BPF_LIBS := $(shell $(PKG_CONFIG) --libs libbpf libelf)
IOW_CPPFLAGS += -DHAVE_BPF -DHAVE_LIBELF -I$(O)record/bpf
IOW_LIBS += $(BPF_LIBS)
endif

# trace-cmd's trace.dat (reader/tracedat.c): the file trace-cmd record
# writes is read by the program itself (reader/tracedat_own.c), any other
# through libtracecmd, built against Debian's libtracecmd-dev, in a
# program of its own:
# iowatcher-tracedat (reader/tracedat_helper.c, linked with it, installed
# in LIBEXECDIR), which the reader starts for each trace.dat, so that the
# library's crash is not the program's and its libraries cost no other
# start; without libtracecmd-dev, or with TRACECMD=0, the program builds
# without it, reads the common trace.dat itself and says so when given
# another.
TRACECMD ?= $(shell $(PKG_CONFIG) --exists libtracecmd 2>/dev/null && echo 1)
TRACEDAT_HELPER_SRC = reader/tracedat_helper.c
ifeq ($(TRACECMD),1)
IOW_CPPFLAGS += -DHAVE_TRACECMD
IOW_CFLAGS += $(shell $(PKG_CONFIG) --cflags libtracecmd)
TRACECMD_LIBS := $(shell $(PKG_CONFIG) --libs libtracecmd)
TRACEDAT_HELPER = $(B)iowatcher-tracedat
endif

# V=1 prints every command; by default each step is one short line
# ("  CC      plot.o"), and the builds of make check print only warnings
# and errors (SILENT=1 there).
V ?= 0
ifeq ($(V),1)
Q =
say = @:
SUBMAKE =
CHECK_SUBMAKE =
else
Q = @
say = @printf '  %-7s %s\n'
SUBMAKE = --no-print-directory
CHECK_SUBMAKE = $(SUBMAKE) -s SILENT=1
endif
ifeq ($(SILENT),1)
say = @:
endif

# B: where programs go, empty for here; with B=DIR/ a whole build
# (program, tests, tools, the taggers in DIR/scripts) lands in DIR, as
# the sanitizer build of make check does. O: where what only the build
# reads goes (objects, their .d files, the library archive, the BPF
# object and skeleton): build/ here, so that a built tree shows sources
# and programs only, or the directory B names.
B =
O = $(if $(B),$(B),build/)

# The stages' folders, in the order of the pipeline, lowest first
# (tests/t_layers.sh holds every include to it: a file includes its own
# stage's and lower stages' headers, never a higher one's). A stage's
# front door may stay at the top (README.md, "Layout").
STAGES = base reader record analysis tag plot graphs output report movie \
	live compare
# The files at the top are the front doors of their stages (the rest is
# the program's main: iowatcher.c, cli.c, cli_help.c, cli.h).
FRONT_DOORS = event.h:base blkparse_feed.c:reader blkparse_feed.h:reader \
	options.h:analysis trace_result.h:analysis tagger.c:tag tagger.h:tag \
	plot.c:plot plot.h:plot
# Every .c at the top but the program's main, and every .c of the stages'
# folders, is a module of the library.
LIB_SRCS = $(filter-out iowatcher.c,$(sort $(wildcard *.c))) \
	$(filter-out $(TRACEDAT_HELPER_SRC), \
	$(sort $(foreach d,$(STAGES),$(wildcard $(d)/*.c))))
LIB_OBJS = $(addprefix $(O),$(LIB_SRCS:.c=.o))
TEST_SRCS = $(sort $(wildcard tests/test_*.c))
TEST_BINS = $(addprefix $(B),$(TEST_SRCS:.c=))
TOOL_SRCS = $(sort $(wildcard bench/*.c scripts/*.c tests/tools/*.c))
TOOL_BINS = $(addprefix $(B),$(TOOL_SRCS:.c=))
# In a build directory the interpreted taggers sit beside the compiled
# ones, where the program looks for them (scripts/ beside itself).
SCRIPT_LINKS = $(if $(B),$(addprefix $(B),$(filter-out %.c %.o, \
	$(wildcard scripts/tag-* scripts/*.py))))

all: $(B)iowatcher $(TRACEDAT_HELPER) $(TOOL_BINS) $(SCRIPT_LINKS)

# Objects depend on the headers they include, as the compiler saw them
# (-MMD writes O/FILE.d beside each object; -MP survives a removed header).
DEPFLAGS = -MMD -MP

$(O)%.o: %.c
	@mkdir -p $(@D)
	$(say) CC $@
	$(Q)$(CC) $(DEPFLAGS) $(IOW_CPPFLAGS) $(CPPFLAGS) $(IOW_CFLAGS) $(CFLAGS) -c -o $@ $<

ifeq ($(HAVE_BPF),1)
$(O)record/bpf/blkrec.bpf.o: record/bpf/blkrec.bpf.c record/bpf/blkrec.h \
	record/bpf/blkrec_triggers.bpf.h
	@mkdir -p $(@D)
	$(say) BPF $@
	$(Q)$(BPF_CLANG) $(BPF_CFLAGS) -c -o $@ $<

$(O)record/bpf/blkrec.skel.h: $(O)record/bpf/blkrec.bpf.o
	$(say) GEN $@
	$(Q)$(BPFTOOL) gen skeleton $< name blkrec > $@.tmp && mv $@.tmp $@

$(O)record/rec_bpf.o: $(O)record/bpf/blkrec.skel.h
endif

# The report's page: its script and styles, and uPlot, built in with
# .incbin (which the compiler's dependency list does not see).
WEB_ASSETS = web/report.js web/report.css web/vendor/uPlot.iife.min.js \
	web/vendor/uPlot.min.css web/vendor/uPlot.LICENSE
$(O)report/report_assets.o: $(WEB_ASSETS)

$(O)libiow.a: $(LIB_OBJS)
	$(say) AR $@
	$(Q)rm -f $@
	$(Q)$(AR) rcs $@ $^

# The program links cairo and the libraries under it from their static
# archives where those link (Debian's -dev packages carry them): each
# shared library costs every start, and cairo's twenty took 5 ms of a
# 9 ms start on this project's VM (the recorded trace's --summary and SVG
# 3-4% faster). Where they do not link, or with STATIC_CAIRO=0, it links
# them shared, as the tests and tools always do, and as the sanitizer
# build does (tests/lsan.supp names the libraries whose leaks at exit
# are theirs: linked in, their frames would be the program's).
# The reader's decompressors (liblzma, libzstd; zlib is cairo's too) and
# the BPF recorder's libbpf and libelf are linked the same way (libbpf
# shared would load zlib shared again).
STATIC_CAIRO ?= 1
CAIRO_ARCHIVES = cairo pixman-1 fontconfig freetype png16 z expat \
	brotlidec brotlicommon bz2 xcb-shm xcb-render Xrender Xext X11 xcb \
	Xau Xdmcp
READER_ARCHIVES = lzma zstd
BPF_ARCHIVES = $(if $(filter 1,$(HAVE_BPF)),bpf elf)
CAIRO_STATIC_LIBS = -Wl,-Bstatic \
	$(addprefix -l,$(BPF_ARCHIVES) $(READER_ARCHIVES) $(CAIRO_ARCHIVES)) \
	-Wl,-Bdynamic -l:libbsd.so.0 -lm -lpthread

$(B)iowatcher: $(O)iowatcher.o $(O)libiow.a
	$(say) LD $@
	$(Q)if [ "$(STATIC_CAIRO)" = 1 ] && $(CC) $(IOW_CFLAGS) $(CFLAGS) \
		$(LDFLAGS) -o $@ $^ $(CAIRO_STATIC_LIBS) 2>/dev/null; then :; \
	else \
		[ "$(STATIC_CAIRO)" != 1 ] || echo "  note: cairo's static archives did not link: $@ uses the shared libraries"; \
		$(CC) $(IOW_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(IOW_LIBS); \
	fi

# libtracecmd's process (reader/tracedat.c's fence): its own source and
# libtracecmd's libraries, nothing of the program's library (each shared
# library would cost each trace.dat read a start).
ifeq ($(TRACECMD),1)
$(TRACEDAT_HELPER): $(TRACEDAT_HELPER_SRC)
	@mkdir -p $(O)reader
	$(say) LD $@
	$(Q)$(CC) $(DEPFLAGS) -MF $(O)reader/tracedat_helper.d -MT $@ \
		$(IOW_CPPFLAGS) $(CPPFLAGS) $(IOW_CFLAGS) $(CFLAGS) $(LDFLAGS) \
		-o $@ $< $(TRACECMD_LIBS)
endif

# One rule for every program beside the main one (unit tests, bench tools,
# compiled taggers, test tools, fuzz targets): one source each, linked
# with the library.
PROGRAM_DIRS = tests bench scripts tests/tools fuzz
define program_rule
$$(B)$(1)/%: $(1)/%.c $$(O)libiow.a
	@mkdir -p $$(@D) $$(O)$(1)
	$$(say) CC $$@
	$$(Q)$$(CC) $$(DEPFLAGS) -MF $$(O)$(1)/$$*.d -MT $$@ $$(IOW_CPPFLAGS) \
		$$(CPPFLAGS) -I. $$(IOW_CFLAGS) $$(CFLAGS) $$(LDFLAGS) $(2) -o $$@ \
		$$< $$(O)libiow.a $$(IOW_LIBS)
endef
$(foreach d,$(filter-out fuzz,$(PROGRAM_DIRS)),$(eval $(call program_rule,$(d))))
$(eval $(call program_rule,fuzz,$$(FUZZ_LINK)))
# tests/tools/slowfs, the tests' slow device (a FUSE file system that
# answers late when told), is built with libfuse3 where it is (fuse3 and
# libfuse3-dev: scripts/install-deps); elsewhere it says so and the tests
# that need it are skipped.
HAVE_FUSE3 ?= $(shell $(PKG_CONFIG) --exists fuse3 2>/dev/null && echo 1)
ifeq ($(HAVE_FUSE3),1)
$(B)tests/tools/slowfs: private IOW_CPPFLAGS += -DHAVE_FUSE3 \
	$(shell $(PKG_CONFIG) --cflags fuse3)
$(B)tests/tools/slowfs: private IOW_LIBS += $(shell $(PKG_CONFIG) --libs fuse3)
endif
-include $(wildcard $(addprefix $(O),*.d $(addsuffix /*.d,$(STAGES) \
	$(PROGRAM_DIRS))))
$(B)tests/test_fuzz_regress: $(wildcard fuzz/*.c fuzz/*.h)
ifneq ($(B),)
$(SCRIPT_LINKS): $(B)scripts/%: scripts/%
	@mkdir -p $(@D)
	$(say) LN $@
	$(Q)ln -sf "$(CURDIR)/$<" $@
endif

# Installs the Debian packages the build, the demo and the tests need
# (only those missing; needs root when anything is).
deps:
	@sh scripts/install-deps

# The demo renders only what samples/ holds, so that it runs in any clone.
demo: deps
	$(Q)$(MAKE) $(SUBMAKE) iowatcher
	sh scripts/demo.sh ./iowatcher samples
	@echo "demo: wrote samples/fio-randrw.png, samples/fio-randrw-latency.png, samples/two-devices-by-process.png and samples/ext4-fsync.png"

# Everything the tests run, in the build B names.
check-build: all $(TEST_BINS)

# What the sanitizer pass runs from its build: the program, its helper,
# the unit tests, the taggers beside the program, and the tools the tests
# take from $BUILD (bench/gentrace: t_huge, t_reader, t_faults;
# tests/tools/slowfs: lib.sh's slow_loop; script-tagger: test_tagger,
# beside itself). The other tools run from the checkout's build only:
# building them with the sanitizers took 7 s of CPU for nothing.
SAN_TOOLS = bench/gentrace tests/tools/slowfs tests/tools/script-tagger \
	scripts/tag-example
check-build-san: $(B)iowatcher $(TRACEDAT_HELPER) $(SCRIPT_LINKS) \
	$(addprefix $(B),$(filter $(SAN_TOOLS),$(TOOL_SRCS:.c=))) $(TEST_BINS)

# make check runs the whole suite twice: against the build here, and
# against one with AddressSanitizer, UndefinedBehaviorSanitizer and
# LeakSanitizer in SAN_DIR (tests/run.sh takes the build directories,
# sets the sanitizers' options and counts any report as a failure). Both
# passes run every test; the last line adds them up.
SAN_DIR = build-asan
SAN_CC = clang
SAN_CFLAGS = -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
	-fno-sanitize-recover=all

# The report's browser tests drive chromium with puppeteer-core, and
# t_fleet runs the README's DuckDB query with @duckdb/node-api: both
# pinned in web/package-lock.json and installed here when missing; without npm
# or a network they say so and are skipped (the program needs neither:
# the report's script and uPlot are in the source, web/vendor).
web-deps:
	@[ -d web/node_modules/puppeteer-core ] && \
	[ -d web/node_modules/@duckdb/node-api ] || \
	(cd web && npm ci --no-audit --no-fund --loglevel=error > /dev/null) || \
	echo "web-deps: npm could not install web/node_modules (no npm, or no network): the browser and DuckDB tests will be skipped"

# make check builds with a job per processor (CI's machines have 2: the
# two builds take half the time), unless -j was given
CHECK_JOBS = $(if $(findstring -j,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 1))

check: deps web-deps
	@echo "  BUILD   the program and its tests, then again in $(SAN_DIR)/ with sanitizers"
	$(Q)$(MAKE) $(CHECK_SUBMAKE) $(CHECK_JOBS) check-build
	$(Q)$(MAKE) $(CHECK_SUBMAKE) $(CHECK_JOBS) B=$(SAN_DIR)/ CC=$(SAN_CC) \
		CFLAGS="$(SAN_CFLAGS)" STATIC_CAIRO=0 check-build-san
	$(Q)sh tests/run.sh . $(SAN_DIR)

# make fuzz: every fuzz/fuzz_*.c under libFuzzer for FUZZ_SECONDS each,
# with ASan and UBSan, in FUZZ_DIR: the corpus grows in
# FUZZ_DIR/corpus/TARGET from fuzz/seeds/TARGET, crashes land in
# FUZZ_DIR/findings/TARGET (copy them to tests/data/regress/TARGET once
# fixed). FUZZ_JOBS targets run at once (2: a core each). Then
# tests/t_holes.sh's property (issue #36) over HOLES_FUZZ_CASES cases of
# records dropped from traces, seeds past make check's, and
# tests/t_tracedat_own.sh's comparison of the program's own trace.dat
# reader with libtracecmd's over TRACEDAT_OWN_FUZZ_CASES changed files.
FUZZ_DIR = build-fuzz
FUZZ_CC = clang
FUZZ_SECONDS = 60
FUZZ_JOBS = 2
FUZZ_TARGETS = $(patsubst fuzz/fuzz_%.c,%,$(sort $(wildcard fuzz/fuzz_*.c)))
FUZZ_CFLAGS = $(SAN_CFLAGS) -fsanitize=fuzzer-no-link
FUZZ_LINK =
HOLES_FUZZ_CASES = 3000
TRACEDAT_OWN_FUZZ_CASES = 1000

fuzz: deps
	$(MAKE) B=$(FUZZ_DIR)/ CC=$(FUZZ_CC) CFLAGS="$(FUZZ_CFLAGS)" \
		FUZZ_LINK=-fsanitize=fuzzer \
		$(addprefix $(FUZZ_DIR)/fuzz/fuzz_,$(FUZZ_TARGETS)) \
		$(if $(TRACEDAT_HELPER),$(FUZZ_DIR)/iowatcher-tracedat)
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_JOBS=$(FUZZ_JOBS) \
		sh fuzz/run.sh $(FUZZ_DIR) $(FUZZ_TARGETS)
	$(MAKE) all
	HOLES_STRICT=1 HOLES_CASES=$(HOLES_FUZZ_CASES) HOLES_SEED=1000 sh tests/t_holes.sh
	TRACEDAT_OWN_CASES=$(TRACEDAT_OWN_FUZZ_CASES) sh tests/t_tracedat_own.sh

# bench/run.sh: reading traces against btt, blkparse, the original and
# cat; bench/record.sh: what recording costs the workload (root).
bench: all
	sh bench/run.sh
	sh bench/record.sh

bench-record: all
	sh bench/record.sh

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(LIBEXECDIR)
	install -m 755 iowatcher $(DESTDIR)$(BINDIR)/iowatcher
	install -m 644 iowatcher.1 $(DESTDIR)$(MANDIR)/iowatcher.1
	$(if $(TRACEDAT_HELPER),install -m 755 iowatcher-tracedat $(DESTDIR)$(LIBEXECDIR)/iowatcher-tracedat)
	for f in scripts/tag-* scripts/iowatcher.py; do \
		[ -f "$$f" ] || continue; \
		case "$$f" in *.c|*.o) continue;; esac; \
		install -m 755 "$$f" $(DESTDIR)$(LIBEXECDIR)/; \
	done

clean:
	rm -f iowatcher iowatcher-tracedat $(TEST_BINS) $(TOOL_BINS)
	rm -rf build $(SAN_DIR) $(FUZZ_DIR)

.PHONY: all deps web-deps demo check check-build check-build-san fuzz bench bench-record install clean
.SECONDARY:
