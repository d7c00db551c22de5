# SPDX-License-Identifier: Apache-2.0
# One non-recursive GNU Makefile for all of bento.  Sources are picked up by
# wildcard: a new .c file in a program's folder is built into that program.
#
# Choices on the command line (README.md, "Building and installing"):
#   STATIC=1   (default) link yajl, libseccomp, libcap, libyaml and libcrypto
#              from their .a archives, failing if one is not installed;
#   STATIC=0   link them shared ("Link mode" below);
#   BUILDDIR=  where everything goes (build); SANITIZE=1 ASan/UBSan;
#   WERROR=0   warnings are not errors.
# The same commit gives the same binaries in any directory (`make check-repro`).

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DESTDIR ?=
BUILDDIR ?= build
WERROR ?= 1
SANITIZE ?= 0

CC ?= cc
PKG_CONFIG ?= pkg-config
PYTHON ?= /usr/bin/python3

# Dependencies come from pkg-config.  Missing ones are reported by `make`
# itself: run contrib/install-deps.sh (root) first.
# libseccomp for the exec gate's serving code (bundle/exec-gate-*.c: the
# names of the calls it sees), which `bento` runs in-process and
# bento-exec-gate as a program.
PKGS_BUNDLE := yajl libseccomp
PKGS_RUNTIME := yajl libseccomp libcap
PKGS_RUNTIME_LIBS := yajl libseccomp libcap
# bento-systemd-scope (runtime/cgroup/systemd-scope/) alone links libsystemd,
# shared in every mode: bento-runtime runs it for --systemd-cgroup.
PKGS_SCOPE := libsystemd
PKGS_TRANSLATE := yajl yaml-0.1 libcrypto libseccomp
PKGS_HOOKS := yajl libseccomp

pkg_cflags = $(shell $(PKG_CONFIG) --cflags $(1) 2>/dev/null)
pkg_libs = $(shell $(PKG_CONFIG) --libs $(1) 2>/dev/null)

# ---- Link mode: STATIC=1 (default) or STATIC=0 ----------------------------
# STATIC=1 links yajl, libseccomp, libcap, libyaml and libcrypto into the
# programs from the archives their Debian -dev packages ship (and libc,
# below): each shared library costs every start a share of the dynamic
# loader's work, about 0.25 ms for the runtime's three and 0.7 ms for
# libcrypto alone in `bento` (docs/performance.md), and bento-runtime, bento
# and the exec gate start with every run.  An archive that is not installed
# stops the link with its name and its package; there is no quiet fallback,
# so one command gives the same binaries on every machine.  STATIC=0 links
# the same libraries shared, as pkg-config names them.  $(BUILDDIR)/link-mode
# says which mode the binaries were linked in: changing STATIC relinks them,
# and tests/integration/test_build.py checks the binaries against it.
STATIC ?= 1
ifeq ($(filter $(STATIC),0 1),)
$(error STATIC must be 1 (static libraries) or 0 (shared ones), not "$(STATIC)")
endif
# With STATIC=1 libc goes in too, for every program that loads nothing at
# run time: bento, the exec gate, the observer and the egress hook
# (-static-pie, so they are still position independent).  Their start then
# maps no library at all: on the CI VM a dynamic start of `bento` costs 3 ms
# of CPU and 6.6 ms wall against 1.8 and 3.7 linked so (docs/performance.md),
# and a run starts up to three of them (bento-init, which every run starts
# too, has no libc at all: its rule is below).  bento-runtime too: what
# needs libsystemd (--systemd-cgroup) is bento-systemd-scope, a program of
# its own that the runtime runs, which stays dynamic (a static libc cannot
# load libsystemd) and is the only one.  The sanitizers need the dynamic
# loader, so a SANITIZE=1 build keeps libc shared everywhere.  (The link-mode file
# below records STATIC alone: a make in a sanitizer build's directory
# without SANITIZE=1, as the install tests run it, must not relink there.)
LIBC_STATIC := $(if $(filter 1,$(STATIC)),$(if $(filter 1,$(SANITIZE)),,1))
LINK_MODE := $(if $(filter 1,$(STATIC)),static,shared)
ARCHIVE_PKG_libyajl_s.a := libyajl-dev
ARCHIVE_PKG_libseccomp.a := libseccomp-dev
ARCHIVE_PKG_libcap.a := libcap-dev
ARCHIVE_PKG_libyaml.a := libyaml-dev
ARCHIVE_PKG_libcrypto.a := libssl-dev
# The path of archive $(1), or a stop that names it and its package.  Only
# link recipes expand it, so `make deps` (which installs the packages),
# `make clean` or `make lint` never need the archives.  (gcc prints the bare
# name back when it finds nothing: hence the filter on an absolute path.)
static_lib = $(or $(filter /%,$(wildcard $(shell $(CC) -print-file-name=$(1) 2>/dev/null))),$(error STATIC=1: $(1) is not installed; Debian's $(ARCHIVE_PKG_$(1)) ships it (contrib/install-deps.sh installs it); or link shared with STATIC=0))
# $(call link_libs,ARCHIVES,PKGS): what a program links, in the mode chosen.
link_libs = $(if $(filter 1,$(STATIC)),$(foreach a,$(1),$(call static_lib,$(a))),$(call pkg_libs,$(2)))
RUNTIME_LINK = $(call link_libs,libyajl_s.a libseccomp.a libcap.a,$(PKGS_RUNTIME_LIBS))
TRANSLATE_LINK = $(call link_libs,libyajl_s.a libyaml.a libcrypto.a libseccomp.a,$(PKGS_TRANSLATE))
HOOK_LINK = $(call link_libs,libyajl_s.a libseccomp.a,$(PKGS_HOOKS))
LINK_MODE_FILE := $(BUILDDIR)/link-mode
# ---- end of link mode ------------------------------------------------------

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
        -Wimplicit-fallthrough -Wundef -Wpointer-arith -Wno-missing-field-initializers
ifeq ($(WERROR),1)
WARN += -Werror
endif

ifeq ($(SANITIZE),1)
OPT := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
HARDEN :=
LDSAN := -fsanitize=address,undefined
else
OPT := -O2 -g
HARDEN := -U_FORTIFY_SOURCE -D_FORTIFY_SOURCE=3 -fstack-protector-strong \
          -fstack-clash-protection -fcf-protection
LDSAN :=
endif

GIT_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
# The build date `bento version` names is the commit's own date (or
# SOURCE_DATE_EPOCH when a packager sets it), so rebuilding the same tree
# gives the same binary.
ifdef SOURCE_DATE_EPOCH
BUILD_DATE := $(shell date -u -d @$(SOURCE_DATE_EPOCH) +%Y-%m-%d 2>/dev/null)
else
BUILD_DATE := $(shell git log -1 --format=%cs 2>/dev/null)
endif
BUILD_DATE := $(or $(BUILD_DATE),unknown)
VERSION := 0.1.0

CFLAGS ?=
LDFLAGS ?=
ALL_CFLAGS := -std=gnu17 -D_GNU_SOURCE $(OPT) $(WARN) $(HARDEN) -fPIE -MMD -MP \
              -Ibundle -DBENTO_VERSION='"$(VERSION)"' -DBENTO_COMMIT='"$(GIT_COMMIT)"' \
              -DBENTO_BUILD_DATE='"$(BUILD_DATE)"' $(CFLAGS)
# ---- Reproducible builds ----------------------------------------------------
# The checkout's directory (and an out-of-tree BUILDDIR's) stays out of the
# binaries' debug info and __FILE__ strings, so one commit built in two
# directories gives the same bytes (`make check-repro`).  GIT_COMMIT and
# BUILD_DATE above come from the commit, not from the clock.
REPRO_CFLAGS := -ffile-prefix-map=$(CURDIR)=. -ffile-prefix-map=$(abspath $(BUILDDIR))=build
ALL_CFLAGS += $(REPRO_CFLAGS)
# ---- end of reproducible builds ---------------------------------------------
ALL_LDFLAGS := -pie -Wl,-z,relro,-z,now,-z,noexecstack $(LDSAN) $(LDFLAGS)
# The programs that take libc in with STATIC=1 ("Link mode" above).
STANDALONE_LDFLAGS := $(if $(LIBC_STATIC),-static-pie,-pie) -Wl,-z,relro,-z,now,-z,noexecstack \
                      $(LDSAN) $(LDFLAGS)

BUNDLE_SRC := $(wildcard bundle/*.c)
RUNTIME_SRC := $(wildcard runtime/*/*.c)
# bento-systemd-scope: a program of its own below the cgroup stage it serves
# (runtime/*/*.c does not reach it).
SCOPE_SRC := $(wildcard runtime/cgroup/systemd-scope/*.c)
TRANSLATE_SRC := $(wildcard translate/*/*.c)
UNIT_SRC := $(wildcard tests/unit/test-*.c)
# libbento-embed (docs/embedding.md): embed/ and the bundle helpers it uses,
# compiled a second time as position-independent code for the shared library.
EMBED_SRC := $(wildcard embed/*.c)
# Manual page sources (docs/gen-docs.py): every page, and the verb pages the
# --help texts come from.
DOC_SRC := $(wildcard docs/cli/*.md) $(wildcard docs/hooks/*.md) $(wildcard docs/runtime/*.md) docs/manifest.md
HELP_SRC := $(wildcard docs/cli/bento-*.md)
# Each folder hooks/<name>/ builds one program, bento-<name> (hook programs and
# seccomp agents a bundle names; docs/architecture.md, "The tree").
HOOK_NAMES := $(patsubst hooks/%/,%,$(sort $(dir $(wildcard hooks/*/*.c))))

obj = $(patsubst %.c,$(BUILDDIR)/obj/%.o,$(1))

LIBBENTO := $(BUILDDIR)/lib/libbento.a
LIBTRANSLATE := $(BUILDDIR)/lib/libbento-translate.a
HELP_C := $(BUILDDIR)/gen/help-text.c
HELP_OBJ := $(BUILDDIR)/obj/gen/help-text.o
TEST_CFLAGS :=
BINS := $(BUILDDIR)/bin/bento-runtime $(BUILDDIR)/bin/bento-systemd-scope
ifneq ($(TRANSLATE_SRC),)
BINS += $(BUILDDIR)/bin/bento
endif
BINS += $(addprefix $(BUILDDIR)/bin/bento-,$(HOOK_NAMES))
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILDDIR)/tests/%,$(UNIT_SRC))
PROBE := $(BUILDDIR)/tests/bento-probe
EMBED_SONAME := libbento-embed.so.0
EMBED_SO := $(BUILDDIR)/lib/libbento-embed.so.$(VERSION)
EMBED_A := $(BUILDDIR)/lib/libbento-embed.a
EMBED_LIBS := $(EMBED_SO) $(EMBED_A)
pic_obj = $(patsubst %.c,$(BUILDDIR)/obj-pic/%.o,$(1))
# the observer's preload library (its rule is below)
SHIM_SO := $(BUILDDIR)/lib/bento/bento-observe-shim.so
SHIM_SRC := $(wildcard hooks/observe/shim/*.c) hooks/observe/pathcheck.c
PIC_CFLAGS := $(filter-out -fPIE,$(ALL_CFLAGS)) -fPIC

.PHONY: audit bench all debug check check-unit check-integration check-adversarial check-debug check-layering lint fuzz \
        check-soak check-repro check-vm \
        fuzz-smoke demo install clean deps docs check-docs

all: $(BINS) $(EMBED_LIBS) $(SHIM_SO)

$(BUILDDIR)/obj/bundle/%.o: bundle/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(call pkg_cflags,$(PKGS_BUNDLE)) -c -o $@ $<

# -iquote, not -I: runtime/seccomp/seccomp.h must not hide libseccomp's <seccomp.h>.
# A file names its own folder's headers bare and an earlier stage's as
# "stage/name.h", from the program's root (contrib/check-layering.py).
$(BUILDDIR)/obj/runtime/%.o: runtime/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(call pkg_cflags,$(PKGS_RUNTIME)) -iquote runtime -c -o $@ $<

$(BUILDDIR)/obj/translate/%.o: translate/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(call pkg_cflags,$(PKGS_TRANSLATE)) -iquote translate -c -o $@ $<

$(BUILDDIR)/obj/hooks/%.o: hooks/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(call pkg_cflags,$(PKGS_HOOKS)) -iquote $(dir $<) -c -o $@ $<

$(BUILDDIR)/obj/tests/unit/%.o: tests/unit/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(TEST_CFLAGS) -Itests/unit -c -o $@ $<

$(BUILDDIR)/obj-pic/bundle/%.o: bundle/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PIC_CFLAGS) $(call pkg_cflags,$(PKGS_BUNDLE)) -c -o $@ $<

$(BUILDDIR)/obj-pic/embed/%.o: embed/%.c include/bento/bento.h
	@mkdir -p $(dir $@)
	$(CC) $(PIC_CFLAGS) -Iinclude $(call pkg_cflags,$(PKGS_BUNDLE)) -c -o $@ $<

# The shared library links the PIC bundle helpers from an archive, so only
# those it uses come in; the version script exports bento.h's functions alone.
$(BUILDDIR)/lib/libbento-pic.a: $(call pic_obj,$(BUNDLE_SRC))
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(EMBED_SO): $(call pic_obj,$(EMBED_SRC)) $(BUILDDIR)/lib/libbento-pic.a embed/libbento-embed.map
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-soname,$(EMBED_SONAME) -Wl,--version-script=embed/libbento-embed.map \
		-Wl,-z,relro,-z,now,-z,noexecstack,--no-undefined $(LDSAN) $(LDFLAGS) -o $@ \
		$(call pic_obj,$(EMBED_SRC)) $(BUILDDIR)/lib/libbento-pic.a $(call pkg_libs,yajl) -lpthread
	ln -sf $(notdir $@) $(BUILDDIR)/lib/$(EMBED_SONAME)
	ln -sf $(EMBED_SONAME) $(BUILDDIR)/lib/libbento-embed.so

# The observer's preload library (hooks/observe/shim/, docs/profile.md "The
# preload library").  It is loaded into the profiled program, so it is built
# apart from everything else: without libc (it names no library, and loads
# into any program), and without a sanitizer or a stack protector (neither
# runtime is the program's).  bento
# looks for it in ../lib/bento/ from its own directory, in the build tree
# as where `make install` puts it.
SHIM_CFLAGS := -std=gnu17 -D_GNU_SOURCE -O2 -g $(WARN) -Ibundle -fPIC -fvisibility=hidden \
               -fno-stack-protector -fcf-protection -MMD -MP $(REPRO_CFLAGS)
shim_obj = $(patsubst %.c,$(BUILDDIR)/obj-shim/%.o,$(1))

$(BUILDDIR)/obj-shim/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(SHIM_CFLAGS) -c -o $@ $<

$(SHIM_SO): $(call shim_obj,$(SHIM_SRC))
	@mkdir -p $(dir $@)
	$(CC) -shared -nostdlib -Wl,-z,relro,-z,now,-z,noexecstack $(LDFLAGS) -o $@ $^

# The static library carries the bundle helpers it needs in itself.
$(EMBED_A): $(call pic_obj,$(EMBED_SRC)) $(call pic_obj,$(BUNDLE_SRC))
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(LIBBENTO): $(call obj,$(BUNDLE_SRC))
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BUILDDIR)/bin/bento-runtime: $(call obj,$(RUNTIME_SRC)) $(LIBBENTO) $(LINK_MODE_FILE)
	@mkdir -p $(dir $@)
	$(CC) $(STANDALONE_LDFLAGS) -o $@ $(filter-out $(LINK_MODE_FILE),$^) $(RUNTIME_LINK)

# Found by the runtime in its own directory (runtime/base/beside.h).
$(call obj,$(SCOPE_SRC)): PKGS_RUNTIME = $(PKGS_SCOPE)

$(BUILDDIR)/bin/bento-systemd-scope: $(call obj,$(SCOPE_SRC)) $(LIBBENTO)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pkg_libs,$(PKGS_SCOPE))

$(BUILDDIR)/bin/bento: $(call obj,$(TRANSLATE_SRC)) $(HELP_OBJ) $(LIBBENTO) $(LINK_MODE_FILE)
	@mkdir -p $(dir $@)
	$(CC) $(STANDALONE_LDFLAGS) -o $@ $(filter-out $(LINK_MODE_FILE),$^) $(TRANSLATE_LINK)

# `bento <verb> --help` is made from the verb's manual page source at build
# time, so the two cannot disagree; the roff pages in docs/man are committed
# and `make check-docs` fails when one is not what its source makes
# (docs/README.md, "How the manual pages are made").
$(HELP_C): docs/gen-docs.py $(HELP_SRC)
	$(PYTHON) docs/gen-docs.py help-c $@ $(HELP_SRC)

$(HELP_OBJ): $(HELP_C)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -iquote translate -c -o $@ $<

docs:
	$(PYTHON) docs/gen-docs.py man docs/man $(DOC_SRC)

check-docs:
	$(PYTHON) docs/gen-docs.py check docs/man $(DOC_SRC)

# One link rule per hook program: hooks/<name>/*.c -> bin/bento-<name>.
define hook_program
$$(BUILDDIR)/bin/bento-$(1): $$(call obj,$$(wildcard hooks/$(1)/*.c)) $$(LIBBENTO) $$(LINK_MODE_FILE)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(STANDALONE_LDFLAGS) -o $$@ $$(filter-out $$(LINK_MODE_FILE),$$^) $$(if $$(filter $(1),$$(HOOKS_LIBC_ONLY)),,$$(HOOK_LINK))
endef
# Hook programs that need nothing but libbento and libc: bento-observe runs
# inside the sandbox as the container's process and loads no library the
# box would have to hold (in either link mode; with STATIC=1 not even libc).
HOOKS_LIBC_ONLY := observe
# bento-init has a rule of its own (below).
$(foreach h,$(filter-out init,$(HOOK_NAMES)),$(eval $(call hook_program,$(h))))

# bento-init (hooks/init/, docs/hooks/bento-init.md), the process 1 of every
# run, built without libc in every mode: its own _start and system calls
# (hooks/init/sys.h), so its start is the exec alone.  A static glibc
# program spends 0.7-1.2 ms of CPU here before main (relocating itself,
# IRELATIVE and CPU feature set-up, TLS, some 27 page faults), a program
# like this one 0.15-0.27 ms (docs/performance.md).  Position independent
# with not one dynamic relocation and no interpreter, which the link checks:
# nothing runs before _start, so nothing could apply one.  No sanitizer and
# no stack protector in any mode (neither runtime is there); -ffreestanding
# so that the compiler assumes no libc (mem.c has the two calls it may
# still emit).
INIT_BIN := $(BUILDDIR)/bin/bento-init
INIT_SRC := $(wildcard hooks/init/*.c)
INIT_CFLAGS := -std=gnu17 -D_GNU_SOURCE -O2 -g $(WARN) -Ibundle -fPIE -ffreestanding \
               -fno-stack-protector -fstack-clash-protection -fcf-protection -MMD -MP \
               -DBENTO_VERSION='"$(VERSION)"' -DBENTO_COMMIT='"$(GIT_COMMIT)"' $(REPRO_CFLAGS)
init_obj = $(patsubst %.c,$(BUILDDIR)/obj-init/%.o,$(1))

$(BUILDDIR)/obj-init/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(INIT_CFLAGS) -c -o $@ $<

$(INIT_BIN): $(call init_obj,$(INIT_SRC))
	@mkdir -p $(dir $@)
	$(CC) -nostdlib -static-pie -Wl,-z,relro,-z,now,-z,noexecstack $(LDFLAGS) -o $@.tmp $^
	@if readelf --relocs --wide $@.tmp | grep -q '^Relocation section' || \
	    readelf --program-headers --wide $@.tmp | grep -q INTERP || \
	    readelf --dynamic --wide $@.tmp | grep -q NEEDED; then \
		echo "$@: has a relocation, an interpreter or a library (readelf -rld $@.tmp)" >&2; \
		exit 1; \
	fi
	mv $@.tmp $@

# The mode the binaries are linked in, rewritten only when it changes, so
# that switching STATIC relinks every program and nothing else.
$(LINK_MODE_FILE): FORCE
	@mkdir -p $(dir $@)
	@[ "$$(cat $@ 2>/dev/null)" = "$(LINK_MODE)" ] || echo "$(LINK_MODE)" > $@

.PHONY: FORCE
FORCE:

$(BUILDDIR)/tests/test-%: $(BUILDDIR)/obj/tests/unit/test-%.o $(LIBBENTO)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pkg_libs,$(PKGS_BUNDLE))

# Unit tests of translate/ code link everything in it except main.c.
TRANSLATE_TEST_PATTERNS := test-manifest% test-path% test-fingerprint% test-shields% test-admission% test-approval% test-journal% test-trust% test-validate% test-run% test-profile%
TRANSLATE_TESTS := $(filter $(addprefix $(BUILDDIR)/tests/,$(TRANSLATE_TEST_PATTERNS)),$(UNIT_BINS))

$(LIBTRANSLATE): $(call obj,$(filter-out translate/cli/main.c,$(TRANSLATE_SRC)))
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

# (No ".o" suffix in the pattern: a "%" never matches the empty string.)
$(addprefix $(BUILDDIR)/obj/tests/unit/,$(TRANSLATE_TEST_PATTERNS)): \
    TEST_CFLAGS = -iquote translate $(call pkg_cflags,$(PKGS_TRANSLATE))

$(TRANSLATE_TESTS): $(BUILDDIR)/tests/test-%: $(BUILDDIR)/obj/tests/unit/test-%.o $(LIBTRANSLATE) $(LIBBENTO)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pkg_libs,$(PKGS_TRANSLATE))

# Unit tests of bento-init's own string and signal helpers link those files
# (built the ordinary way here, with libc and the sanitizers beside them).
INIT_TESTS := $(filter $(BUILDDIR)/tests/test-init-%,$(UNIT_BINS))
$(BUILDDIR)/obj/tests/unit/test-init-%: TEST_CFLAGS = -iquote hooks/init

$(INIT_TESTS): $(BUILDDIR)/tests/test-%: $(BUILDDIR)/obj/tests/unit/test-%.o \
    $(call obj,hooks/init/out.c hooks/init/signals.c) $(LIBBENTO)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pkg_libs,$(PKGS_BUNDLE))


# Unit tests of runtime/process/lsm.c link that one object (it uses nothing else of
# the runtime).
LSM_TESTS := $(filter $(BUILDDIR)/tests/test-lsm,$(UNIT_BINS))
$(BUILDDIR)/obj/tests/unit/test-lsm.o: TEST_CFLAGS = -iquote runtime

$(LSM_TESTS): $(BUILDDIR)/tests/test-%: $(BUILDDIR)/obj/tests/unit/test-%.o \
    $(call obj,runtime/process/lsm.c) $(LIBBENTO)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pkg_libs,$(PKGS_BUNDLE))

# ---- Unit tests of the runtime's parsers ----------------------------------
# tests/unit/test-rt-*.c link libbento-runtime.a: every runtime object but
# cli/main.c, as LIBTRANSLATE is for translate/, so a test pulls in only the
# objects it calls (and what those call).
RT_TESTS := $(filter $(BUILDDIR)/tests/test-rt-%,$(UNIT_BINS))
LIBRUNTIME := $(BUILDDIR)/lib/libbento-runtime.a

$(LIBRUNTIME): $(call obj,$(filter-out runtime/cli/main.c,$(RUNTIME_SRC)))
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BUILDDIR)/obj/tests/unit/test-rt-%: TEST_CFLAGS = -iquote runtime $(call pkg_cflags,$(PKGS_RUNTIME))

$(RT_TESTS): $(BUILDDIR)/tests/test-%: $(BUILDDIR)/obj/tests/unit/test-%.o $(LIBRUNTIME) $(LIBBENTO)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pkg_libs,$(PKGS_RUNTIME_LIBS))
# ---- end of runtime unit tests ----------------------------------------------

# Unit tests of hooks/egress link its objects except main.c.
EGRESS_TEST_PATTERNS := test-egress%
EGRESS_TESTS := $(filter $(addprefix $(BUILDDIR)/tests/,$(EGRESS_TEST_PATTERNS)),$(UNIT_BINS))
LIBEGRESS := $(BUILDDIR)/lib/libbento-egress.a

$(LIBEGRESS): $(call obj,$(filter-out hooks/egress/main.c,$(wildcard hooks/egress/*.c)))
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(addprefix $(BUILDDIR)/obj/tests/unit/,$(EGRESS_TEST_PATTERNS)): \
    TEST_CFLAGS = -iquote hooks/egress $(call pkg_cflags,$(PKGS_HOOKS))

$(EGRESS_TESTS): $(BUILDDIR)/tests/test-%: $(BUILDDIR)/obj/tests/unit/test-%.o $(LIBEGRESS) $(LIBBENTO)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pkg_libs,$(PKGS_HOOKS))

# Unit tests of hooks/observe link its objects except main.c.
OBSERVE_TESTS := $(filter $(BUILDDIR)/tests/test-observe-%,$(UNIT_BINS))
LIBOBSERVE := $(BUILDDIR)/lib/libbento-observe.a

$(LIBOBSERVE): $(call obj,$(filter-out hooks/observe/main.c,$(wildcard hooks/observe/*.c)))
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(BUILDDIR)/obj/tests/unit/test-observe-%: TEST_CFLAGS = -iquote hooks/observe

$(OBSERVE_TESTS): $(BUILDDIR)/tests/test-%: $(BUILDDIR)/obj/tests/unit/test-%.o $(LIBOBSERVE) $(LIBBENTO)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^

# The host-name grammar test checks one table against both sides of the
# policy/enforcement boundary: translate/manifest/netrule.c and
# hooks/egress/rules.c, both on bundle/hostname.c.
HOSTNAME_TEST := $(BUILDDIR)/tests/test-hostname
$(BUILDDIR)/obj/tests/unit/test-hostname.o: \
    TEST_CFLAGS = -iquote translate -iquote hooks/egress $(call pkg_cflags,$(PKGS_TRANSLATE))

$(HOSTNAME_TEST): $(BUILDDIR)/obj/tests/unit/test-hostname.o $(LIBTRANSLATE) $(LIBEGRESS) $(LIBBENTO)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pkg_libs,$(PKGS_TRANSLATE) $(PKGS_HOOKS))

# The probe runs inside containers whose rootfs holds nothing but busybox: it
# must be static, so it is built without the sanitizers.
$(PROBE): tests/probe/probe.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu17 -D_GNU_SOURCE -O2 -Wall -Wextra -static -o $@ $<

deps:
	@contrib/install-deps.sh

debug:
	$(MAKE) BUILDDIR=build/debug SANITIZE=1 all $(patsubst $(BUILDDIR)/%,build/debug/%,$(UNIT_BINS))

check-unit: $(UNIT_BINS)
	prove -v $(UNIT_BINS)

check-integration: all $(PROBE)
	BENTO_BUILD=$(abspath $(BUILDDIR)) $(PYTHON) -m pytest -q -ra tests/integration

# The crash-safety soak (tests/integration/test_crash_safety.py): a few
# hundred SIGKILLs of bento-runtime at random system calls of create,
# start, kill and delete, each recovered with delete --force and checked
# for leftovers; bounded in time; prints cycles, kills and leaks.
SOAK_KILLS ?= 300
SOAK_SECONDS ?= 240
check-soak: all $(PROBE)
	BENTO_BUILD=$(abspath $(BUILDDIR)) BENTO_CRASH_SOAK=$(SOAK_KILLS) BENTO_CRASH_SOAK_SECONDS=$(SOAK_SECONDS) \
		$(PYTHON) -m pytest -q -s -ra tests/integration/test_crash_safety.py -k soak

# The adversarial suite (docs/adversarial.md): escape attempts under every
# exec mode and runtime; it prints the attempt x mode table at the end.
check-adversarial: all $(PROBE)
	BENTO_BUILD=$(abspath $(BUILDDIR)) $(PYTHON) -m pytest -q -ra tests/adversarial

# The guest-VM tier (docs/vm.md): a Debian 12 guest with systemd as PID 1,
# pure cgroup v2 and AppArmor, booted under qemu with software emulation,
# runs tests/integration/vm and the cgroup tests against this build.  The
# guest image is built once under $(BUILDDIR)/vm and reused after that.
check-vm: all $(PROBE)
	contrib/vm/run.sh . $(BUILDDIR)

check: deps
	$(MAKE) check-layering
	$(MAKE) check-docs
	$(MAKE) check-unit
	$(MAKE) check-repro
	$(MAKE) check-integration
	$(MAKE) check-soak
	$(MAKE) check-adversarial

# The unit tests, then the integration suite, against the ASan/UBSan build.
# Each sanitizer stops the process at its first report (halt_on_error; UBSan
# is built with -fno-sanitize-recover) and writes it under SANITIZER_LOGS,
# where every new file fails the test it appeared in (tests/integration/
# conftest.py), so a report counts even in a process the test expected to
# fail.  The harness hands these options to every process it starts, and
# bento passes its environment on to bento-runtime, which hands its own to
# a hook without an env; a hook with one gets only that, and in it a report
# shows as the hook's failure (the sanitizers' default is to stop too).  Leak detection stays on, except under strace, where
# LeakSanitizer cannot stop the world (harness.sanitizer_env).
#
# The whole suite: 10 minutes under the sanitizers on the 2-core CI
# machine (851 tests, measured; a debug build from scratch adds about 3),
# which keeps .ci/run near 30 minutes of its 90.  DEBUG_TESTS narrows it,
# e.g. DEBUG_TESTS=tests/integration/test_lifecycle.py.
DEBUG_TESTS ?= tests/integration
SANITIZER_LOGS := $(abspath build/debug/sanitizer-logs)
SANITIZER_ENV := ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:exitcode=86:detect_leaks=1:log_path=$(SANITIZER_LOGS)/report \
                 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:exitcode=86:log_path=$(SANITIZER_LOGS)/report \
                 LSAN_OPTIONS=exitcode=86 BENTO_SANITIZER_LOG_DIR=$(SANITIZER_LOGS)

check-debug:
	$(MAKE) BUILDDIR=build/debug SANITIZE=1 check-unit
	$(MAKE) BUILDDIR=build/debug SANITIZE=1 all build/debug/tests/bento-probe
	rm -rf $(SANITIZER_LOGS) && mkdir -p $(SANITIZER_LOGS) && chmod 1777 $(SANITIZER_LOGS)
	$(SANITIZER_ENV) BENTO_BUILD=$(abspath build/debug) $(PYTHON) -m pytest -q -ra $(DEBUG_TESTS)

# ---- check-repro ----------------------------------------------------------
# The checked-out commit built in two directories must give the same
# programs, byte for byte (contrib/check-repro.sh; the -ffile-prefix-map
# flags above).  Two full builds: 1.5 CPU-minutes, about two to three minutes
# on an idle 2-core CI machine (8 under a load of 8).
# (The two checkouts go to a fresh directory under TMPDIR, not under
# BUILDDIR, whose *.d files this Makefile includes.)
check-repro:
	STATIC=$(STATIC) contrib/check-repro.sh
# ---- end of check-repro ------------------------------------------------------

# The include order between programs and between the stages of each
# (contrib/check-layering.py; docs/architecture.md, "The tree").
check-layering:
	@$(PYTHON) contrib/check-layering.py

FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,$(BUILDDIR)/fuzz/%,$(wildcard tests/fuzz/fuzz-*.c))
FUZZ_CFLAGS := -std=gnu17 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -Ibundle \
               -DBENTO_VERSION='"$(VERSION)"' -DBENTO_COMMIT='"$(GIT_COMMIT)"' \
               -DBENTO_BUILD_DATE='"$(BUILD_DATE)"'

$(BUILDDIR)/fuzz/fuzz-%: tests/fuzz/fuzz-%.c $(BUNDLE_SRC)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) $(call pkg_cflags,$(PKGS_BUNDLE)) -o $@ $^ $(call pkg_libs,$(PKGS_BUNDLE))

# The manifest target links the translate sources (minus main.c) as well.
$(BUILDDIR)/fuzz/fuzz-manifest: tests/fuzz/fuzz-manifest.c \
    $(filter-out translate/cli/main.c,$(TRANSLATE_SRC)) $(BUNDLE_SRC)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -iquote translate $(call pkg_cflags,$(PKGS_TRANSLATE)) -o $@ $^ \
		$(call pkg_libs,$(PKGS_TRANSLATE))

# The egress request target links the parser and the rules of hooks/egress
# (their grammar, bundle/hostname.c, comes with $(BUNDLE_SRC)).
$(BUILDDIR)/fuzz/fuzz-egress-request: tests/fuzz/fuzz-egress-request.c hooks/egress/request.c \
    hooks/egress/rules.c $(BUNDLE_SRC)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -iquote hooks/egress $(call pkg_cflags,$(PKGS_BUNDLE)) -o $@ $^ \
		$(call pkg_libs,$(PKGS_BUNDLE))

# The egress DNS target links the resolver's message and configuration
# halves (dns-conf.c normalises names with bundle/hostname.c).
$(BUILDDIR)/fuzz/fuzz-egress-dns: tests/fuzz/fuzz-egress-dns.c hooks/egress/dns-message.c \
    hooks/egress/dns-conf.c $(BUNDLE_SRC)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -iquote hooks/egress $(call pkg_cflags,$(PKGS_BUNDLE)) -o $@ $^ \
		$(call pkg_libs,$(PKGS_BUNDLE))

# The git config target links the parser and the glob of translate/run.
$(BUILDDIR)/fuzz/fuzz-git-config: tests/fuzz/fuzz-git-config.c translate/run/gitconfig-parse.c \
    translate/run/git-wildmatch.c $(BUNDLE_SRC)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -iquote translate $(call pkg_cflags,$(PKGS_BUNDLE)) -o $@ $^ \
		$(call pkg_libs,$(PKGS_BUNDLE))

# The run claim target links the reader and what it uses (path cleaning,
# the identity parser of the point locks).
$(BUILDDIR)/fuzz/fuzz-run-claim: tests/fuzz/fuzz-run-claim.c \
    $(filter-out translate/cli/main.c,$(TRANSLATE_SRC)) $(BUNDLE_SRC)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -iquote translate $(call pkg_cflags,$(PKGS_TRANSLATE)) -o $@ $^ \
		$(call pkg_libs,$(PKGS_TRANSLATE))

# The observer's ring target links the reader and the report it writes.
$(BUILDDIR)/fuzz/fuzz-observe-ring: tests/fuzz/fuzz-observe-ring.c hooks/observe/ring.c \
    hooks/observe/report.c hooks/observe/pathcheck.c $(BUNDLE_SRC)
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -iquote hooks/observe $(call pkg_cflags,$(PKGS_BUNDLE)) -o $@ $^ \
		$(call pkg_libs,$(PKGS_BUNDLE))

fuzz: $(FUZZ_TARGETS)

FUZZ_SECONDS ?= 60
fuzz-smoke: $(FUZZ_TARGETS)
	@for f in $(FUZZ_TARGETS); do \
		n=$$(basename $$f); mkdir -p $(BUILDDIR)/fuzz/corpus-$$n; \
		$$f -max_total_time=$(FUZZ_SECONDS) -max_len=65536 $(BUILDDIR)/fuzz/corpus-$$n tests/fuzz/corpus/$$n || exit 1; \
	done

lint:
	contrib/lint.sh

# Side-by-side timings with crun, runc and bubblewrap (hyperfine); writes
# $(BUILDDIR)/bench/ (results/ and scratch/), never the source tree.  Numbers
# are reported, never asserted: `check` only runs it once with the smallest
# settings (tests/integration/test_bench.py) to see that the report is whole,
# that it landed under the build directory and that nothing is left behind.
bench: all
	bench/run.sh $(abspath $(BUILDDIR))

demo: deps all
	contrib/demo.sh $(abspath $(BUILDDIR))

# ---- audit ----------------------------------------------------------------
# `make audit`: every path firejail's disable-*.inc files protect (read from
# the installed firejail package, never copied here) is either covered by a
# credential shield or explained in contrib/audit/firejail-reasons.txt;
# contrib/audit/firejail-audit.py reports each one and fails on the rest.
# shield-check asks the shields module itself (the rules as a run builds
# them) which shield covers a path.
FIREJAIL_DIR ?= /etc/firejail
SHIELD_CHECK := $(BUILDDIR)/audit/shield-check

$(BUILDDIR)/obj/contrib/audit/%.o: contrib/audit/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(call pkg_cflags,$(PKGS_TRANSLATE)) -iquote translate -c -o $@ $<

$(SHIELD_CHECK): $(BUILDDIR)/obj/contrib/audit/shield-check.o $(LIBTRANSLATE) $(LIBBENTO)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(call pkg_libs,$(PKGS_TRANSLATE))

audit: $(SHIELD_CHECK)
	$(PYTHON) contrib/audit/firejail-audit.py --shield-check $(SHIELD_CHECK) \
		--firejail $(FIREJAIL_DIR) --reasons contrib/audit/firejail-reasons.txt
# ---- end of audit -----------------------------------------------------------

# Shell completion scripts, written by `bento completion SHELL` from the
# tables its argument parser reads (docs/cli/bento-completion.md), so they
# are never edited by hand and cannot fall behind the verbs and flags.
DATADIR ?= $(PREFIX)/share
COMPLETION_DIR := $(BUILDDIR)/completion
COMPLETIONS := $(addprefix $(COMPLETION_DIR)/bento.,bash zsh fish)

$(COMPLETION_DIR)/bento.%: $(BUILDDIR)/bin/bento
	@mkdir -p $(dir $@)
	$(BUILDDIR)/bin/bento completion $* > $@.tmp && mv $@.tmp $@

install: all $(COMPLETIONS)
	install -d $(DESTDIR)$(BINDIR)
	install -m 0755 $(BINS) $(DESTDIR)$(BINDIR)/
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	install -m 0644 docs/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 0644 docs/man/*.5 $(DESTDIR)$(MANDIR)/man5/
	install -d $(DESTDIR)$(DATADIR)/bash-completion/completions \
		$(DESTDIR)$(DATADIR)/zsh/site-functions $(DESTDIR)$(DATADIR)/fish/vendor_completions.d
	install -m 0644 $(COMPLETION_DIR)/bento.bash $(DESTDIR)$(DATADIR)/bash-completion/completions/bento
	install -m 0644 $(COMPLETION_DIR)/bento.zsh $(DESTDIR)$(DATADIR)/zsh/site-functions/_bento
	install -m 0644 $(COMPLETION_DIR)/bento.fish $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/bento.fish
	install -d $(DESTDIR)$(INCLUDEDIR)/bento $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR)
	install -m 0644 include/bento/bento.h $(DESTDIR)$(INCLUDEDIR)/bento/
	install -m 0755 $(EMBED_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(EMBED_SO)) $(DESTDIR)$(LIBDIR)/$(EMBED_SONAME)
	ln -sf $(EMBED_SONAME) $(DESTDIR)$(LIBDIR)/libbento-embed.so
	install -m 0644 $(EMBED_A) $(DESTDIR)$(LIBDIR)/
	install -d $(DESTDIR)$(PREFIX)/lib/bento
	install -m 0644 $(SHIM_SO) $(DESTDIR)$(PREFIX)/lib/bento/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(VERSION)|' embed/bento.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/bento.pc
	chmod 0644 $(DESTDIR)$(PKGCONFIGDIR)/bento.pc

clean:
	rm -rf build

# Not below build/vm: the guest's root file system, while check-vm builds it,
# has directories named *.d (etc/rc2.d) and a mounted /proc.
-include $(shell find $(BUILDDIR) -path '$(BUILDDIR)/vm' -prune -o -name '*.d' -type f -print 2>/dev/null)
