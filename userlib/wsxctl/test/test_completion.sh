#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1 OR MIT
#
# The bash completion follows wsxctl --help: it offers every command, and
# after a command every long option that the command's --help names.
cd "$(dirname "$0")/.." || exit 1
. ../testlib/ktap.sh
. test/help.sh
. ./wsxctl.bash-completion

# complete WORDS...: what _wsxctl offers for the last word.
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_wsxctl
	printf '%s\n' "${COMPREPLY[@]}"
}

offered=$(complete_words wsxctl '')
for cmd in $(help_commands); do
	printf '%s\n' "$offered" | grep -qx -- "$cmd"
	ok $? "wsxctl <TAB> offers $cmd"
	offered_opts=$(complete_words wsxctl "$cmd" --)
	missing=$(FIXED=x missing_from "$offered_opts" $(help_options "$cmd"))
	none_missing "wsxctl $cmd --<TAB> misses" "$missing"
	ok $? "wsxctl $cmd --<TAB> offers each option of $cmd --help"
done

# after run, every op that run --help lists
ops=$(help_ops)
[ "$(echo "$ops" | wc -w)" -ge 10 ]
ok $? "wsxctl run --help lists the ops"
offered_ops=$(complete_words wsxctl run '')
missing=$(FIXED=x missing_from "$offered_ops" $ops)
none_missing "wsxctl run <TAB> misses" "$missing"
ok $? "wsxctl run <TAB> offers each op of run --help"

echo "1..$n"
[ "$failed" = 0 ]
