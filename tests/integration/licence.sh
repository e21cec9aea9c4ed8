#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The licence: Apache-2.0, declared in LICENSE, in every source file (SPDX) and in
# debian/copyright's machine-readable format (DEP-5).
. "$(dirname "$0")/../lib.sh"
[ "${VIGIL_LABEL:-plain}" = asan ] && exit 0 # nothing here depends on the build flavour

check "LICENSE is the Apache License 2.0" grep -q 'Apache License' "$TOP/LICENSE"
check "LICENSE is the whole text" grep -q 'END OF TERMS AND CONDITIONS' "$TOP/LICENSE"

# Every tracked source file names its licence in its first lines (after a shebang).
missing=$(cd "$TOP" && git ls-files -- 'src/*' 'tests/*.c' 'tests/*.h' 'tests/*.sh' 'tests/*.py' \
	'bench/*.c' 'bench/*.h' 'bench/*.sh' 'bench/*.py' 'fuzz/*.c' 'fuzz/*.h' 'fuzz/*.sh' \
	'scripts/*.sh' Makefile .ci/run 2>/dev/null | while read -r f; do
	case $f in *.c | *.h | *.sh | *.py | Makefile | .ci/run) ;; *) continue ;; esac
	head -3 "$f" | grep -q 'SPDX-License-Identifier: Apache-2.0' || echo "$f"
done)
check_eq "every source file carries SPDX-License-Identifier: Apache-2.0" "" "$missing"

# debian/copyright: DEP-5 header, every Files paragraph under Apache-2.0, the licence
# paragraph present. Parsed as deb822 paragraphs (python3-debian is not assumed).
cr="$TOP/debian/copyright"
check "debian/copyright is DEP-5" grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' "$cr"
out=$(python3 - "$cr" <<'PY'
import sys
paras, cur = [], {}
key = None
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    if not line.strip():
        if cur: paras.append(cur)
        cur, key = {}, None
        continue
    if line[0] in " \t":
        cur[key] += "\n" + line.strip()
        continue
    key, _, val = line.partition(":")
    cur[key] = val.strip()
if cur: paras.append(cur)
files = [p for p in paras if "Files" in p]
lic = [p for p in paras if "License" in p and "Files" not in p and "Format" not in p]
bad = [p["Files"] for p in files if p.get("License", "").split("\n")[0] != "Apache-2.0"]
print("files=%d bad=%s standalone=%s" % (len(files), bad, [p["License"].split("\n")[0] for p in lic]))
PY
)
check_eq "debian/copyright: every file Apache-2.0, its text named" "files=1 bad=[] standalone=['Apache-2.0']" "$out"
