"""Checks for stats.py. Run: python3 test_stats.py"""

import sys

from stats import average, spread, total

CHECKS = [
    ("total([1, 2, 3]) == 6", lambda: total([1, 2, 3]) == 6),
    ("average([2, 4, 6]) == 4", lambda: average([2, 4, 6]) == 4),
    ("spread([3, 9, 4]) == 6", lambda: spread([3, 9, 4]) == 6),
]

failed = [name for name, check in CHECKS if not check()]
for name in failed:
    print(f"FAIL: {name}")
print(f"{len(CHECKS) - len(failed)} passed, {len(failed)} failed")
sys.exit(1 if failed else 0)
