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
PKGS = cairo libpng
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)

IOW_CPPFLAGS = -D_GNU_SOURCE -DIOWATCHER_VERSION='"$(VERSION)"' \
	-DIOWATCHER_LIBEXECDIR='"$(LIBEXECDIR)"'
IOW_CFLAGS = -std=c11 -Wall -Wextra $(PKG_CFLAGS)
IOW_LIBS = $(PKG_LIBS) -lm -lpthread

# Every top-level .c but the program's main is a module of the library.
LIB_SRCS = $(filter-out iowatcher.c,$(sort $(wildcard *.c)))
LIB_OBJS = $(LIB_SRCS:.c=.o)
TEST_SRCS = $(sort $(wildcard tests/test_*.c))
TEST_BINS = $(TEST_SRCS:.c=)
TOOL_SRCS = $(sort $(wildcard bench/*.c scripts/*.c tests/tools/*.c))
TOOL_BINS = $(TOOL_SRCS:.c=)

all: iowatcher $(TOOL_BINS)

%.o: %.c $(wildcard *.h)
	$(CC) $(IOW_CPPFLAGS) $(CPPFLAGS) $(IOW_CFLAGS) $(CFLAGS) -c -o $@ $<

libiow.a: $(LIB_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

iowatcher: iowatcher.o libiow.a
	$(CC) $(IOW_CFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(IOW_LIBS)

tests/test_%: tests/test_%.c tests/check.h libiow.a
	$(CC) $(IOW_CPPFLAGS) $(CPPFLAGS) -I. $(IOW_CFLAGS) $(CFLAGS) $(LDFLAGS) \
		-o $@ $< libiow.a $(IOW_LIBS)

bench/%: bench/%.c libiow.a
	$(CC) $(IOW_CPPFLAGS) $(CPPFLAGS) -I. $(IOW_CFLAGS) $(CFLAGS) $(LDFLAGS) \
		-o $@ $< libiow.a $(IOW_LIBS)
scripts/%: scripts/%.c libiow.a
	$(CC) $(IOW_CPPFLAGS) $(CPPFLAGS) -I. $(IOW_CFLAGS) $(CFLAGS) $(LDFLAGS) \
		-o $@ $< libiow.a $(IOW_LIBS)
tests/tools/%: tests/tools/%.c libiow.a
	$(CC) $(IOW_CPPFLAGS) $(CPPFLAGS) -I. $(IOW_CFLAGS) $(CFLAGS) $(LDFLAGS) \
		-o $@ $< libiow.a $(IOW_LIBS)

# Installs the Debian packages the build, the demo and the tests need
# (only those missing; needs root when anything is).
deps:
	@sh scripts/install-deps

demo: deps
	$(MAKE) iowatcher
	./iowatcher -t samples/fio-randrw -F samples/fio-randrw_bw.1.log \
		-F samples/fio-randrw_bw.2.log@3 -o samples/fio-randrw.png --summary
	./iowatcher -t samples/fio-randrw -O latency -O latency-heatmap \
		-O latency-hist -O q2d-d2c -o samples/fio-randrw-latency.png
	./iowatcher -t ../shared/traces/centos7-sda -P -O io -O tput \
		-O latency -o samples/centos7-sda-by-process.png
	@echo "demo: wrote samples/fio-randrw.png, samples/fio-randrw-latency.png and samples/centos7-sda-by-process.png"

check: deps
	$(MAKE) all $(TEST_BINS)
	sh tests/run.sh

bench: all
	sh bench/run.sh

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR) $(DESTDIR)$(LIBEXECDIR)
	install -m 755 iowatcher $(DESTDIR)$(BINDIR)/iowatcher
	install -m 644 iowatcher.1 $(DESTDIR)$(MANDIR)/iowatcher.1
	for f in scripts/tag-* scripts/iowatcher.py; do \
		[ -f "$$f" ] || continue; \
		case "$$f" in *.c|*.o) continue;; esac; \
		install -m 755 "$$f" $(DESTDIR)$(LIBEXECDIR)/; \
	done

clean:
	rm -f iowatcher *.o libiow.a $(TEST_BINS) $(TOOL_BINS)

.PHONY: all deps demo check bench install clean
.SECONDARY:
