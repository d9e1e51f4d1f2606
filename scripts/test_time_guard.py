#!/usr/bin/python3
"""test_time_guard.py BUILD_DIR CTEST_LOG: holds each test's time in CTEST_LOG against its CTest
timeout (read from `ctest --show-only=json-v1` in BUILD_DIR). Machines of one kind differ by 2x in
speed, so a test must fit its timeout with room to spare on the machine that adds it: it prints every
test that took more than 20% of its timeout, and exits 1 when one took more than 40%."""
import json
import re
import subprocess
import sys

REPORT, FAIL = 0.20, 0.40
LINE = re.compile(r"Test +#\d+: (\S+) \.+\s+Passed\s+([0-9.]+) sec")


def timeouts(build_dir: str) -> dict[str, float]:
    listing = subprocess.run(["ctest", "--show-only=json-v1"], cwd=build_dir, check=True,
                             capture_output=True, text=True).stdout
    result = {}
    for test in json.loads(listing)["tests"]:
        for prop in test.get("properties", []):
            if prop["name"] == "TIMEOUT":
                result[test["name"]] = float(prop["value"])
    return result


def main() -> int:
    build_dir, log = sys.argv[1], sys.argv[2]
    limits = timeouts(build_dir)
    over = []
    with open(log, encoding="utf-8", errors="replace") as lines:
        for line in lines:
            match = LINE.search(line)
            if match and match.group(1) in limits:
                name, seconds = match.group(1), float(match.group(2))
                share = seconds / limits[name]
                if share > REPORT:
                    over.append((share, name, seconds, limits[name]))
    for share, name, seconds, limit in sorted(over, reverse=True):
        verdict = "FAIL" if share > FAIL else "warn"
        print(f"  {verdict}: {name} took {seconds:.1f} s, {share:.0%} of its {limit:.0f} s timeout")
    failed = [entry for entry in over if entry[0] > FAIL]
    if failed:
        print(f"test time guard: {len(failed)} test(s) took more than {FAIL:.0%} of their timeout: "
              "a machine half as fast would time out; make them cheaper or split them")
        return 1
    print(f"test time guard: every test within {FAIL:.0%} of its timeout "
          f"({len(over)} above {REPORT:.0%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
