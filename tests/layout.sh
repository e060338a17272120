#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The rooms of docs/layout.md, as its table says them, against the tree: each
# file includes only its own room and the rooms its room may include (so no
# circle runs between rooms), the rooms' arrows themselves make no circle, no
# room is over 10,000 lines of C, and each room's header says in its opening
# comment what the room owns and what it never includes.
. "$(dirname "$0")/lib.sh"
cd "$TOP" || exit 1

declare -A may header
rooms=()
while IFS='|' read -r _ room _ inc hdr _; do
	room=$(echo "$room" | tr -d ' `/')
	[ -n "$room" ] || continue
	rooms+=("$room")
	may[$room]=" $(echo "$inc" | grep -o '`[a-z-]*/`' | tr -d '`/' | tr '\n' ' ')"
	header[$room]=$(echo "$hdr" | tr -d ' `')
done < <(grep -E '^\| `[a-z-]+/` \|' docs/layout.md)
expect_eq "docs/layout.md names the rooms" "${#rooms[@]}" 13

# The room an include names: its first path component (sdk's headers are included as udtrace/).
room_of() {
	case $1 in
	udtrace/*) echo sdk ;;
	*/*) echo "${1%%/*}" ;;
	*) echo "" ;;             # a header beside the file, or a generated one (udtrace_paths.h)
	esac
}

bad=()
for r in "${rooms[@]}"; do
	[ -d "$r" ] || { bad+=("$r: no such folder"); continue; }
	while IFS= read -r line; do
		file=${line%%:*}
		inc=$(echo "$line" | sed -E 's/.*#include "([^"]+)".*/\1/')
		to=$(room_of "$inc")
		[ -z "$to" ] || [ "$to" = "$r" ] || [[ ${may[$r]} == *" $to "* ]] ||
			bad+=("$file includes $inc: $r may not include $to/")
	done < <(grep -rHE '^#\s*include "' "$r" --include='*.c' --include='*.h' --include='*.S')
done
if [ ${#bad[@]} -eq 0 ]; then ok "every include is of the file's room or of one its room may include"
else fail "every include is of the file's room or of one its room may include" "${bad[@]}"; fi

# The arrows make no circle: take away rooms that include nothing left, until none is left.
left=("${rooms[@]}")
for _ in "${rooms[@]}"; do
	next=()
	for r in "${left[@]}"; do
		for d in ${may[$r]}; do
			[[ " ${left[*]} " == *" $d "* ]] && { next+=("$r"); continue 2; }
		done
	done
	left=("${next[@]}")
done
expect_eq "the rooms' arrows make no circle" "${left[*]}" ""

# A room that may include another must exist in the table.
unknown=()
for r in "${rooms[@]}"; do
	for d in ${may[$r]}; do [[ " ${rooms[*]} " == *" $d "* ]] || unknown+=("$r -> $d"); done
done
expect_eq "each arrow ends in a room of the table" "${unknown[*]}" ""

big=()
for r in "${rooms[@]}"; do
	n=$(find "$r" -name '*.[ch]' -print0 | xargs -0 cat | wc -l)
	[ "$n" -le 10000 ] || big+=("$r: $n lines")
done
expect_eq "no room is over 10,000 lines of C" "${big[*]}" ""

nohdr=()
for r in "${rooms[@]}"; do
	h=${header[$r]}
	# the opening comment: after the SPDX line, to the first "*/"
	c=$(awk 'NR > 1 { print } NR > 1 && /\*\// { exit }' "$h" 2>/dev/null)
	grep -qi 'own' <<<"$c" && grep -qi 'never' <<<"$c" || nohdr+=("$h")
done
expect_eq "each room's header says what it owns and what it never includes" "${nohdr[*]}" ""

# The check itself fails on a wrong include (a test that cannot fail is none).
mkdir -p "$WORK/t/output" && printf '#include "consumer/internal.h"\n' >"$WORK/t/output/x.c"
out=$(cd "$WORK/t" && grep -rHE '^#\s*include "' output --include='*.c' | while IFS= read -r l; do
	inc=$(echo "$l" | sed -E 's/.*#include "([^"]+)".*/\1/'); to=$(room_of "$inc")
	[[ ${may[output]} == *" $to "* ]] || echo "refused $inc"; done)
expect_eq "an include of consumer/ from output/ is refused" "$out" "refused consumer/internal.h"
finish
