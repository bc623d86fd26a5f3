#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1 OR MIT
#
# wsxctl(1) follows wsxctl --help: every command that --help lists has its
# ".SS command" section, and every long option that the command's --help
# names is in that section.
cd "$(dirname "$0")/.." || exit 1
. ../testlib/ktap.sh
. test/help.sh

commands=$(help_commands)
[ -n "$commands" ]
ok $? "wsxctl --help lists commands"

# section CMD: the text of wsxctl.1's ".SS CMD ..." section, unescaped.
section() {
	awk -v cmd="$1" '
		/^\.S[SH] / { in_sec = ($1 == ".SS" && $2 == cmd) ; next }
		in_sec' wsxctl.1 | sed 's/\\-/-/g'
}

for cmd in $commands; do
	text=$(section "$cmd")
	[ -n "$text" ]
	ok $? "wsxctl.1 has a section for $cmd"
	missing=$(missing_from "$text" $(help_options "$cmd" | grep -vx -- --help))
	none_missing "not in wsxctl.1's $cmd section" "$missing"
	ok $? "wsxctl.1's $cmd section names each option of $cmd --help"
done

echo "1..$n"
[ "$failed" = 0 ]
