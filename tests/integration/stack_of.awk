# SPDX-License-Identifier: GPL-3.0-or-later
# stack_of.awk - print "PATH OFFSET" for every frame of the stack of the
# first "+" or ">" event of the given size (-v size=0x...).
$1 == "#m" { p = $0; sub(/^#m [^ ]+ [^ ]+ [^ ]+ /, "", p); path[$2] = p; next }
$1 == "#s" { frames[$2] = $0; next }
$1 == "#" || $1 ~ /^#/ { next }
{
	i = ($1 == "@") ? 3 : 1
	if (($i == "+" || $i == ">") && $(i + 2) == size && $(i + 3) ~ /^s[0-9]+$/) {
		n = split(frames[substr($(i + 3), 2)], f, " ")
		for (k = 3; k <= n; k++) {
			split(f[k], mo, ":")
			printf "%s %s\n", (mo[1] in path) ? path[mo[1]] : "-", mo[2]
		}
		exit
	}
}
