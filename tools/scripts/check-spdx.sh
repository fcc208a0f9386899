#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every source, build and script file tracked by git names its license in its
# first lines (SPDX-License-Identifier: Apache-2.0; LICENSE has the text).
# Run by CTest (License.SpdxHeaders); prints the files that lack it.
set -euo pipefail
cd "$(dirname "$0")/../.."
missing=0
while IFS= read -r f; do
  case "$f" in
    *.cc|*.h|*.h.in|*.py|*.pyi|*.sh|*.cmake|*.cmake.in|*.pc.in|*CMakeLists.txt|*Makefile|.ci/run) ;;
    *) continue ;;
  esac
  if ! head -n 5 "$f" | grep -q 'SPDX-License-Identifier: Apache-2.0'; then
    echo "no SPDX-License-Identifier in the first lines of $f" >&2
    missing=$((missing + 1))
  fi
done < <(git ls-files 2>/dev/null || find . -type f -not -path './.git/*' -not -path './build/*' | sed 's|^\./||')
echo "spdx: $missing file(s) without the identifier"
[[ $missing -eq 0 ]]
