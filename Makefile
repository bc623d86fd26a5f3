# SPDX-License-Identifier: GPL-2.0
#
# wsx: top-level build.  `make` builds the module, libwsx, wsxctl and the
# selftests; `make check` tests all of it in a VM; `make demo` shows it.
# See README.md.

VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
KDIR ?= $(shell scripts/kdir)
W ?= 1
# The module must build warning-free; DKMS builds do not pass this.
WERROR ?= 1
PREFIX ?= /usr/local
DESTDIR ?=
# Where the kselftest skeleton (lib.mk, harness) is staged and installed.
KSFT_STAGE := $(CURDIR)/build/ksft
KSFT_INSTALL := $(CURDIR)/build/ksft-install

.PHONY: all module userlib selftests deps check demo install uninstall \
	dkms-install clean help

all: module userlib selftests

help:
	@sed -n 's/^## //p' $(MAKEFILE_LIST)

## module        build kmod/wsx.ko against KDIR (W=1 by default)
module:
	@test -n "$(KDIR)" || { echo "no kernel build tree: run make deps" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=$(W) \
		$(if $(filter 1,$(WERROR)),KCFLAGS=-Werror) modules

## userlib       build libwsx (static, shared) and wsxctl
userlib:
	$(MAKE) -C userlib

## selftests     build and install the kselftests into build/ksft-install
selftests:
	scripts/stage-selftests $(KSFT_STAGE) $(KSFT_INSTALL)

## deps          install every Debian package the build and tests need
deps:
	@scripts/deps

## check         build, host checks, then the kselftests in one VM boot
check:
	@scripts/deps
	@$(MAKE) --no-print-directory all
	@scripts/check

## demo          boot the VM, load wsx and show what it does
demo:
	@scripts/deps
	@$(MAKE) --no-print-directory all
	@scripts/demo

## install       wsx.ko (into /lib/modules/KDIR's release/extra, then
##               depmod; not the benchmark module), libwsx (then ldconfig),
##               headers, wsxctl, the man pages
## uninstall     remove what install put there
# KDIR's release: the /lib/modules folder its modules go to.
KRELEASE = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
	$(KDIR)/include/generated/utsrelease.h)
MAN9DIR = $(DESTDIR)$(PREFIX)/share/man/man9

# M=kmod: modules_install installs what kmod/modules.order lists, wsx.ko,
# where the whole tree's would add bench/wsx_bench.ko.
install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod INSTALL_MOD_PATH=$(DESTDIR) \
		modules_install
	$(MAKE) -C userlib install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	install -D -m 644 docs/wsx.4 $(DESTDIR)$(PREFIX)/share/man/man4/wsx.4
	scripts/kernel-api-man $(MAN9DIR)

# The section 9 pages are those kernel-api-man writes; the modules also
# where an older install put them (extra/kmod/, extra/bench/).
uninstall:
	@test -n "$(KRELEASE)" || { echo "no kernel build tree: set KDIR" >&2; exit 1; }
	rm -f $(addprefix $(DESTDIR)/lib/modules/$(KRELEASE)/extra/,\
		wsx.ko kmod/wsx.ko bench/wsx_bench.ko)
	$(if $(DESTDIR),,depmod $(KRELEASE))
	$(MAKE) -C userlib uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	rm -f $(DESTDIR)$(PREFIX)/share/man/man4/wsx.4
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	scripts/kernel-api-man "$$tmp" >/dev/null && \
	for page in "$$tmp"/*.9; do rm -f "$(MAN9DIR)/$${page##*/}"; done

## dkms-install  copy the source to /usr/src/wsx-VERSION, register it with
##               DKMS and build and install it for every installed kernel
##               that has headers (see scripts/dkms-install)
dkms-install:
	scripts/dkms-install

## deb           the Debian packages wsx-dkms, libwsx1, libwsx-dev, wsxctl
##               into build/deb/ (dpkg-buildpackage -b in a copy)
.PHONY: deb
deb:
	@scripts/deps
	scripts/build-deb

## check-deb     build the packages, lintian, install them, boot the
##               DKMS-built module with the installed wsxctl and libwsx and
##               run the kselftests, then purge (see scripts/check-deb)
.PHONY: check-deb
check-deb:
	@scripts/deps
	@$(MAKE) --no-print-directory selftests
	@scripts/check-deb

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C userlib clean
	rm -rf build

## bench         build, then benchmark wsx against the Go runtime, cmwq, a
##               central queue, direct calls and io_uring, each phase in
##               three VM boots (see scripts/bench; not run in CI)
.PHONY: bench
bench:
	@scripts/deps
	@$(MAKE) --no-print-directory module
	@scripts/bench

## bench-profile perf inside the VM: the hottest kernel symbols of one
##               benchmark workload (scripts/bench-profile;
##               WORKLOAD=spawn CONTENDER=wsx PARAMS="wsx.ko params",
##               or CMD="wsxctl run spawn 4 8 0": a command in the guest)
.PHONY: bench-profile
bench-profile:
	@scripts/deps
	@$(MAKE) --no-print-directory module userlib
	@scripts/bench-profile $(if $(CMD),--cmd '$(CMD)',\
		$(or $(WORKLOAD),spawn) $(or $(CONTENDER),wsx)) $(PARAMS)

## bench-waste   the wasted-cores measure of `wsxctl trace` over a 10 s mix
##               of items from 5 processes (bench/waste.sh) in one VM boot,
##               CPUS vCPUs (default 2), a host thread each; not a test
.PHONY: bench-waste
bench-waste:
	@scripts/deps
	@$(MAKE) --no-print-directory module userlib
	@echo "bench-waste: host load $$(cut -d' ' -f1 /proc/loadavg) on $$(nproc) CPUs"
	@scripts/vm-run --tcg-thread multi --cpus $(or $(CPUS),2) --mem 1536 \
		--timeout 900 --load --add bench/waste.sh \
		--add selftests/wsx/wsx_mix.sh -- 'sh /extra/waste.sh'

## bench-latency the longest interrupts-off and preemption-off stretches
##               while a user asks for wsx's longest timer walks
##               (bench/latency.sh) on the KASAN debug kernel (its irqsoff
##               and preemptoff tracers), ITEMS (default 65536) delayed
##               items; OLD=path/to/wsx.ko adds an older build, same boot
.PHONY: bench-latency
bench-latency:
	@scripts/deps
	@$(MAKE) --no-print-directory userlib
	@scripts/bench-build
	@scripts/bench-latency $(or $(ITEMS),65536) $(OLD)

## svg           regenerate docs/seeds-timeline.svg from a VM run of the
##               seeds' scenario (scripts/timeline-svg)
.PHONY: svg
svg:
	@$(MAKE) --no-print-directory all
	@scripts/timeline-svg docs/seeds-timeline.svg

## check-matrix  DKMS-build wsx for Debian's 6.1, 6.12 and 6.12-rt kernels
##               and run the kselftests on each in the VM (installs the
##               6.12 kernels when missing; see scripts/check-matrix);
##               MATRIX_KERNELS="6.12 6.12-rt" for a subset
MATRIX_KERNELS ?= 6.1 6.12 6.12-rt
.PHONY: check-matrix
check-matrix:
	@scripts/deps
	@$(MAKE) --no-print-directory userlib selftests
	@scripts/check-matrix --kernels "$(MATRIX_KERNELS)"

## check-scale-quick  64 vCPUs, one boot: exactly-once with 10^6 items,
##               hotplug over 16 CPUs, the idle check, the trickle's
##               spinning bound (see scripts/check-scale-quick)
.PHONY: check-scale-quick
check-scale-quick:
	@scripts/deps
	@$(MAKE) --no-print-directory all
	@scripts/check-scale-quick

## check-debug   the KUnit tests and the kselftests on the KASAN + lockdep
##               and KCSAN + lockdep kernels built from linux-source-6.1
##               (built once, ~10 min each on quiet cores, cached; see
##               scripts/check-debug)
.PHONY: check-debug
check-debug:
	@scripts/deps
	@$(MAKE) --no-print-directory userlib selftests
	@scripts/check-debug

## coverage      line, branch and function coverage of wsx.ko (gcov) over
##               the KUnit tests and the kselftests, one boot of the KASAN +
##               lockdep kernel (as check-debug runs it, which reports the
##               same); lcov.info, table.txt and the HTML report in
##               build/coverage/ (see scripts/coverage-report)
.PHONY: coverage
coverage:
	@scripts/deps
	@$(MAKE) --no-print-directory userlib selftests
	@scripts/check-debug --kernels kasan-lockdep
