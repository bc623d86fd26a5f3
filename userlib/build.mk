# SPDX-License-Identifier: LGPL-2.1 OR MIT
#
# What lib/Makefile and wsxctl/Makefile share: the version, the install
# directories, the compiler flags and the test runner.
#
# Variables: CC, AR, CFLAGS (default -O2 -g), CPPFLAGS, LDFLAGS, UAPI (the
# uapi directory holding linux/wsx.h), PREFIX (default /usr/local), BINDIR,
# LIBDIR, INCLUDEDIR, PKGCONFIGDIR, MANDIR, BASHCOMPDIR, DESTDIR.

USERLIB		:= $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

# The project's version, in one place: dkms.conf's PACKAGE_VERSION (the
# module's, the packages', wsxctl's and libwsx.pc's).  The library's soname
# and symbol versions are its own (lib/libwsx.map).
VERSION		:= $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(USERLIB)/../dkms.conf)
ifeq ($(VERSION),)
$(error no PACKAGE_VERSION in $(USERLIB)/../dkms.conf)
endif
SOVERSION	:= 1

PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
LIBDIR		?= $(PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
PKGCONFIGDIR	?= $(LIBDIR)/pkgconfig
MANDIR		?= $(PREFIX)/share/man
BASHCOMPDIR	?= $(PREFIX)/share/bash-completion/completions
UAPI		?= $(abspath $(USERLIB)/../uapi)

CFLAGS		?= -O2 -g
ARFLAGS		:= rcs
WSX_CFLAGS	:= -std=gnu11 -Wall -Wextra -Werror -fPIC
WSX_CPPFLAGS	:= -D_GNU_SOURCE -I$(USERLIB)/lib/include -I$(UAPI) -MMD -MP
COMPILE		= $(CC) $(WSX_CPPFLAGS) $(CPPFLAGS) $(WSX_CFLAGS) $(CFLAGS)

# The tests' shared helpers: KTAP output and the fake device.
TESTLIB		:= $(USERLIB)/testlib
test/%.o: WSX_CPPFLAGS += -I$(TESTLIB)

%.o: %.c
	$(COMPILE) -c -o $@ $<

test/fakewsx.o: $(TESTLIB)/fakewsx.c
	$(COMPILE) -c -o $@ $<

# The fake device computes CRC32C with wsxctl's reference implementation.
test/crc32c.o: $(USERLIB)/wsxctl/crc32c.c
	$(COMPILE) -c -o $@ $<

# run-tests PROGRAMS: run each, report which failed, fail if any did.
define run-tests
	@fail=0; \
	for t in $(1); do \
		echo "# $$t"; \
		./$$t || { echo "# FAIL: $$t"; fail=1; }; \
	done; \
	if [ $$fail = 0 ]; then echo "# all tests passed"; fi; \
	exit $$fail
endef

# install-man SECTION PAGES: install the pages into $(MANDIR)/manSECTION.
define install-man
	install -d $(DESTDIR)$(MANDIR)/man$(1)
	install -m 644 $(2) $(DESTDIR)$(MANDIR)/man$(1)/
endef
