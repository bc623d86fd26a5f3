# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# err-trap.sh: sourced by every bash script here that runs under set -e,
# right after its `set -euo pipefail`.  A command that fails and so ends the
# script names the script, the line, its exit status and the command on
# stderr, where set -e alone ends the script without a word.  set -E hands
# the trap to functions, command substitutions and subshells, where the
# failing command usually is.
set -E
trap 'printf "%s: line %s: exit %s: %s\n" "${BASH_SOURCE[0]##*/}" "$LINENO" "$?" "$BASH_COMMAND" >&2' ERR
