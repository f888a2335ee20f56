#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# check-headers.sh - every source file of the repository starts with the
# project's one license header: its first line (the second after a "#!"
# line) holds "SPDX-License-Identifier: GPL-3.0-or-later", opening the
# file's leading comment:
#     /* SPDX-License-Identifier: GPL-3.0-or-later
#      * name.c - what the file is for ... */
#     # SPDX-License-Identifier: GPL-3.0-or-later     (shell, make, perl, awk)
#     <!-- SPDX-License-Identifier: GPL-3.0-or-later -->            (Markdown)
#     .\" SPDX-License-Identifier: GPL-3.0-or-later                (man pages)
# LICENSE holds the text.  Lists the files that do not, and fails.
set -u
cd "$(dirname "$0")/.." || exit 2
tag='SPDX-License-Identifier: GPL-3.0-or-later'
bad=0
while IFS= read -r -d '' f; do
	case $f in
	*.c | *.h | *.cc | *.S | *.sh | *.pl | *.py | *.awk | *.mk | *.supp | *.md | *.map | *.in | \
		*.[0-9] | */Makefile | Makefile | .ci/run | .clang-format) ;;
	*) continue ;;
	esac
	[ -f "$f" ] || continue
	line=$(head -n 1 "$f")
	[[ $line == '#!'* ]] && line=$(sed -n 2p "$f")
	[[ $line == *"$tag"* ]] && continue
	echo "no license header: $f"
	bad=1
done < <(git ls-files -z -c -o --exclude-standard 2>/dev/null)
[ $bad -eq 0 ] && echo "license headers: every source file has one"
exit $bad
